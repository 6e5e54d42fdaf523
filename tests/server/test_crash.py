"""The server killed with SIGKILL at random moments during stake matches of humans and
bots, and restarted on the same file, again and again (docs/rules.md §2.4, §2.5): every
match goes on from where it stood and plays to its end; each player is back at its seat
with the tiles it held; the ledger balances; no hand is settled twice or half; every
match is ended exactly once. ``bench/restart.py`` runs the same harness longer."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import trio

from gbmj_server.storage import Storage
from server.crashing import (
    STAKE,
    Crashes,
    Player,
    check_books,
    come_back,
    held,
    run_until_killed,
    seat,
)
from server.wireclient import WireClient

pytestmark = pytest.mark.trio

KILLS = 20


@pytest.mark.slow
async def test_every_match_survives_twenty_kills(tmp_path: Path) -> None:
    crashes = Crashes(tmp_path, seed=0xC0FFEE)
    players = [Player(f"crash{n}") for n in range(5)]  # tables of two humans (and bots)
    await crashes.start()
    await seat(crashes, players, humans_per_table=2)
    try:
        while crashes.kills < KILLS and not all(p.finished for p in players):
            await run_until_killed(crashes, players)
            check_books(crashes.db)  # between the kill and the restart: the file alone
            before = held(crashes.db)
            started = await crashes.start()
            await come_back(crashes, players, started, before)
        # Then every match plays on to its end.
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                for player in players:
                    nursery.start_soon(player.play, 600)
    finally:
        await crashes.stop()
    assert crashes.kills == KILLS, "the matches ended before twenty kills"
    assert all(p.finished and p.match_results == 1 for p in players)  # each told once
    # The tiles were compared one for one: the snapshot after each restart with the file
    # before it, and, where the player had heard of every step, with its own.
    assert crashes.server_exact >= KILLS
    assert sum(p.exact for p in players) >= KILLS // 2
    hands, matches = check_books(crashes.db)
    assert hands == 3 * 16 and matches == 3
    with Storage(crashes.db) as store:
        for match_id in store.match_ids():
            record = store.match(match_id)
            assert record is not None and record.end_reason == "finished"
            assert len(store.hands(match_id)) == 16  # four rounds, every hand, once
        assert store.running_matches() == []


@pytest.mark.slow
async def test_a_match_killed_before_it_is_written_is_not_resumed(tmp_path: Path) -> None:
    """The answer to the last ``ready`` (and the table shown playing) comes before the
    match is written: a kill in that moment leaves nothing to resume, and the player
    signs in to the lobby with every coin (docs/rules.md §2.4). The crash test's first
    kill once landed there; its tables are now dealt before it. A slow disk (the file
    locked by the test) holds the moment open."""
    crashes = Crashes(tmp_path)
    player = Player("early")
    await crashes.start()
    try:
        await player.connect(crashes.port)
        client = player.client
        assert client is not None
        table_id = await client.create_table(stake=STAKE)
        await client.ok("sit", table_id=table_id, seat=0)
        for s in (1, 2, 3):
            await client.ok("add_bot", table_id=table_id, seat=s, level="easy")
        with closing(sqlite3.connect(crashes.db, isolation_level=None)) as disk:
            disk.execute("BEGIN IMMEDIATE")  # the server's writes wait
            await client.ok("ready", table_id=table_id, ready=True)
            await client.expect("table_update", where=lambda u: u["table"]["status"] == "playing")
            await crashes.kill()
            disk.execute("ROLLBACK")
        with Storage(crashes.db) as store:
            assert store.match_ids() == []
        await crashes.start()
        back = WireClient(await trio.open_tcp_stream("127.0.0.1", crashes.port))
        await back.hello()
        session = await back.ok("resume", token=player.token)
        assert session["profile"]["coins"] == 10_000
        # A seated player's snapshot would come before the answer to the next request.
        await back.ok("ping")
        assert [m["type"] for m in back.seen].count("snapshot") == 0
    finally:
        await crashes.stop()
