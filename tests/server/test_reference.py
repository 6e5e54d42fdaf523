"""The server does what docs/protocol.md says, over real TCP: the cases an independent
client written from the reference found broken (the snapshot's clock at a hand's start,
asking again for a snapshot, seq per table across matches, standings per player, a match
that runs out of humans)."""

from __future__ import annotations

import pytest

from gbmj_server.server import Server
from server.conftest import table_of
from server.wireclient import never_win, play, solo_table

pytestmark = pytest.mark.trio

TIMERS = {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5}


async def test_the_snapshot_at_a_hands_start_carries_its_running_clock(connect) -> None:
    human, table_id = await solo_table(connect, timers=TIMERS)
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    snapshot = await human.expect("snapshot", where=lambda m: "game" in m)
    game = snapshot["game"]
    # The first hand: the dealer's first discard, its clock already set: not missing,
    # not the last hand's.
    assert game["timer"] == "first_discard" and 0 < game["ms_left"] <= 30_000
    # Any snapshot of a timed hand carries the clock that runs, within its length.
    for _ in range(5):
        again = await watcher.ok("spectate", table_id=table_id)
        timer = again["game"]["timer"]
        assert 0 < again["game"]["ms_left"] <= TIMERS[timer] * 1000, again["game"]
    # The next hand's snapshot has the next hand's clock, not what was left of the last.
    await play(human, table_id, until="hand_result")
    snapshot = await human.expect("snapshot", where=lambda m: "game" in m)
    assert snapshot["game"]["hand_number"] == 2
    assert snapshot["game"]["timer"] == "first_discard" and snapshot["game"]["ms_left"] > 25_000


async def test_asking_again_gives_a_fresh_snapshot_without_leaving(connect) -> None:
    human, table_id = await solo_table(connect)
    await human.expect("prompt")
    for request in ("join_table", "spectate"):
        snapshot = await human.ok(request, table_id=table_id)  # a seq gap: resync
        assert snapshot["type"] == "snapshot" and snapshot["seat"] is not None
        assert "game" in snapshot
    # Nothing was escaped: the hand goes on, and the seat is still the player's.
    assert not any(m["type"] == "event" and m["event"]["kind"] == "escape" for m in human.seen)
    reply = await human.request("leave_table", table_id=table_id + 1)
    assert reply["code"] == "not_seated"


@pytest.mark.slow
async def test_seq_counts_per_table_across_its_matches(connect, server: Server) -> None:
    human, table_id = await solo_table(connect)
    await play(human, table_id)  # the first match, to its end
    first = [m["seq"] for m in human.seen if m["type"] == "event"]
    assert first == list(range(1, len(first) + 1))
    await human.ok("ready", table_id=table_id, ready=True)  # the same table's next match
    await play(human, table_id)
    events = [m["seq"] for m in human.seen if m["type"] == "event"]
    assert events == list(range(1, len(events) + 1)) and len(events) > len(first)
    assert table_of(server, table_id).seq == events[-1]


async def test_a_match_that_runs_out_of_humans_ends_with_its_result(
    connect, server: Server
) -> None:
    """The last human stood up for want of coins: the match ends, and the spectators
    are told how, with the standings of everyone who played."""
    stake = 10
    human = await connect()
    await human.register("broke")
    store = server.store
    table_id = await human.create_table(stake=stake, rounds=4, when_broke="bot")
    await human.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await human.ok("add_bot", table_id=table_id, seat=seat, level="hard")
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    await human.ok("ready", table_id=table_id, ready=True)
    # The host takes all but 999 coins; the player never wins, so the first hand leaves
    # them under 100 × stake (1,000), whatever else happens in it.
    await store.call(store.storage.admin_adjust, "broke", -(10_000 - 999))
    await play(human, table_id, until="table_left", choose=never_win)
    left = next(m for m in human.seen if m["type"] == "table_left")
    assert left["reason"] == "not_enough_coins"
    result = await watcher.expect("match_result", timeout=30)
    assert result["table_id"] == table_id and result["reason"] == "abandoned"
    lines = {s["name"]: s for s in result["standings"]}
    assert lines["broke"]["left"] == "not_enough_coins" and "seat" not in lines["broke"]
    account = await store.call(store.storage.account_by_name, "broke")
    balance = await store.call(store.storage.balance, account.id)
    assert lines["broke"]["coins"] == balance - 999  # the hand's cost, on their own line
