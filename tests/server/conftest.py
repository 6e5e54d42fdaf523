"""Fixtures: a real server on a loopback port with a real SQLite file in tmp_path, and
one over memory streams on a ``MockClock`` for the timer tests.

Every message the server sends in tests is checked against the protocol's catalog
(``GBMJ_CHECK``): the server trusts its own builders on the hot path, the tests do not.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

os.environ["GBMJ_CHECK"] = "1"

from storage.pg import db_target, pg_server, pg_url  # noqa: F401 (fixtures: both engines)

from gbmj.game.hand_state import HandState
from gbmj.game.match import Match
from gbmj_server.config import Limits, ServerConfig
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from gbmj_server.tables.play import Play
from gbmj_server.tables.table import Table
from server.wireclient import WireClient, memory_connect

Make = Callable[..., Awaitable[Server]]  # the ``limited`` fixture

# Tests play at full speed: bots do not think, hands follow at once, and test clients
# answer faster than any person (the limits' own tests set them as a host would). Bots
# decide in the server's loop, where the mock clock's tests see every step they take
# (tests/server/test_brains.py runs them in workers).
TEST_CONFIG = ServerConfig(
    bot_delay=0.0,
    hand_pause=0.0,
    table_linger=0.0,  # an empty table closes at once (the linger has its own test)
    bot_workers=0,
    # Test clients connect from 127.0.0.1 unless a test says otherwise (connect_from):
    # no per-address caps for them, none of the host's defaults trust it.
    limits=Limits(
        request_rate=100_000.0, request_burst=100_000, chat_lines=1000, trusted=("127.0.0.1",)
    ),
)


def table_of(server: Server, table_id: int) -> Table:
    """A table's state, read by a test (only its actor changes it)."""
    return server.tables.get(table_id).table


def play_of(server: Server, table_id: int) -> Play:
    play = table_of(server, table_id).play
    assert isinstance(play, Play), "no match runs at that table"
    return play


class Probe:
    """A test's window on one table's state (only the table's actor changes it)."""

    def __init__(self, server: Server, table_id: int) -> None:
        self.server = server
        self.table_id = table_id
        self.table = table_of(server, table_id)

    @property
    def open(self) -> bool:
        return self.table_id in self.server.tables.actors

    @property
    def seq(self) -> int:
        return self.table.seq

    @property
    def play(self) -> Play:
        return play_of(self.server, self.table_id)

    @property
    def state(self) -> HandState | None:
        """The hand in play (None between hands and outside a match)."""
        play = self.table.play
        return play.st.hand if isinstance(play, Play) else None

    def to_act(self) -> tuple[int, ...]:
        state = self.state
        return () if state is None or state.ended else state.to_act

    @property
    def steps(self) -> int:
        """Actions applied to the hand in play: changes the moment the engine plays one
        (the seq follows once the step is written ahead, in a worker thread, which
        ``wait_all_tasks_blocked`` does not wait for)."""
        state = self.state
        return -1 if state is None else len(state.log)


def seat_zero_deals() -> bytes:
    """A match seed that seats the table's seat 0 East, so that it deals first."""
    return next(s for n in range(100) if Match(s := b"seed-%d" % n).players[0] == 0)


class Running:
    """A server running in a test's nursery until ``stop``."""

    def __init__(self) -> None:
        self.scope = trio.CancelScope()
        self.stopped = trio.Event()

    async def stop(self) -> None:
        self.scope.cancel()
        await self.stopped.wait()


async def start(nursery: trio.Nursery, server: Server, listen: bool = True) -> Running:
    """Run ``server`` (on a loopback port when ``listen``) until ``stop``."""
    running = Running()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1") if listen else []

    async def run(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            with running.scope:
                if listeners:
                    await server.serve(listeners, task_status=task_status)
                else:
                    await server.run(task_status=task_status)
        finally:
            running.stopped.set()

    await nursery.start(run)
    return running


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[Server]:
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, TEST_CONFIG)
    running = await start(nursery, srv)
    yield srv
    # Stop the server (its tables may still be writing) before the database closes.
    await running.stop()
    storage.close()


@pytest.fixture
async def limited(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[Make]:
    """``await limited(**limits)``: a server on a loopback port with those limits over
    the tests' own (which let test clients go faster than any person)."""
    made: list[tuple[Running, Storage]] = []

    async def make(**limits: Any) -> Server:
        storage = Storage(tmp_path / f"gbmj-{len(made)}.sqlite3")
        config = replace(TEST_CONFIG, limits=replace(TEST_CONFIG.limits, **limits))
        srv = Server(storage, config)
        made.append((await start(nursery, srv), storage))
        return srv

    yield make
    for running, storage in made:
        await running.stop()
        storage.close()


@pytest.fixture
def connect(server: Server):
    """``await connect()``: a greeted client over TCP; ``connect(hello=False)`` raw."""

    async def open_client(hello: bool = True) -> WireClient:
        assert server.port is not None
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        client = WireClient(stream)
        if hello:
            await client.hello()
        return client

    return open_client


# pytest-trio runs a test on a MockClock only when the test itself asks for the clock
# fixture, so every test using this one names ``mock_clock`` in its arguments too.
@pytest.fixture
async def mem(nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock):
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, TEST_CONFIG, match_seed=seat_zero_deals())
    running = await start(nursery, srv, listen=False)
    # A server over memory streams on the mock clock: (server, connect, clock).
    yield srv, memory_connect(srv, nursery), mock_clock
    await running.stop()
    storage.close()
