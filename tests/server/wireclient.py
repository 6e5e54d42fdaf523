"""A test client speaking the wire protocol over a real stream."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio
import trio.testing

from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode_map
from protocol.messages import Message

if TYPE_CHECKING:
    from gbmj_server.server import Server

TIMEOUT = 10.0


def encode(message: dict[str, Any]) -> bytes:
    """A frame for a wire map, checked against the catalog first (a test's own mistake
    fails the test, not the server)."""
    Message.from_wire(message)
    return encode_map(message)


class WireDecoder:
    """Bytes in, wire maps out (each checked by the catalog); a bad frame yields its
    ``ProtocolError`` in place."""

    def __init__(self) -> None:
        self._decoder = FrameDecoder()

    def feed(self, data: bytes) -> list[dict[str, Any] | ProtocolError]:
        self._decoder.receive_data(data)
        out: list[dict[str, Any] | ProtocolError] = []
        while True:
            try:
                message = self._decoder.next_message()
            except ProtocolError as exc:
                out.append(exc)
                continue
            if message is None:
                return out
            out.append(message.to_wire())


class WireClient:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.decoder = WireDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.seen: list[dict[str, Any]] = []  # every message ever received, in order
        self.raw: list[bytes] = []  # every byte chunk received
        self._ids = itertools.count(1)
        self.closed = False

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(encode(message))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _fill(self) -> None:
        data = await self.stream.receive_some(65536)
        if not data:
            self.closed = True
            raise EOFError("server closed the connection")
        self.raw.append(data)
        for item in self.decoder.feed(data):
            assert not isinstance(item, ProtocolError), item
            self.inbox.append(item)
            self.seen.append(item)

    async def expect(
        self, kind: str, /, timeout: float = TIMEOUT, where: Any = None, **fields: Any
    ) -> dict[str, Any]:
        """The next message of type ``kind`` whose fields match and for which ``where``
        (if given) is true; earlier messages are skipped."""
        with trio.fail_after(timeout):
            while True:
                for index, message in enumerate(self.inbox):
                    if (
                        message["type"] == kind
                        and all(message.get(k) == v for k, v in fields.items())
                        and (where is None or where(message))
                    ):
                        del self.inbox[: index + 1]
                        return message
                await self._fill()

    async def request(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh id; return its reply (ok, error or other)."""
        request_id = next(self._ids)
        await self.send({"type": kind, "id": request_id, **fields})
        with trio.fail_after(TIMEOUT):
            while True:
                for index, message in enumerate(self.inbox):
                    if message.get("id") == request_id:
                        del self.inbox[index]
                        return message
                await self._fill()

    async def ok(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        reply = await self.request(kind, **fields)
        assert reply["type"] != "error", reply
        return reply

    async def hello(self) -> dict[str, Any]:
        await self.send({"type": "hello", "version": 1, "client": "test/1"})
        return await self.expect("welcome")

    async def register(self, name: str, password: str = "secret-pw") -> dict[str, Any]:
        return await self.ok("register", name=name, password=password)

    async def create_table(self, password: str | None = None, **settings: Any) -> int:
        """Create a table (defaults: one round, timers off, bots allowed); its id."""
        base = {
            "name": "test table",
            "stake": 0,
            "rounds": 1,
            "bots_allowed": True,
            "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
        }
        timers = settings.pop("timers", {})
        base.update(settings)
        base["timers"] = {**base["timers"], **timers}
        extra = {} if password is None else {"password": password}
        reply = await self.ok("create_table", settings=base, **extra)
        assert reply["type"] == "snapshot"
        return reply["table"]["table_id"]

    async def drain(self, seconds: float = 0.05) -> None:
        """Read whatever arrives for a moment."""
        with trio.move_on_after(seconds):
            while True:
                await self._fill()

    async def aclose(self) -> None:
        await self.stream.aclose()


# -- playing ------------------------------------------------------------------------------

# Answers that can lose a race with another seat's claim (the window closed first).
RACE_ERRORS = ("not_your_turn", "stale", "not_expected")


def simple_choice(prompt: dict[str, Any]) -> dict[str, Any]:
    """A legal answer to a prompt: win if offered, pass claims, else the first discard."""
    actions = prompt["actions"]
    for wanted in ("win", "pass", "discard"):
        for action in actions:
            if action["kind"] == wanted:
                return dict(action)
    return dict(actions[0])


def never_win(prompt: dict[str, Any]) -> dict[str, Any]:
    """A legal answer that never wins a hand: pass claims, else the first discard."""
    for wanted in ("pass", "discard"):
        for action in prompt["actions"]:
            if action["kind"] == wanted:
                return dict(action)
    raise AssertionError(f"neither a pass nor a discard offered: {prompt['actions']}")


class Pause:
    """Holds players at their next prompt while ``event`` is set to an unset Event."""

    def __init__(self) -> None:
        self.event: trio.Event | None = None

    async def wait(self) -> None:
        if self.event is not None:
            await self.event.wait()


async def play(
    client: WireClient,
    table_id: int,
    *,
    until: str = "match_result",
    prompts: int | None = None,
    pause: Pause | None = None,
    choose: Callable[[dict[str, Any]], dict[str, Any]] = simple_choice,
) -> list[dict[str, Any]]:
    """Answer prompts (with ``choose``) until a message of type ``until`` (or ``prompts``
    answered); returns the hand results seen. Errors other than lost races fail the
    test."""
    results: list[dict[str, Any]] = []
    answered = 0
    while True:
        with trio.fail_after(TIMEOUT):
            while not client.inbox:
                await client._fill()
        message = client.inbox.pop(0)
        kind = message["type"]
        if kind == "hand_result":
            results.append(message)
        if kind == until:
            return results
        if kind == "error":
            assert message["code"] in RACE_ERRORS, message
        if kind == "prompt":
            if pause is not None:
                await pause.wait()
            choice = choose(message)
            await client.send(
                {
                    "type": "action",
                    "id": 1000 + answered,
                    "table_id": table_id,
                    "seq": message["seq"],
                    **choice,
                }
            )
            answered += 1
            if prompts is not None and answered >= prompts:
                return results


async def connect_from(server: Server, address: str, hello: bool = True) -> WireClient:
    """A client of ``server`` over TCP from another loopback address (Linux routes all of
    127/8): one the server counts apart from the others, and not trusted."""
    assert server.port is not None
    stream = await trio.open_tcp_stream("127.0.0.1", server.port, local_address=address)
    client = WireClient(stream)
    if hello:
        await client.hello()
    return client


def memory_connect(
    server: Server, nursery: trio.Nursery, address: str = "10.0.0.1"
) -> Callable[[], Awaitable[WireClient]]:
    """``await connect()``: a greeted client of ``server`` over an in-memory stream (for
    tests on a MockClock, which real sockets do not suit)."""

    async def connect() -> WireClient:
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(server.handle_connection, theirs, address)
        client = WireClient(ours)
        await client.hello()
        return client

    return connect


async def seat_four(
    connect: Callable[[], Awaitable[WireClient]], **settings: Any
) -> tuple[list[WireClient], int]:
    """Four registered players in seats 0-3 of a new table, all ready: the match runs."""
    clients = [await connect() for _ in range(4)]
    for i, client in enumerate(clients):
        await client.register(f"player{i}")
    table_id = await clients[0].create_table(**settings)
    for client in clients[1:]:
        await client.ok("join_table", table_id=table_id)
    for i, client in enumerate(clients):
        await client.ok("sit", table_id=table_id, seat=i)
    for client in clients:
        await client.ok("ready", table_id=table_id, ready=True)
    return clients, table_id


async def solo_table(
    connect: Callable[[], Awaitable[WireClient]], name: str = "solo-player", **settings: Any
) -> tuple[WireClient, int]:
    """One human in seat 0 and three bots, all ready: the match starts."""
    human = await connect()
    await human.register(name)
    table_id = await human.create_table(**settings)
    await human.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await human.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await human.ok("ready", table_id=table_id, ready=True)
    return human, table_id
