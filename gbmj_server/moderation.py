"""The host's moderation on the running server (docs/rules.md §2.11, docs/hosting.md).

Each action changes the database and reaches the connected player at once: a ban or a
password reset ends the account's live connection and every session token; a mute stops
its chat; a kick takes it off its table (a seat in a running match goes to a bot, as for
an escape) and keeps it off that table until the table's next match has ended; coins
granted or taken show in the player's profile; an announcement goes to everyone.

``gbmj-server admin`` reaches these through the admin socket
(``gbmj_server.admin_socket``); without a running server it acts on the file alone.
"""

from __future__ import annotations

import logging

from gbmj_server import logs
from gbmj_server.net.errors import RequestError
from gbmj_server.profiles import profile
from gbmj_server.services import Services
from gbmj_server.storage import Account, LedgerError, StorageError
from gbmj_server.tables import powers
from protocol import messages as m
from protocol.vocabulary import NoticeCode

log = logging.getLogger(__name__)


class ModerationError(Exception):
    """The action could not be done (no such account, too few coins...): nothing changed."""


class Moderator:
    def __init__(self, services: Services) -> None:
        self.services = services

    async def _account(self, name: str) -> Account:
        store = self.services.store
        account = await store.call(store.storage.account_by_name, name)
        if account is None:
            raise ModerationError(f"no account named {name!r}")
        return account

    def _end_connection(self, account: Account, code: NoticeCode, text: str) -> bool:
        conn = self.services.sessions.of_account(account.id)
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
        self._end_connection(
            account, NoticeCode.SIGNED_OUT, "your password was reset: sign in again"
        )
        return f"password of {name} reset; its sessions ended"

    async def mute(self, name: str, on: bool) -> str:
        account = await self._account(name)
        store = self.services.store
        await store.call(store.storage.set_host_muted, account.id, on)
        logs.event("moderation", action="mute" if on else "unmute", account=account.id)
        conn = self.services.sessions.of_account(account.id)
        if conn is not None:
            conn.host_muted = on
            if on:
                conn.send(m.Notice(code=NoticeCode.MUTED, message="the host muted you"))
        return f"{name} {'muted' if on else 'unmuted'}"

    async def kick(self, name: str) -> str:
        account = await self._account(name)
        tables = self.services.tables
        actor = tables.where_seated(account.id)
        conn = self.services.sessions.of_account(account.id)
        if actor is None and conn is not None and conn.table is not None:
            actor = tables.actors.get(conn.table.id)
        if actor is None:
            raise ModerationError(f"{name} is at no table")
        try:
            await actor.call(lambda table: powers.host_kick(table, account.id))
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
        conn = self.services.sessions.of_account(account.id)
        if conn is not None:
            mine = await profile(store, account.id, account.name, account.is_guest)
            conn.send(m.ProfileUpdate(profile=mine))
        return f"{name}: {balance} coins"

    async def announce(self, text: str) -> str:
        text = text.strip()
        if not text or len(text) > 500 or not text.isprintable():
            raise ModerationError("an announcement is 1-500 printable characters")
        self.services.sessions.broadcast(m.Notice(code=NoticeCode.ANNOUNCEMENT, message=text))
        logs.event("moderation", action="announce", length=len(text))
        return f"announced to {len(self.services.sessions.connections)} connections"
