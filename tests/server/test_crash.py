"""The server killed with SIGKILL at random moments during stake matches of humans and
bots, and restarted on the same file, again and again (docs/rules.md §2.4, §2.5): every
match goes on from where it stood and plays to its end; each player is back at its seat
with the tiles it held; the ledger balances; no hand is settled twice or half; every
match is ended exactly once. ``bench/restart.py`` runs the same harness longer."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from gbmj_server.storage import Storage
from server.crashing import (
    Crashes,
    Player,
    check_books,
    come_back,
    held,
    run_until_killed,
    seat,
)

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
