"""Bots deciding in worker processes (``gbmj_server.tables.brains``): the same play as
in the server's loop, and a worker that dies leaves the bots to the loop."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, seat_zero_deals, start
from server.wireclient import WireClient, play

pytestmark = pytest.mark.trio


async def _solo_match(
    nursery: trio.Nursery, db: Path, workers: int, on_first_prompt: Any = None
) -> tuple[list[tuple[Any, ...]], Server]:
    """One human (the test's simple player) and three hard bots play a one-round match;
    the events the human saw, as (kind, seat, tile)."""
    storage = Storage(db)
    config = dataclasses.replace(TEST_CONFIG, bot_workers=workers)
    server = Server(storage, config, match_seed=seat_zero_deals(), rng=random.Random(7))
    running = await start(nursery, server)
    try:
        assert server.port is not None
        human = WireClient(await trio.open_tcp_stream("127.0.0.1", server.port))
        await human.hello()
        await human.register("solo")
        table_id = await human.create_table()
        await human.ok("sit", table_id=table_id, seat=0)
        for seat in (1, 2, 3):
            await human.ok("add_bot", table_id=table_id, seat=seat, level="hard")
        await human.ok("ready", table_id=table_id, ready=True)
        if on_first_prompt is not None:
            await human.expect("prompt")
            on_first_prompt(server)
            human.inbox.insert(0, human.seen[-1])  # the prompt, answered by ``play``
        results = await play(human, table_id)
        assert len(results) == 4
        events = [
            (e["event"]["kind"], e["event"].get("seat"), e["event"].get("tile"))
            for e in human.seen
            if e["type"] == "event"
        ]
        await human.aclose()
        return events, server
    finally:
        await running.stop()
        storage.close()


@pytest.mark.slow
async def test_bots_in_a_worker_play_exactly_as_in_the_loop(nursery, tmp_path: Path) -> None:
    in_loop, _ = await _solo_match(nursery, tmp_path / "loop.sqlite3", workers=0)
    in_worker, server = await _solo_match(nursery, tmp_path / "worker.sqlite3", workers=1)
    brains = server.tables.ctx.brains
    assert brains is not None and brains.decided > 100, "the worker decided"
    assert len(in_worker) > 100
    assert in_worker == in_loop


@pytest.mark.slow
async def test_a_dead_worker_leaves_the_bots_to_the_loop(nursery, tmp_path: Path) -> None:
    def kill_worker(server: Server) -> None:
        brains = server.tables.ctx.brains
        assert brains is not None and brains.running
        for worker in brains._workers:
            worker.process.kill()

    events, server = await _solo_match(
        nursery, tmp_path / "dead.sqlite3", workers=1, on_first_prompt=kill_worker
    )
    brains = server.tables.ctx.brains
    assert brains is not None and not brains.running and brains.decided == 0
    assert sum(1 for kind, _, _ in events if kind == "hand_end") == 4
