"""The listener, one nursery per connection, the handshake, accounts and lobby requests.

``run_server(config)`` is what ``gbmj-server`` runs; ``Server.serve(listeners)`` is what
tests run on a port of their own. Every request is a dict with a ``type`` and maybe an
``id``; its reply echoes the ``id``. Nothing a client sends can end the server: a bad
message gets an ``error``, and a handler bug is logged and answered with ``internal``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from gbmj_server.cli import ServerConfig
from gbmj_server.net.client import Client
from gbmj_server.net.errors import RequestError
from gbmj_server.net.limits import SlidingWindow
from gbmj_server.net.lobby import PLAYING, Lobby
from gbmj_server.net.settings import TableSettings
from gbmj_server.net.store import AsyncStorage
from gbmj_server.net.wire import FrameDecoder, ProtocolError, encode
from gbmj_server.storage import Account, NameTaken, Storage

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
SERVER_NAME = "gbmj-server/0.1"
HANDSHAKE_TIMEOUT = 30.0
MAX_ERRORS = 50  # protocol errors before a connection is closed as abusive
NAME_RE = re.compile(r"^[\w\-.]{2,20}$")  # letters (any script), digits, _ - .
MIN_PASSWORD, MAX_PASSWORD = 6, 128
MAX_CHAT = 200
SHUTDOWN_FLUSH = 0.5  # seconds to let "server shutting down" reach the clients

Handler = Callable[[Client, dict[str, Any]], Awaitable[dict[str, Any] | None]]


def _field(message: dict[str, Any], name: str, kind: type, *, optional: bool = False) -> Any:
    value = message.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError("wrong_type", f"field {name!r} must be {kind.__name__}")
    return value


def _seat_field(message: dict[str, Any], *, optional: bool = False) -> int | None:
    seat = _field(message, "seat", int, optional=optional)
    if seat is not None and not 0 <= seat <= 3:
        raise RequestError("out_of_range", "field 'seat' must be 0-3")
    return seat


class Server:
    def __init__(self, storage: Storage, *, outbox_size: int | None = None) -> None:
        self.store = AsyncStorage(storage)
        self.lobby = Lobby(self)
        self.clients: set[Client] = set()
        self.outbox_size = outbox_size
        self.failed_by_name = SlidingWindow(limit=5, window=60.0)
        self.failed_by_address = SlidingWindow(limit=20, window=60.0)
        self.chat_rate = SlidingWindow(limit=5, window=10.0)
        self.handlers: dict[str, Handler] = {
            "register": self.on_register,
            "login": self.on_login,
            "guest": self.on_guest,
            "resume": self.on_resume,
            "logout": self.on_logout,
            "list_tables": self.on_list_tables,
            "create_table": self.on_create_table,
            "configure_table": self.on_configure_table,
            "join_table": self.on_join_table,
            "spectate": self.on_spectate,
            "sit": self.on_sit,
            "stand": self.on_stand,
            "ready": self.on_ready,
            "leave": self.on_leave,
            "kick": self.on_kick,
            "add_bot": self.on_add_bot,
            "remove_bot": self.on_remove_bot,
            "chat": self.on_chat,
            "action": self.on_action,
            "auto_play": self.on_auto_play,
        }

    # -- running -------------------------------------------------------------------

    async def serve(
        self,
        listeners: list[trio.SocketListener],
        *,
        task_status: trio._core._run._TaskStatus = trio.TASK_STATUS_IGNORED,  # type: ignore[attr-defined]
    ) -> None:
        """Accept connections until cancelled; table tasks run in the same nursery."""
        async with trio.open_nursery() as nursery:
            self.lobby.nursery = nursery
            await nursery.start(trio.serve_listeners, self.handle_stream, listeners)
            task_status.started()

    async def shutdown_notice(self) -> None:
        """Tell every client the server is going away and give the news a moment."""
        for client in list(self.clients):
            client.send({"type": "notice", "code": "shutdown", "message": "server shutting down"})
        await trio.sleep(SHUTDOWN_FLUSH)

    # -- one connection ------------------------------------------------------------

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        address = "?"
        if isinstance(stream, trio.SocketStream):
            with contextlib.suppress(OSError):
                address = str(stream.socket.getpeername()[0])
        await self.handle_connection(stream, address)

    async def handle_connection(self, stream: trio.abc.Stream, address: str) -> None:
        client = Client(address, *(() if self.outbox_size is None else (self.outbox_size,)))
        self.clients.add(client)
        try:
            with client.cancel_scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, client, stream)
                    await self._reader(client, stream)
                    if not client.closed:  # the peer went away: stop the writer too
                        nursery.cancel_scope.cancel()
        except* (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        except* Exception:
            log.exception("%r: connection handler failed", client)
        finally:
            client.closed = True
            self.clients.discard(client)
            self.lobby.clients.discard(client)
            if client.table is not None:
                client.table.disconnected(client)
            with trio.move_on_after(1) as cleanup:
                cleanup.shield = True
                await stream.aclose()

    async def _writer(self, client: Client, stream: trio.abc.Stream) -> None:
        async for message in client.outbox_receive:
            await stream.send_all(encode(message))
        client.cancel_scope.cancel()  # the outbox was closed: the connection is over

    async def _reader(self, client: Client, stream: trio.abc.Stream) -> None:
        decoder = FrameDecoder()
        greeted = False
        with trio.move_on_after(HANDSHAKE_TIMEOUT) as handshake:
            while not greeted:
                data = await stream.receive_some(65536)
                if not data:
                    return
                for message in self._feed(client, decoder, data):
                    if not greeted:
                        greeted = self._hello(client, message)
                        if not greeted:
                            return
                    else:
                        await self._dispatch(client, message)
        if handshake.cancelled_caught:
            client.send({"type": "error", "code": "not_expected", "message": "no hello"})
            return
        while not client.closed:
            data = await stream.receive_some(65536)
            if not data:
                return
            for message in self._feed(client, decoder, data):
                await self._dispatch(client, message)

    def _feed(self, client: Client, decoder: FrameDecoder, data: bytes) -> list[dict[str, Any]]:
        try:
            items = decoder.feed(data)
        except ProtocolError as exc:
            client.send({"type": "error", "code": exc.code, "message": exc.message})
            client.close("bad frame length", flush=True)
            return []
        messages = []
        for item in items:
            if isinstance(item, ProtocolError):
                self._abuse(client)
                client.send({"type": "error", "code": item.code, "message": item.message})
            else:
                messages.append(item)
        return messages

    def _abuse(self, client: Client) -> None:
        client.errors += 1
        if client.errors >= MAX_ERRORS:
            client.send({"type": "error", "code": "rate_limited", "message": "too many errors"})
            client.close("abusive", flush=True)

    def _hello(self, client: Client, message: dict[str, Any]) -> bool:
        if message.get("type") != "hello":
            client.send({"type": "error", "code": "not_expected", "message": "say hello first"})
            client.close("no hello", flush=True)
            return False
        if message.get("version") != PROTOCOL_VERSION:
            client.send(
                {
                    "type": "error",
                    "code": "unsupported_version",
                    "message": f"this server speaks version {PROTOCOL_VERSION}",
                }
            )
            client.close("unsupported version", flush=True)
            return False
        client.send({"type": "welcome", "version": PROTOCOL_VERSION, "server": SERVER_NAME})
        return True

    async def _dispatch(self, client: Client, message: dict[str, Any]) -> None:
        kind = message["type"]
        request_id = message.get("id")
        handler = self.handlers.get(kind)
        try:
            if handler is None:
                self._abuse(client)
                raise RequestError("unknown_type", f"unknown message type {kind!r}")
            if client.account is None and kind not in ("register", "login", "guest", "resume"):
                raise RequestError("not_logged_in", "log in first")
            reply = await handler(client, message)
        except RequestError as exc:
            reply = {"type": "error", "code": exc.code, "message": exc.message}
        except Exception:
            log.exception("%r: handler for %r failed", client, kind)
            reply = {"type": "error", "code": "internal", "message": "internal server error"}
        if reply is not None:
            if request_id is not None:
                reply["id"] = request_id
            client.send(reply)

    # -- accounts ------------------------------------------------------------------

    def _signed_in(
        self, client: Client, account: Account, token: str, request_id: Any
    ) -> dict[str, Any] | None:
        # One live connection per account: a second sign-in replaces the first.
        for other in list(self.clients):
            if other is not client and other.account and other.account.id == account.id:
                other.send({"type": "notice", "code": "replaced", "message": "signed in elsewhere"})
                other.close("replaced", flush=True)
                if other.table is not None:
                    other.table.disconnected(other)
                    other.table = None
        client.account = account
        client.token = token
        self.lobby.clients.add(client)
        reply = {
            "type": "session",
            "token": token,
            "name": account.name,
            "guest": account.is_guest,
        }
        table = self.lobby.table_of_account(account.id)
        if table is not None and table.status == PLAYING:
            # Back into the running match: the session reply first, then the snapshot
            # and the pending prompt.
            reply["table_id"] = table.id
            if request_id is not None:
                reply["id"] = request_id
            client.send(reply)
            table.reattach(client)
            return None
        return reply

    def _require_signed_out(self, client: Client) -> None:
        if client.account is not None:
            raise RequestError("not_expected", "already signed in: log out first")

    async def on_register(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        name = _field(message, "name", str)
        password = _field(message, "password", str)
        if not NAME_RE.match(name) or name.lower().startswith("guest"):
            raise RequestError("out_of_range", "name: 2-20 letters, digits, _ - . (not guest…)")
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise RequestError(
                "out_of_range", f"password: {MIN_PASSWORD}-{MAX_PASSWORD} characters"
            )
        password_hash = await self.store.hash_password(password)
        try:
            account = await self.store.call(self.store.storage.create_account, name, password_hash)
        except NameTaken:
            raise RequestError("name_taken", f"the name {name!r} is taken") from None
        token = await self.store.call(self.store.storage.create_session, account.id)
        return self._signed_in(client, account, token, message.get("id"))

    async def on_login(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        name = _field(message, "name", str)
        password = _field(message, "password", str)
        key = name.lower()
        if self.failed_by_name.blocked(key) or self.failed_by_address.blocked(client.address):
            raise RequestError("rate_limited", "too many failed logins: wait a minute")
        account = await self.store.call(self.store.storage.account_by_name, name)
        ok = (
            account is not None
            and account.password_hash is not None
            and len(password) <= MAX_PASSWORD
            and await self.store.verify_password(account.password_hash, password)
        )
        if not ok:
            self.failed_by_name.record(key)
            self.failed_by_address.record(client.address)
            raise RequestError("bad_credentials", "wrong name or password")
        assert account is not None
        if account.banned:
            raise RequestError("banned", "this account is banned")
        self.failed_by_name.clear(key)
        await self.store.call(self.store.storage.note_login, account.id)
        token = await self.store.call(self.store.storage.create_session, account.id)
        return self._signed_in(client, account, token, message.get("id"))

    async def on_guest(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        while True:
            name = f"guest-{secrets.token_hex(3)}"
            try:
                account = await self.store.call(self.store.storage.create_guest, name)
                break
            except NameTaken:
                continue
        token = await self.store.call(self.store.storage.create_session, account.id)
        return self._signed_in(client, account, token, message.get("id"))

    async def on_resume(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        token = _field(message, "token", str)
        if self.failed_by_address.blocked(client.address):
            raise RequestError("rate_limited", "too many failed attempts: wait a minute")
        account = await self.store.call(self.store.storage.resolve_session, token[:200])
        if account is None or account.banned:
            self.failed_by_address.record(client.address)
            raise RequestError("bad_token", "unknown or expired session")
        return self._signed_in(client, account, token, message.get("id"))

    async def on_logout(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        if client.table is not None:
            client.table.leave(client)
        if client.token is not None:
            await self.store.call(self.store.storage.delete_session, client.token)
        self.lobby.clients.discard(client)
        client.account = None
        client.token = None
        return {"type": "ok"}

    # -- lobby ---------------------------------------------------------------------

    async def on_list_tables(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return self.lobby.table_list()

    def _require_no_table(self, client: Client) -> None:
        if client.table is not None:
            raise RequestError("not_expected", "leave your table first")

    def _table(self, client: Client):
        if client.table is None:
            raise RequestError("not_seated", "you are not at a table")
        return client.table

    async def on_create_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._require_no_table(client)
        settings = TableSettings().updated(message.get("settings", {}))
        table = self.lobby.create(client, settings)
        seat = table.sit(client, 0)
        return {"type": "ok", "table_id": table.id, "seat": seat}

    async def on_configure_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._table(client).configure(client, message.get("settings"))
        return {"type": "ok"}

    async def on_join_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._require_no_table(client)
        table = self.lobby.get(message.get("table_id"))
        table.check_password(client, message.get("password"))
        seat = table.sit(client, _seat_field(message, optional=True))
        return {"type": "ok", "table_id": table.id, "seat": seat}

    async def on_spectate(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._require_no_table(client)
        table = self.lobby.get(message.get("table_id"))
        table.watch(client)
        return {"type": "ok", "table_id": table.id}

    async def on_sit(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._table(client)
        if table.seat_index(client) is None:
            table.check_password(client, message.get("password"))
        seat = table.sit(client, _seat_field(message, optional=True))
        return {"type": "ok", "seat": seat}

    async def on_stand(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._table(client).stand(client)
        return {"type": "ok"}

    async def on_ready(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        ready = message.get("ready", True)
        if not isinstance(ready, bool):
            raise RequestError("wrong_type", "field 'ready' must be true or false")
        self._table(client).set_ready(client, ready)
        return {"type": "ok"}

    async def on_leave(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._table(client).leave(client)
        return {"type": "ok"}

    async def on_kick(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._table(client).kick(client, _seat_field(message))  # type: ignore[arg-type]
        return {"type": "ok"}

    async def on_add_bot(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        level = message.get("level", "simple")
        if not isinstance(level, str):
            raise RequestError("wrong_type", "field 'level' must be text")
        self._table(client).add_bot(client, _seat_field(message), level)  # type: ignore[arg-type]
        return {"type": "ok"}

    async def on_remove_bot(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._table(client).remove_bot(client, _seat_field(message))  # type: ignore[arg-type]
        return {"type": "ok"}

    async def on_chat(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        channel = message.get("channel", "lobby")
        text = _field(message, "text", str).strip()
        if channel not in ("lobby", "table"):
            raise RequestError("out_of_range", "field 'channel' must be lobby or table")
        if not text or len(text) > MAX_CHAT or any(not c.isprintable() for c in text):
            raise RequestError("out_of_range", f"chat text: 1-{MAX_CHAT} printable characters")
        if not self.chat_rate.allow(client.account.id):  # type: ignore[union-attr]
            raise RequestError("rate_limited", "you are chatting too fast")
        line = {"type": "chat", "channel": channel, "from": client.name, "text": text}
        if channel == "lobby":
            self.lobby.broadcast(line)
        else:
            table = self._table(client)
            line["table_id"] = table.id
            table.broadcast(line)
        return {"type": "ok"}

    # -- the game ------------------------------------------------------------------

    async def on_action(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        table = self._table(client)
        if table.game is None:
            raise RequestError("not_expected", "no match is running")
        return table.game.submit(client, message)

    async def on_auto_play(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._table(client)
        on = message.get("on")
        if not isinstance(on, bool):
            raise RequestError("wrong_type", "field 'on' must be true or false")
        index = table.seat_index(client)
        if index is None:
            raise RequestError("not_seated", "spectators have no auto-play")
        table.seats[index].auto_play = on  # type: ignore[union-attr]
        table.changed()
        if table.game is not None:
            table.game.humans_changed()
        return {"type": "ok"}


async def run_server(config: ServerConfig) -> None:
    """Open the database, listen, print where, and serve until SIGINT or SIGTERM."""
    storage = Storage(config.db_path)
    try:
        server = Server(storage)
        listeners = await trio.open_tcp_listeners(config.port, host=config.host)
        port = listeners[0].socket.getsockname()[1]
        print(f"listening on {config.host}:{port}", flush=True)
        print(f"database: {config.db_path}", flush=True)
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                await nursery.start(server.serve, listeners)
                async for signum in signals:
                    log.info("signal %s: shutting down", signum)
                    break
                await server.shutdown_notice()
                nursery.cancel_scope.cancel()
    finally:
        storage.close()
    print("server stopped", file=sys.stderr, flush=True)
