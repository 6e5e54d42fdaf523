"""The host's moderation on the running server (docs/rules.md §2.11, docs/hosting.md).

Each action changes the database and reaches the connected player at once: a ban or a
password reset ends the account's live connection and every session token; a mute stops
its chat; a kick takes it off its table (a seat in a running match goes to a bot, as for
an escape) and keeps it off that table until the table's next match has ended; coins
granted or taken show in the player's profile; an announcement goes to everyone.

``gbmj-server admin`` reaches these through the admin socket
(``gbmj_server.admin_socket``); without a running server it acts on the file alone.

On several nodes (``gbmj_server.nodes``) the admin command reaches one node, which
changes the database and tells the others (``share``); each node then does what
reaches its own connected players (``heard``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from gbmj_server import logs
from gbmj_server.net.errors import RequestError
from gbmj_server.profiles import profile
from gbmj_server.services import Services
from gbmj_server.storage import Account, LedgerError, StorageError
from gbmj_server.tables import commands as do
from protocol import messages as m
from protocol.vocabulary import NoticeCode

log = logging.getLogger(__name__)


class ModerationError(Exception):
    """The action could not be done (no such account, too few coins...): nothing changed."""


class Moderator:
    def __init__(
        self, services: Services, share: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        self.services = services
        self.share = share  # an action for the other nodes' players (None: one node)

    def _share(self, action: str, **fields: Any) -> None:
        if self.share is not None:
            self.share({"do": action, **fields})

    async def heard(self, action: dict[str, Any]) -> None:
        """What another node's host action does to this node's players."""
        do = action.get("do")
        account_id = action.get("account")
        if do == "announce":
            text = str(action["text"])
            self.services.sessions.broadcast(m.Notice(code=NoticeCode.ANNOUNCEMENT, message=text))
        elif not isinstance(account_id, int):
            return
        elif do == "ban":
            self._end(account_id, NoticeCode.BANNED, "the host banned you")
        elif do == "reset_password":
            self._end(account_id, NoticeCode.SIGNED_OUT, "your password was reset: sign in again")
        elif do == "mute":
            self._mute_connection(account_id, bool(action.get("on")))
        elif do == "kick":
            actor = self.services.tables.where_seated(account_id)
            if actor is not None:
                with contextlib.suppress(RequestError):
                    await actor.call(do.HostKick(account_id))
        elif do == "coins":
            await self._show_coins(account_id)

    async def _account(self, name: str) -> Account:
        store = self.services.store
        account = await store.call(store.storage.account_by_name, name)
        if account is None:
            raise ModerationError(f"no account named {name!r}")
        return account

    def _end_connection(self, account: Account, code: NoticeCode, text: str) -> bool:
        return self._end(account.id, code, text)

    def _end(self, account_id: int, code: NoticeCode, text: str) -> bool:
        conn = self.services.sessions.of_account(account_id)
        if conn is None:
            return False
        conn.send(m.Notice(code=code, message=text))
        conn.close(code.value, flush=True)
        return True

    async def ban(self, name: str, banned: bool) -> str:
        store = self.services.store
        try:
            account = await store.call(store.storage.set_banned, name, banned)
        except StorageError as exc:
            raise ModerationError(str(exc)) from None
        logs.event("moderation", action="ban" if banned else "unban", account=account.id)
        if banned:
            self._share("ban", account=account.id)
        if banned and self._end_connection(account, NoticeCode.BANNED, "the host banned you"):
            return f"{name} banned; their connection ended"
        return f"{name} {'banned' if banned else 'unbanned'}"

    async def reset_password(self, name: str, password_hash: str) -> str:
        store = self.services.store
        try:
            account = await store.call(store.storage.set_password_hash, name, password_hash)
        except StorageError as exc:
            raise ModerationError(str(exc)) from None
        logs.event("moderation", action="reset_password", account=account.id)
        self._share("reset_password", account=account.id)
        self._end_connection(
            account, NoticeCode.SIGNED_OUT, "your password was reset: sign in again"
        )
        return f"password of {name} reset; its sessions ended"

    async def mute(self, name: str, on: bool) -> str:
        account = await self._account(name)
        store = self.services.store
        await store.call(store.storage.set_host_muted, account.id, on)
        logs.event("moderation", action="mute" if on else "unmute", account=account.id)
        self._mute_connection(account.id, on)
        self._share("mute", account=account.id, on=on)
        return f"{name} {'muted' if on else 'unmuted'}"

    def _mute_connection(self, account_id: int, on: bool) -> None:
        conn = self.services.sessions.of_account(account_id)
        if conn is not None:
            conn.session.host_muted = on
            if on:
                conn.send(m.Notice(code=NoticeCode.MUTED, message="the host muted you"))

    async def kick(self, name: str) -> str:
        account = await self._account(name)
        tables = self.services.tables
        actor = tables.where_seated(account.id)
        conn = self.services.sessions.of_account(account.id)
        if actor is None and conn is not None:
            actor = tables.at(conn)
        if actor is None and self.share is not None:  # at another node's table, maybe
            self._share("kick", account=account.id)
            logs.event("moderation", action="kick", account=account.id)
            return f"{name} is at no table of this node: the other nodes kick them"
        if actor is None:
            raise ModerationError(f"{name} is at no table")
        try:
            await actor.call(do.HostKick(account.id))
        except RequestError as exc:
            raise ModerationError(exc.message) from None
        logs.event("moderation", action="kick", account=account.id, table=actor.id)
        return f"{name} kicked from table {actor.id}"

    async def adjust(self, name: str, coins: int) -> str:
        store = self.services.store
        try:
            balance = await store.call(store.storage.admin_adjust, name, coins)
        except (StorageError, LedgerError) as exc:
            raise ModerationError(str(exc)) from None
        account = await self._account(name)
        logs.event(
            "moderation", action="grant" if coins > 0 else "take", account=account.id, coins=coins
        )
        await self._show_coins(account.id)
        self._share("coins", account=account.id)
        return f"{name}: {balance} coins"

    async def _show_coins(self, account_id: int) -> None:
        conn = self.services.sessions.of_account(account_id)
        if conn is not None:
            store = self.services.store
            account = await store.call(store.storage.account_by_id, account_id)
            if account is not None:
                mine = await profile(store, account.id, account.name, account.is_guest)
                conn.send(m.ProfileUpdate(profile=mine))

    async def announce(self, text: str) -> str:
        text = text.strip()
        if not text or len(text) > 500 or not text.isprintable():
            raise ModerationError("an announcement is 1-500 printable characters")
        self.services.sessions.broadcast(m.Notice(code=NoticeCode.ANNOUNCEMENT, message=text))
        self._share("announce", text=text)
        logs.event("moderation", action="announce", length=len(text))
        told = f"announced to {len(self.services.sessions.connections)} connections"
        return told + (" here, and to the other nodes" if self.share is not None else "")
