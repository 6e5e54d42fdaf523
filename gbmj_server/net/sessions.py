"""Who is signed in: one live connection per account, and every open connection.

A new sign-in of an account replaces its older connection (told ``replaced``, closed);
the host's moderation reaches a signed-in account through ``of_account``.
"""

from __future__ import annotations

from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.storage import Account
from protocol import messages as m
from protocol.vocabulary import NoticeCode


class Sessions:
    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self._by_account: dict[int, Connection] = {}

    @property
    def signed_in(self) -> int:
        return len(self._by_account)

    def of_account(self, account_id: int) -> Connection | None:
        return self._by_account.get(account_id)

    def sign_in(self, conn: Connection, account: Account, token: str) -> Connection | None:
        """``conn`` is now ``account``'s connection; the one it replaces (told and closed),
        if any."""
        old = self._by_account.get(account.id)
        if old is conn:
            old = None
        if old is not None:
            old.send(m.Notice(code=NoticeCode.REPLACED, message="you signed in elsewhere"))
            old.close("replaced", flush=True)
        conn.session.account = account
        conn.session.token = token
        self._by_account[account.id] = conn
        logs.event("signed_in", connection=conn.id, account=account.id, guest=account.is_guest)
        return old

    def sign_out(self, conn: Connection) -> None:
        self._forget(conn)
        conn.session.account = None
        conn.session.token = None

    def opened(self, conn: Connection) -> None:
        self.connections.add(conn)

    def closed(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self._forget(conn)

    def _forget(self, conn: Connection) -> None:
        account_id = conn.session.account_id
        if account_id is not None and self._by_account.get(account_id) is conn:
            del self._by_account[account_id]

    def broadcast(self, message: m.Message) -> None:
        for conn in list(self.connections):
            conn.send(message)
