"""Fixtures: a real server on a loopback port with a real SQLite file in tmp_path, and
one over memory streams on a ``MockClock`` for the timer tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from gbmj.game.match import Match
from gbmj_server.net.server import Server
from gbmj_server.storage import Storage
from server.wireclient import WireClient, memory_connect


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path):
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    srv.port = listeners[0].socket.getsockname()[1]  # type: ignore[attr-defined]
    scope, stopped = trio.CancelScope(), trio.Event()

    async def run(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            with scope:
                await srv.serve(listeners, task_status=task_status)
        finally:
            stopped.set()

    await nursery.start(run)
    yield srv
    # Stop the server (its tables may still be writing) before the database closes.
    scope.cancel()
    await stopped.wait()
    storage.close()


@pytest.fixture
def connect(server: Server):
    """``await connect()``: a greeted client over TCP; ``connect(hello=False)`` raw."""
    clients: list[WireClient] = []

    async def open_client(hello: bool = True) -> WireClient:
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)  # type: ignore[attr-defined]
        client = WireClient(stream)
        clients.append(client)
        if hello:
            await client.hello()
        return client

    return open_client


# pytest-trio runs a test on a MockClock only when the test itself asks for the clock
# fixture, so every test using this one names ``mock_clock`` in its arguments too.
@pytest.fixture
async def mem(nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock):
    storage = Storage(tmp_path / "gbmj.sqlite3")
    # A match seed that seats player 0 (the lobby's seat 0) East, so it deals first.
    seed = next(s for n in range(100) if Match(s := b"seed-%d" % n).players[0] == 0)
    srv = Server(storage, match_seed=seed)
    srv.lobby.nursery = nursery

    # A server over memory streams on the mock clock: (server, connect, clock).
    yield srv, memory_connect(srv, nursery), mock_clock
    storage.close()
