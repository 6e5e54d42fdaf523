"""The lobby and its chat across nodes, with PostgreSQL's LISTEN/NOTIFY.

Each node writes its tables' lobby entries into their lease rows (``share_infos``) and,
after that commit, NOTIFYs ``gbmj_lobby`` with its name: a hint, no more. A node that
hears it (or whose periodic look comes round: a hint may be lost while a connection is
down) reads the other nodes' entries from the database, the truth, into its lobby. A
lobby chat line goes to the other nodes as the payload of a ``gbmj_chat`` NOTIFY (a line
is at most 200 characters, far under the 8,000 bytes a payload may hold); so do the
host's announcements, bans and kicks on ``gbmj_host``.

The listening connection is psycopg's, of its own, waited on in trio: the task sleeps
until its socket is readable (``trio.lowlevel.wait_readable``), then takes what arrived
from libpq without blocking. Sending goes through the store, outside any transaction.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import psycopg
import trio

from gbmj_server.net.lobby import Lobby
from gbmj_server.nodes.leases import LOBBY_CHANNEL
from gbmj_server.storage.threads import AsyncStorage
from protocol import messages as m

log = logging.getLogger(__name__)

CHAT_CHANNEL = "gbmj_chat"  # payload: {"node", "sender", "line"} (a lobby chat line)
HOST_CHANNEL = "gbmj_host"  # payload: {"node", "do", ...} (an announcement, a ban, a kick)
CHANNELS = (LOBBY_CHANNEL, CHAT_CHANNEL, HOST_CHANNEL)
PAYLOAD_MAX = 7900  # bytes: PostgreSQL refuses payloads of 8,000 or more
SHARE_AFTER = 0.05  # seconds a burst of changes gathers before it is written
LOOK_EVERY = 2.0  # seconds between two reads of the other nodes' tables without a hint
LOOK_AFTER = 0.05  # seconds a hint waits for the others of its burst
RECONNECT_AFTER = 1.0  # seconds before the listening connection is opened again
SEEN_WITHIN = 60.0  # seconds: a node not seen for longer counts no players
OUTBOX = 256  # notifications waiting to go out; more are dropped (they are hints)

HostAction = Callable[[dict[str, Any]], Awaitable[None]]


class Listener:
    def __init__(self, url: str, store: AsyncStorage, node: str, lobby: Lobby) -> None:
        self.url = url
        self.store = store
        self.node = node
        self.lobby = lobby
        self.on_host: HostAction | None = None  # the host's action from another node
        self.listening = trio.Event()  # set once the first LISTEN is in place
        self._dirty: set[int] = set()
        self._changed = trio.Event()
        self._hint = trio.Event()
        self._shared: dict[int, bytes] = {}  # what was last read of the other nodes
        self._send, self._outbox = trio.open_memory_channel[tuple[str, str]](OUTBOX)
        self._nursery: trio.Nursery | None = None
        lobby.on_change = self._table_changed
        lobby.on_chat = self._chat_said

    # -- what goes out -----------------------------------------------------------------
    def _table_changed(self, table_id: int) -> None:
        self._dirty.add(table_id)
        self._changed.set()

    def _chat_said(self, line: m.Chat, sender_id: int) -> None:
        payload = {"node": self.node, "sender": sender_id, "line": line.to_wire()}
        self._notify(CHAT_CHANNEL, payload)

    def host_action(self, action: dict[str, Any]) -> None:
        """An announcement, a ban or a kick done on this node, for the other nodes."""
        self._notify(HOST_CHANNEL, {"node": self.node, **action})

    def _notify(self, channel: str, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        if len(text.encode()) > PAYLOAD_MAX:
            log.warning("%s: a notification of %d bytes not sent", channel, len(text.encode()))
            return
        try:
            self._send.send_nowait((channel, text))
        except trio.WouldBlock:
            log.warning("%s: the outbox is full, a notification dropped", channel)

    async def _sender(self) -> None:
        storage = self.store.storage
        async for channel, text in self._outbox:
            try:
                await self.store.call(storage.notify, channel, text)
            except Exception:
                log.warning("%s: a notification not sent", channel, exc_info=True)

    async def _sharer(self) -> None:
        """This node's changed lobby entries into the database, then the hint."""
        storage = self.store.storage
        while True:
            await self._changed.wait()
            await trio.sleep(SHARE_AFTER)  # a burst of changes, written once
            self._changed = trio.Event()
            dirty, self._dirty = self._dirty, set()
            infos = {}
            for table_id in dirty:
                info = self.lobby.info(table_id)
                if info is not None and table_id not in self.lobby.remote:
                    infos[table_id] = msgpack.packb(info.to_wire())
            try:
                if infos:
                    await self.store.call(storage.share_infos, self.node, infos)
                await self.store.call(storage.notify, LOBBY_CHANNEL, self.node)
            except Exception:
                log.warning("the lobby entries not shared", exc_info=True)
                self._dirty |= dirty
                await trio.sleep(RECONNECT_AFTER)
                self._changed.set()

    # -- what comes in -----------------------------------------------------------------
    async def _looker(self) -> None:
        """The other nodes' tables into the lobby, on each hint (and now and then)."""
        storage = self.store.storage
        while True:
            with trio.move_on_after(LOOK_EVERY):
                await self._hint.wait()
            await trio.sleep(LOOK_AFTER)  # the hints of a burst, read once
            self._hint = trio.Event()
            try:
                shared = await self.store.call(storage.shared_infos, self.node)
                self.lobby.remote_players = await self.store.call(
                    storage.players_elsewhere, self.node, time.time() - SEEN_WITHIN
                )
            except Exception:
                log.warning("the other nodes' tables not read", exc_info=True)
                continue
            for table_id, packed in shared.items():
                if self._shared.get(table_id) == packed:
                    continue
                try:
                    info = m.TableInfo.from_wire(msgpack.unpackb(packed))
                except Exception:
                    log.warning("table %s: a lobby entry that does not read", table_id)
                    continue
                self.lobby.publish(info, local=False)
            for table_id in set(self._shared) - set(shared):
                self.lobby.remove(table_id, local=False)
            self._shared = shared

    def _heard(self, channel: str, payload: str) -> None:
        if channel == LOBBY_CHANNEL:
            if payload != self.node:
                self._hint.set()
            return
        try:
            data = json.loads(payload)
            if data.get("node") == self.node:
                return  # said here, and heard here already
            if channel == CHAT_CHANNEL:
                line = m.Chat.from_wire(data["line"])
                assert isinstance(line, m.Chat)
                self.lobby.chat(line, int(data["sender"]), local=False)
            elif channel == HOST_CHANNEL and self.on_host and self._nursery is not None:
                with contextlib.suppress(RuntimeError):  # (not while the node stops)
                    self._nursery.start_soon(self.on_host, data)
        except Exception:
            log.warning("%s: a notification that does not read", channel, exc_info=True)

    async def _listen(self) -> None:
        """LISTEN on a connection of its own, and hear what comes, until it breaks."""
        conn = await trio.to_thread.run_sync(lambda: psycopg.connect(self.url, autocommit=True))
        try:

            def listen() -> None:
                for channel in CHANNELS:
                    conn.execute(f"LISTEN {channel}".encode())

            await trio.to_thread.run_sync(listen)
            self.listening.set()
            self._hint.set()  # what happened while nobody listened: read it all
            pgconn = conn.pgconn
            while True:
                await trio.lowlevel.wait_readable(conn.fileno())
                pgconn.consume_input()  # raises once the connection is gone
                while (notify := pgconn.notifies()) is not None:
                    self._heard(notify.relname.decode(), notify.extra.decode())
        finally:
            conn.close()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._sender)
            nursery.start_soon(self._sharer)
            nursery.start_soon(self._looker)
            task_status.started()
            while True:
                try:
                    await self._listen()
                except (psycopg.Error, OSError):
                    log.warning("the LISTEN connection broke: again", exc_info=True)
                await trio.sleep(RECONNECT_AFTER)
