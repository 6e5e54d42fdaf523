"""The listener, one nursery per connection, the handshake, accounts and lobby requests.

``run_server(config)`` is what ``gbmj-server`` runs; ``Server.serve(listeners)`` is what
tests run on a port of their own. Every request is a dict with a ``type`` and maybe an
``id``; its reply echoes the ``id``. Nothing a client sends can end the server: a bad
message gets an ``error``, and a handler bug is logged and answered with ``internal``.
"""

from __future__ import annotations

import contextlib
import logging
import random
import re
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from gbmj.economy.items import TABLE_SIGN_PROTECTION, shop_prices
from gbmj.economy.levels import THRESHOLDS, level_of
from gbmj.economy.stakes import min_coins
from gbmj_server.config import ServerConfig
from gbmj_server.net.client import Client
from gbmj_server.net.errors import RequestError
from gbmj_server.net.limits import SlidingWindow
from gbmj_server.net.lobby import PLAYING, Lobby, Seat, Table
from gbmj_server.net.settings import TableSettings
from gbmj_server.net.store import AsyncStorage
from gbmj_server.net.wire import ProtocolError, WireDecoder
from gbmj_server.ssh.handlers import ssh_key_handlers
from gbmj_server.storage import Account, LedgerError, NameTaken, Storage
from protocol.messages import INVENTORY_SLOTS

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
SERVER_NAME = "gbmj-server/0.1"
HANDSHAKE_TIMEOUT = 30.0
MAX_ERRORS = 50  # protocol errors before a connection is closed as abusive
NAME_RE = re.compile(r"^[\w\-.]{2,20}$")  # letters (any script), digits, _ - .
MIN_PASSWORD, MAX_PASSWORD = 6, 128
MAX_CHAT = 200  # characters of a chat line (the protocol allows 500)
# Messages the protocol knows that this server does not serve (none at present).
NOT_YET: frozenset[str] = frozenset()
LEADERBOARD_DEFAULT = 20
WRITE_BATCH = 256  # frames joined into one write at most
SHUTDOWN_FLUSH = 0.5  # seconds to let "server shutting down" reach the clients

Handler = Callable[[Client, dict[str, Any]], Awaitable[dict[str, Any] | None]]


class Server:
    def __init__(
        self,
        storage: Storage,
        *,
        outbox_size: int | None = None,
        bot_delay: float = 0.0,
        abandon_grace: float = 60.0,
        hand_pause: float = 0.0,
        match_seed: bytes | None = None,
        prices: dict[str, int] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.store = AsyncStorage(storage)
        self.prices = shop_prices(prices)  # the shop: item -> coins
        self.rng = rng or random.SystemRandom()  # item drops (tests pass a seeded one)
        self.lobby = Lobby(self)
        self.clients: set[Client] = set()
        self.outbox_size = outbox_size
        self.bot_delay = bot_delay  # seconds a bot "thinks" (0 in tests and benches)
        self.abandon_grace = abandon_grace  # wait for a reconnect when no human is left
        self.hand_pause = hand_pause  # seconds between hands, to read the result
        self.match_seed = match_seed  # None: a fresh random seed per match (tests fix it)
        self.failed_by_name = SlidingWindow(limit=5, window=60.0)
        self.failed_by_address = SlidingWindow(limit=20, window=60.0)
        self.chat_rate = SlidingWindow(limit=5, window=10.0)
        # Called after each settled hand: ``await hook(game, state, hand_id)``. Coins,
        # ratings and item drops are settled before, in the hand's own transaction.
        self.settlement_hooks: list[Callable[..., Awaitable[None]]] = []
        self.handlers: dict[str, Handler] = {
            "ping": self.on_ping,
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
            "leave_table": self.on_leave_table,
            "kick": self.on_kick,
            "add_bot": self.on_add_bot,
            "remove_bot": self.on_remove_bot,
            "chat_send": self.on_chat_send,
            "action": self.on_action,
            "auto_play": self.on_auto_play,
            "get_levels": self.on_get_levels,
            "get_leaderboard": self.on_get_leaderboard,
            "get_inventory": self.on_get_inventory,
            "get_shop": self.on_get_shop,
            "buy": self.on_buy,
            "arm_timer_extension": self.on_arm_timer_extension,
            "use_tile_counter": self.on_use_tile_counter,
        }
        self.handlers.update(ssh_key_handlers(self))  # the player's SSH keys

    # -- running -------------------------------------------------------------------

    async def serve(
        self,
        listeners: list[trio.SocketListener],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Accept connections until cancelled; table tasks run in the same nursery."""
        async with trio.open_nursery() as nursery:
            self.lobby.nursery = nursery
            await nursery.start(trio.serve_listeners, self.handle_stream, listeners)
            task_status.started()

    async def shutdown_notice(self) -> None:
        """Tell every client the server is going away and give the news a moment."""
        for client in list(self.clients):
            client.send(notice("shutdown", "the server is shutting down"))
        await trio.sleep(SHUTDOWN_FLUSH)

    # -- one connection ------------------------------------------------------------

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        address = "?"
        if isinstance(stream, trio.SocketStream):
            with contextlib.suppress(OSError):
                address = str(stream.socket.getpeername()[0])
        await self.handle_connection(stream, address)

    async def handle_connection(self, stream: trio.abc.Stream, address: str) -> None:
        """Serve one client on ``stream`` (a socket, or a memory stream in tests)."""
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
                client.table = None
            with trio.move_on_after(1) as cleanup:
                cleanup.shield = True
                await stream.aclose()

    async def _writer(self, client: Client, stream: trio.abc.Stream) -> None:
        outbox = client.outbox_receive
        async for frame in outbox:
            # Take everything queued in one write: a busy table fills the outbox faster
            # than one frame per scheduling round.
            frames = [frame]
            with contextlib.suppress(trio.WouldBlock, trio.EndOfChannel):
                while len(frames) < WRITE_BATCH:
                    frames.append(outbox.receive_nowait())
            await stream.send_all(b"".join(frames))
        client.cancel_scope.cancel()  # the outbox was closed: the connection is over

    async def _reader(self, client: Client, stream: trio.abc.Stream) -> None:
        decoder = WireDecoder()
        greeted = False
        with trio.move_on_after(HANDSHAKE_TIMEOUT) as handshake:
            while not greeted and not client.closed:
                data = await stream.receive_some(65536)
                if not data:
                    return
                for message in self._feed(client, decoder, data):
                    if client.closed:
                        return
                    if not greeted:
                        greeted = self._hello(client, message)
                    else:
                        await self._dispatch(client, message)
        if handshake.cancelled_caught:
            client.send(error("not_expected", "no hello within the time allowed"))
            client.close("no hello", flush=True)
            return
        while not client.closed:
            data = await stream.receive_some(65536)
            if not data:
                return
            for message in self._feed(client, decoder, data):
                if client.closed:
                    return
                await self._dispatch(client, message)

    def _feed(self, client: Client, decoder: WireDecoder, data: bytes) -> list[dict[str, Any]]:
        messages = []
        for item in decoder.feed(data):
            if isinstance(item, ProtocolError):
                client.send(error(item.code, str(item)))
                self._abuse(client)
            else:
                messages.append(item)
        return messages

    def _abuse(self, client: Client) -> None:
        client.errors += 1
        if client.errors >= MAX_ERRORS:
            client.send(error("rate_limited", "too many bad messages: goodbye"))
            client.close("abusive", flush=True)

    def _hello(self, client: Client, message: dict[str, Any]) -> bool:
        if message["type"] != "hello":
            client.send(error("not_expected", "say hello first", message.get("id")))
            client.close("no hello", flush=True)
            return False
        if message["version"] != PROTOCOL_VERSION:
            client.send(
                error(
                    "unsupported_version",
                    f"this server speaks protocol version {PROTOCOL_VERSION}",
                    message.get("id"),
                )
            )
            client.close("unsupported version", flush=True)
            return False
        client.send(
            {
                "type": "welcome",
                "id": message.get("id"),
                "version": PROTOCOL_VERSION,
                "server": SERVER_NAME,
            }
        )
        return True

    async def _dispatch(self, client: Client, message: dict[str, Any]) -> None:
        kind = message["type"]
        request_id = message.get("id")
        handler = self.handlers.get(kind)
        try:
            if handler is None:
                if kind in NOT_YET:
                    raise RequestError("not_expected", f"{kind} is not served yet")
                self._abuse(client)
                raise RequestError("not_expected", f"a client does not send {kind!r}")
            if client.account is None and kind not in SIGNED_OUT_OK:
                raise RequestError("not_logged_in", "log in first")
            reply = await handler(client, message)
        except RequestError as exc:
            reply = error(exc.code, exc.message)
        except Exception:
            log.exception("%r: handler for %r failed", client, kind)
            reply = error("internal", "internal server error; the request had no effect")
        if reply is not None:
            reply["id"] = request_id
            client.send(reply)

    # -- accounts ------------------------------------------------------------------

    async def on_ping(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "pong"}

    async def profile(self, account: Account) -> dict[str, Any]:
        """The account as its owner sees it: coins (0 for a guest), rating, level."""
        storage = self.store.storage
        coins, rating = await self.store.call(
            lambda: (storage.balance(account.id), storage.rating(account.id))
        )
        return {
            "name": account.name,
            "guest": account.is_guest,
            "coins": coins or 0,
            "rating": rating,
            "level": level_of(rating),
        }

    async def send_profile(self, seat: Seat) -> None:
        """A player's coins or rating changed: a ``profile`` update, and the level shown
        beside the name follows."""
        client = seat.client
        if seat.wallet is None or client is None or client.account is None:
            return
        profile = await self.profile(client.account)
        seat.level = profile["level"]
        client.send({"type": "profile", "profile": profile})

    async def _signed_in(
        self, client: Client, account: Account, token: str, request_id: Any
    ) -> dict[str, Any] | None:
        # One live connection per account: a new sign-in replaces the old connection.
        for other in list(self.clients):
            if other is not client and other.account and other.account.id == account.id:
                other.send(notice("replaced", "you signed in elsewhere"))
                if other.table is not None:
                    other.table.disconnected(other)
                    other.table = None
                other.close("replaced", flush=True)
        client.account = account
        client.token = token
        self.lobby.clients.add(client)
        reply = {
            "type": "session",
            "id": request_id,
            "token": token,
            "profile": await self.profile(account),
        }
        table = self.lobby.table_of_account(account.id)
        if table is not None and table.status == PLAYING:
            # Back into the running match: the session, then the snapshot and prompt.
            client.send(reply)
            table.reattach(client)
            return None
        return reply

    def _require_signed_out(self, client: Client) -> None:
        if client.account is not None:
            raise RequestError("not_expected", "already signed in: log out first")

    async def on_register(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        name, password = message["name"], message["password"]
        if not NAME_RE.match(name) or name.lower().startswith(("guest", "bot")):
            raise RequestError(
                "out_of_range", "name: 2-20 letters, digits, _ - . (not guest… or bot…)"
            )
        if len(password) < MIN_PASSWORD:
            raise RequestError("out_of_range", f"password: at least {MIN_PASSWORD} characters")
        password_hash = await self.store.hash_password(password)
        try:
            account = await self.store.call(self.store.storage.create_account, name, password_hash)
        except NameTaken:
            raise RequestError("name_taken", f"the name {name!r} is taken") from None
        token = await self.store.call(self.store.storage.create_session, account.id)
        return await self._signed_in(client, account, token, message.get("id"))

    async def on_login(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        name, password = message["name"], message["password"]
        key = name.lower()
        if self.failed_by_name.blocked(key) or self.failed_by_address.blocked(client.address):
            raise RequestError("rate_limited", "too many failed logins: wait a minute")
        account = await self.store.call(self.store.storage.account_by_name, name)
        ok = (
            account is not None
            and account.password_hash is not None
            and await self.store.verify_password(account.password_hash, password)
        )
        if not ok:
            self.failed_by_name.record(key)
            self.failed_by_address.record(client.address)
            raise RequestError("bad_credentials", "wrong name or password")
        assert account is not None
        if account.banned:
            raise RequestError("bad_credentials", "this account is banned")
        self.failed_by_name.clear(key)
        await self.store.call(self.store.storage.note_login, account.id)
        token = await self.store.call(self.store.storage.create_session, account.id)
        return await self._signed_in(client, account, token, message.get("id"))

    async def on_guest(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        while True:  # a random name; the requested one is ignored (guests are throwaway)
            name = f"guest-{secrets.token_hex(3)}"
            try:
                account = await self.store.call(self.store.storage.create_guest, name)
                break
            except NameTaken:
                continue
        token = await self.store.call(self.store.storage.create_session, account.id)
        return await self._signed_in(client, account, token, message.get("id"))

    async def on_resume(self, client: Client, message: dict[str, Any]) -> dict[str, Any] | None:
        self._require_signed_out(client)
        if self.failed_by_address.blocked(client.address):
            raise RequestError("rate_limited", "too many failed attempts: wait a minute")
        account = await self.store.call(self.store.storage.resolve_session, message["token"])
        if account is None or account.banned:
            self.failed_by_address.record(client.address)
            raise RequestError("bad_token", "unknown or expired session")
        return await self._signed_in(client, account, message["token"], message.get("id"))

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
        return self.lobby.table_list(message.get("offset") or 0)

    def _free(self, client: Client) -> None:
        if client.table is not None:
            raise RequestError("not_expected", f"leave table {client.table.id} first")

    def _at(self, client: Client, message: dict[str, Any]) -> Table:
        table = client.table
        if table is None or table.id != message["table_id"]:
            raise RequestError("not_seated", f"you are not at table {message['table_id']}")
        return table

    async def on_create_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._free(client)
        settings = TableSettings.from_wire(message["settings"], message.get("password"))
        table = self.lobby.create(client, settings)
        table.enter(client)
        return table.snapshot(client)

    async def on_configure_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        """New settings; a new name costs a table sign and is protected for an hour."""
        settings = TableSettings.from_wire(message["settings"], message.get("password"))
        table = self._at(client, message)
        renaming = table.check_rename(client, settings, trio.current_time())
        for seat in table.humans():  # a higher stake: everyone seated must cover it
            if seat.client is not None and seat.client.account is not None:
                await self._check_stake(seat.client.account, settings.stake, seat.name)
        protect_until = None
        if renaming:
            if client.account.is_guest:  # type: ignore[union-attr]
                raise RequestError("no_such_item", "renaming a table takes a table sign")
            await self._use_item(client, "table_sign")
            protect_until = trio.current_time() + TABLE_SIGN_PROTECTION
        table.configure(client, settings, protect_until)
        return {"type": "ok"}

    async def _use_item(self, client: Client, item: str) -> None:
        """Use one of the client's items (``no_such_item`` if none), then a profile."""
        try:
            await self.store.call(self.store.storage.use_item, client.account.id, item)  # type: ignore[union-attr]
        except LedgerError as exc:
            raise RequestError(exc.code, str(exc)) from None

    async def on_join_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return self._enter(client, message)

    async def on_spectate(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return self._enter(client, message)

    def _enter(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._free(client)
        table = self.lobby.get(message["table_id"])
        table.check_password(message.get("password"))
        table.enter(client)
        return table.snapshot(client)

    async def on_sit(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._at(client, message)
        account = client.account
        assert account is not None
        profile = await self.profile(account)
        await self._check_stake(account, table.settings.stake)
        table.sit(client, message["seat"], profile["level"])
        if table.game is not None:  # an empty seat of a waiting match: recorded
            table.game.seat_taken(message["seat"])
        return {"type": "ok"}

    async def _check_stake(self, account: Account, stake: int, who: str = "you") -> None:
        """A stake table needs ``100 × stake`` coins; guests play only free tables."""
        if not stake:
            return
        if account.is_guest:
            raise RequestError("guest_not_allowed", "guests play only free tables")
        coins = await self.store.call(self.store.storage.balance, account.id)
        if (coins or 0) < min_coins(stake):
            raise RequestError(
                "not_enough_coins",
                f"{who} need {min_coins(stake)} coins for a stake of {stake}; have {coins}",
            )

    async def on_stand(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._at(client, message).stand(client)
        return {"type": "ok"}

    async def on_ready(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._at(client, message)
        if message["ready"]:  # coins may have gone (the shop, another table) since sitting
            await self._check_stake(client.account, table.settings.stake)  # type: ignore[arg-type]
        table.set_ready(client, message["ready"])
        return {"type": "ok"}

    async def on_leave_table(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._at(client, message).leave(client)
        return {"type": "ok"}

    async def on_kick(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._at(client, message).kick(client, message["seat"])
        return {"type": "ok"}

    async def on_add_bot(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._at(client, message).add_bot(client, message["seat"], message["level"])
        return {"type": "ok"}

    async def on_remove_bot(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        self._at(client, message).remove_bot(client, message["seat"])
        return {"type": "ok"}

    async def on_chat_send(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        text = message["text"].strip()
        if not text or len(text) > MAX_CHAT or not text.isprintable():
            raise RequestError("out_of_range", f"text: 1-{MAX_CHAT} printable characters")
        table = self._at(client, message) if message["channel"] == "table" else None
        if not self.chat_rate.allow(client.account.id):  # type: ignore[union-attr]
            raise RequestError("rate_limited", "you are chatting too fast")
        line = {
            "type": "chat",
            "channel": message["channel"],
            "table_id": None if table is None else table.id,
            "sender": client.name,
            "text": text,
        }
        if table is None:
            self.lobby.broadcast(line)
        else:
            table.broadcast(line)
        return {"type": "ok"}

    # -- the game ------------------------------------------------------------------

    async def on_action(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._at(client, message)
        if table.game is None:
            raise RequestError("not_expected", "no match is running")
        table.game.submit(client, message)
        return {"type": "ok"}

    async def on_auto_play(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._at(client, message)
        index = table.require_seat(client)
        table.seats[index].auto_play = message["on"]  # type: ignore[union-attr]
        if table.game is not None:
            table.game.humans_changed()
        return {"type": "ok"}

    # -- levels, shop and items ------------------------------------------------------

    async def on_get_levels(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "levels", "thresholds": list(THRESHOLDS)}

    async def on_get_leaderboard(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        limit = message.get("limit") or LEADERBOARD_DEFAULT
        rows = await self.store.call(self.store.storage.leaderboard, limit)
        return {
            "type": "leaderboard",
            "entries": [
                {"rank": i + 1, "name": r.name, "level": level_of(r.rating), "rating": r.rating}
                for i, r in enumerate(rows)
            ],
        }

    async def _inventory(self, account: Account) -> dict[str, Any]:
        storage = self.store.storage
        slots = [] if account.is_guest else await self.store.call(storage.inventory, account.id)
        return {
            "type": "inventory",
            "slots": [{"item": s.item, "count": s.count} for s in slots],
            "capacity": 0 if account.is_guest else INVENTORY_SLOTS,
        }

    async def on_get_inventory(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        return await self._inventory(client.account)  # type: ignore[arg-type]

    async def on_get_shop(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        offers = [{"item": item, "price": price} for item, price in self.prices.items()]
        return {"type": "shop", "offers": offers}

    async def on_buy(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        account = client.account
        assert account is not None
        if account.is_guest:
            raise RequestError("guest_not_allowed", "guests hold no coins: register to buy")
        price = self.prices.get(message["item"])
        if price is None:
            raise RequestError("no_such_item", f"the shop does not sell {message['item']}")
        try:
            await self.store.call(
                self.store.storage.buy, account.id, message["item"], message["count"], price
            )
        except LedgerError as exc:
            raise RequestError(exc.code, str(exc)) from None
        client.send({"type": "profile", "profile": await self.profile(account)})
        return await self._inventory(account)

    def _seat(self, client: Client, message: dict[str, Any]) -> Seat:
        table = self._at(client, message)
        seat = table.seats[table.require_seat(client)]
        assert seat is not None
        return seat

    async def on_arm_timer_extension(
        self, client: Client, message: dict[str, Any]
    ) -> dict[str, Any]:
        """Arm (or disarm) a timer extension: it fires when this player's own discard
        turn times out (``TableGame._extend``)."""
        seat = self._seat(client, message)
        if not message["armed"]:
            seat.items.pop("timer_extension", None)
            return {"type": "ok"}
        if seat.items.get("timer_extension"):
            raise RequestError("already_armed", "a timer extension is already armed")
        held = 0
        if seat.wallet is not None:
            held = await self.store.call(
                self.store.storage.item_count, seat.wallet, "timer_extension"
            )
        if not held:
            raise RequestError("no_such_item", "you have no timer extension")
        seat.items["timer_extension"] = True
        return {"type": "ok"}

    async def on_use_tile_counter(self, client: Client, message: dict[str, Any]) -> dict[str, Any]:
        table = self._at(client, message)
        game = table.game
        if game is None:
            raise RequestError("not_expected", "no match is running")
        if client.account.is_guest:  # type: ignore[union-attr]
            raise RequestError("no_such_item", "you have no tile counter")
        seat = game.use_tile_counter(client)
        state = game.state
        try:
            await self._use_item(client, "tile_counter")
        except RequestError:
            seat.items.pop("tile_counter", None)
            raise
        if game.state is not state or state is None or state.ended:
            # The hand ended while the item was taken: give it back.
            seat.items.pop("tile_counter", None)
            storage = self.store.storage
            await self.store.call(storage.give_item, client.account.id, "tile_counter")  # type: ignore[union-attr]
            raise RequestError("not_expected", "the hand is over")
        return game.start_tile_counter(client)


SIGNED_OUT_OK = frozenset({"ping", "register", "login", "guest", "resume"})


def error(code: str, text: str, request_id: Any = None) -> dict[str, Any]:
    return {"type": "error", "id": request_id, "code": str(code), "message": text[:500]}


def notice(code: str, text: str) -> dict[str, Any]:
    """A word from the server itself: ``shutdown`` or ``replaced``."""
    return {"type": "notice", "code": code, "message": text}


async def run_server(config: ServerConfig) -> None:
    """Open the database, listen, print where, and serve until SIGINT or SIGTERM.

    On a signal: clients are told, running hands are abandoned unsettled (a database
    write in progress finishes first: worker threads are not abandoned), the file closed.
    """
    storage = Storage(config.db_path)
    try:
        server = Server(
            storage,
            bot_delay=config.bot_delay,
            hand_pause=config.hand_pause,
            prices=dict(config.shop),
        )
        # The signal handlers go in before the address is printed: whoever reads the
        # address may signal at once.
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            listeners = await trio.open_tcp_listeners(config.port, host=config.host)
            port = listeners[0].socket.getsockname()[1]
            print(f"listening on {config.host}:{port}", flush=True)
            print(f"database: {config.db_path}", flush=True)
            async with trio.open_nursery() as nursery:
                await nursery.start(server.serve, listeners)
                if config.ssh.port is not None:  # play over SSH (gbmj_server.ssh)
                    from gbmj_server.ssh.service import serve_ssh

                    await nursery.start(serve_ssh, config.ssh, config.host, port, config.db_path)
                if config.web.port is not None:  # play in a browser (gbmj_server.web)
                    from gbmj_server.web.service import serve_web

                    await nursery.start(serve_web, config.web, config.host, port)
                async for signum in signals:
                    log.info("signal %s: shutting down", signum)
                    break
                await server.shutdown_notice()
                nursery.cancel_scope.cancel()
    finally:
        storage.close()
    print("server stopped", file=sys.stderr, flush=True)
