"""The game port's limits over TLS (docs/hosting.md, "Limits"): what TLS holds counts
against the buffer budget and goes when the connection does, handshakes are limited per
address before any TLS work and take turns, and a socket that sends nothing holds no TLS
state. A real server on a loopback port with its self-signed certificate, real clients
from loopback addresses of their own (127.0.x.y: counted apart, not trusted)."""

from __future__ import annotations

import contextlib
import gc
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from gbmj_server import server as server_module
from gbmj_server.config import Limits
from gbmj_server.net.guard import Guard
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from gbmj_server.tls import RECORD_BUFFER, load_server_tls
from protocol import messages as m
from protocol.framing import encode
from server.conftest import TEST_CONFIG, Running
from server.wireclient import WireClient

pytestmark = pytest.mark.trio

MakeTls = Callable[..., Awaitable[tuple[Server, ssl.SSLContext]]]


@pytest.fixture
async def tls_server(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[MakeTls]:
    """``await tls_server(**limits)``: (a server serving TLS on a loopback port with
    those limits over the tests' own, the context it serves)."""
    made: list[tuple[Running, Storage]] = []

    async def make(**limits: Any) -> tuple[Server, ssl.SSLContext]:
        storage = Storage(tmp_path / f"gbmj-{len(made)}.sqlite3")
        context = load_server_tls(tmp_path / f"tls-{len(made)}" / "db").context
        config = replace(TEST_CONFIG, limits=replace(TEST_CONFIG.limits, **limits))
        srv = Server(storage, config)
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        running = Running()

        async def run(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
            try:
                with running.scope:
                    await srv.serve(listeners, tls=context, task_status=task_status)
            finally:
                running.stopped.set()

        await nursery.start(run)
        made.append((running, storage))
        return srv, context

    yield make
    for running, storage in made:
        await running.stop()
        storage.close()


def client_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the pin is the client's business, not these tests'
    return context


async def tcp_from(srv: Server, address: str) -> trio.SocketStream:
    assert srv.port is not None
    return await trio.open_tcp_stream("127.0.0.1", srv.port, local_address=address)


async def tls_client(srv: Server, address: str, hello: bool = True) -> WireClient:
    """A client over TLS from ``address``, its handshake done (and greeted)."""
    stream = trio.SSLStream(
        await tcp_from(srv, address), client_context(), server_hostname="gbmj-server"
    )
    await stream.do_handshake()
    client = WireClient(stream)
    if hello:
        await client.hello()
    return client


class RawTls:
    """A TLS client that decides what reaches the wire: part of a record, part of its
    hello."""

    def __init__(self, tcp: trio.SocketStream) -> None:
        self.tcp = tcp
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = client_context().wrap_bio(
            self.incoming, self.outgoing, server_hostname="gbmj-server"
        )

    async def handshake(self) -> None:
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                await self.tcp.send_all(self.outgoing.read())
                data = await self.tcp.receive_some(65536)
                assert data, "the server closed during the handshake"
                self.incoming.write(data)
        await self.tcp.send_all(self.outgoing.read())

    def seal(self, plain: bytes) -> bytes:
        """``plain`` as the TLS records that carry it."""
        self.tls.write(plain)
        return self.outgoing.read()

    async def closed(self) -> bool:
        """The server closes the connection."""
        with trio.fail_after(10):
            try:
                while await self.tcp.receive_some(65536):
                    pass
            except trio.BrokenResourceError:
                pass  # closed with our bytes unread: a reset
        return True


async def wait_until(condition: Callable[[], bool], every: float = 0.02) -> None:
    with trio.fail_after(10):
        while not condition():
            await trio.sleep(every)


# -- what TLS holds ------------------------------------------------------------------------


async def test_a_tls_record_still_arriving_counts_against_the_buffer_budget(
    tls_server: MakeTls,
) -> None:
    # Room for two records arriving, not three.
    srv, _ = await tls_server(buffers_total=2 * RECORD_BUFFER + 4096)
    senders = []
    for i in (1, 2, 3):
        raw = RawTls(await tcp_from(srv, f"127.0.6.{i}"))
        await raw.handshake()
        await raw.tcp.send_all(raw.seal(encode(m.Hello(version=1, client="test/1"))))
        record = raw.seal(b"\0" * 16_000)  # one record: all but its last bytes are sent
        await raw.tcp.send_all(record[:-100])
        senders.append(raw)
        if i < 3:  # held, and counted: nothing of it reached a frame yet
            await wait_until(lambda i=i: srv.guard.buffers.held >= i * RECORD_BUFFER)
    assert await senders[0].closed()  # the one holding longest goes
    assert srv.guard.buffers.held == 2 * RECORD_BUFFER
    # The others are held, not dropped; a newcomer plays on.
    newcomer = await tls_client(srv, "127.0.6.9")
    assert (await newcomer.ok("guest"))["type"] == "session"
    assert srv.guard.open == 3


async def test_closed_tls_connections_leave_nothing_behind(
    tls_server: MakeTls, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Collections as seldom as a busy server's (gbmj_server.collector): none at all.
    monkeypatch.setattr(server_module, "GAUGES_EVERY", 0.05)
    monkeypatch.setattr(server_module, "GIVE_BACK_AFTER", 4)
    gc.collect()
    gc.disable()
    try:
        srv, context = await tls_server()
        clients = [await tls_client(srv, f"127.0.7.{i}") for i in range(1, 5)]
        for client in clients:  # each holds most of a 64 KiB frame
            await client.send_raw((65536).to_bytes(4, "big") + b"\0" * 60_000)
        await wait_until(lambda: srv.guard.buffers.held >= 4 * 60_000)
        assert len(server_tls_objects(context)) == 4
        for client in clients:
            await client.aclose()
        await wait_until(lambda: srv.guard.open == 0)
        # Gone once the server has seen them go: their TLS state and their buffers.
        await wait_until(lambda: not server_tls_objects(context), every=0.2)
        assert srv.guard.buffers.held == 0
    finally:
        gc.enable()


def server_tls_objects(context: ssl.SSLContext) -> list[ssl.SSLObject]:
    """The TLS state this server holds (its context's: not another test's leftovers)."""
    return [
        o
        for o in gc.get_objects()
        if isinstance(o, ssl.SSLObject) and o.server_side and o.context is context
    ]


# -- handshakes ----------------------------------------------------------------------------


async def test_handshakes_per_address_are_limited_before_any_tls_work(
    tls_server: MakeTls,
) -> None:
    srv, context = await tls_server(handshake_burst=3, handshakes_per_second=0.001)
    for _ in range(3):
        client = await tls_client(srv, "127.0.8.1")
        await client.aclose()
    started = context.session_stats()["accept"]
    assert started == 3
    with pytest.raises(trio.BrokenResourceError):  # closed before the server's hello
        await tls_client(srv, "127.0.8.1", hello=False)
    assert context.session_stats()["accept"] == started  # no TLS work was done for it
    other = await tls_client(srv, "127.0.8.2")  # another address is not held up
    assert (await other.ok("ping"))["type"] == "pong"


async def test_handshakes_take_turns_and_a_stalled_one_loses_its_turn(
    tls_server: MakeTls,
) -> None:
    srv, _ = await tls_server(handshakes_in_flight=1, handshake_timeout=0.5)
    stalled = RawTls(await tcp_from(srv, "127.0.9.1"))
    with contextlib.suppress(ssl.SSLWantReadError):  # its hello is written, no more
        stalled.tls.do_handshake()
    hello = stalled.outgoing.read()
    await stalled.tcp.send_all(hello[:20])  # the start of its hello, and no more
    await wait_until(lambda: srv.guard.handshakes_under_way == 1)
    # The only turn is the stalled client's until its time is up: the next handshake
    # is done once the server has let it go.
    honest = await tls_client(srv, "127.0.9.2")
    assert srv.guard.released == 1
    assert await stalled.closed()
    assert (await honest.ok("ping"))["type"] == "pong"


async def test_a_turn_is_one_of_so_many_in_all_and_of_one_address() -> None:
    guard = Guard(Limits(handshakes_in_flight=3, handshakes_in_flight_per_address=2))
    inside: list[str] = []
    leave = trio.Event()

    async def turn(address: str) -> None:
        async with guard.handshake_turn(address):
            inside.append(address)
            await leave.wait()

    async with trio.open_nursery() as nursery:
        for address in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.3"):
            nursery.start_soon(turn, address)
            await trio.testing.wait_all_tasks_blocked()
        # Two of the first address, one of the second; the third waits for the total.
        assert inside == ["10.0.0.1", "10.0.0.1", "10.0.0.2"]
        leave.set()
    assert sorted(inside) == ["10.0.0.1"] * 3 + ["10.0.0.2", "10.0.0.3"]
    assert not guard._in_flight_of  # nothing kept for addresses with no turn
    assert guard.handshakes_under_way == 0


async def test_a_connection_over_the_address_cap_is_told_why_over_tls(
    tls_server: MakeTls,
) -> None:
    srv, _ = await tls_server(connections_per_address=1)
    first = await tls_client(srv, "127.0.11.1")
    second = await tls_client(srv, "127.0.11.1", hello=False)
    refused = await second.expect("error")
    assert refused["code"] == "server_busy" and "your address" in refused["message"]
    assert (await first.ok("ping"))["type"] == "pong"


# -- sockets that send nothing -------------------------------------------------------------


@pytest.mark.slow
async def test_a_silent_socket_holds_no_tls_state_and_goes_at_its_deadline(
    tls_server: MakeTls,
) -> None:
    srv, context = await tls_server(hello_timeout=1.0)
    silent = [await tcp_from(srv, f"127.0.10.{i}") for i in range(1, 6)]
    await wait_until(lambda: srv.guard.open == 5)
    await trio.testing.wait_all_tasks_blocked()
    assert context.session_stats()["accept"] == 0  # no handshake begun, no TLS state
    for stream in silent:
        with trio.fail_after(10):
            assert await stream.receive_some(100) == b""
    assert srv.guard.open == 0
