"""The table's clocks, driven by ``trio.testing.MockClock`` over memory streams.

The clock only moves when a test jumps it, so "nothing happened before the deadline" and
"the server acted at the deadline" are exact. (Real-socket tests stay off the mock
clock: a task waiting on a socket looks idle to it, so a jump can pass a deadline while
bytes are still on their way.)
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import trio
import trio.testing

from gbmj_server.server import Server
from gbmj_server.storage import Storage
from gbmj_server.tables import settle
from server.conftest import TEST_CONFIG, Probe, start
from server.wireclient import memory_connect, simple_choice, solo_table

pytestmark = pytest.mark.trio

TIMERS = {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5}


async def test_each_timer_runs_its_length_then_the_server_acts(mem, mock_clock) -> None:
    srv, connect, clock = mem
    # (auto-play after many timeouts: here every timeout is the test's own doing)
    human, table_id = await solo_table(connect, timers=TIMERS, auto_play_after=10)
    game = Probe(srv, table_id)
    seen: set[str] = set()
    for _ in range(300):
        prompt = await human.expect("prompt")
        if prompt["seq"] != game.seq:
            continue  # an old prompt (the decision moved on)
        timer = prompt["timer"]
        if timer == "first_discard":
            assert not seen, "only the dealer's first discard has the long clock"
        seen.add(timer)
        length = TIMERS[timer]
        assert prompt["ms_left"] == length * 1000
        steps = game.steps
        clock.jump(length - 0.1)
        await trio.testing.wait_all_tasks_blocked()
        assert game.steps == steps, f"{timer}: the server acted before its deadline"
        clock.jump(0.2)
        # The timeout action: a discard on a turn (the drawn tile), a pass in a claim
        # window (a valid win is declared instead).
        if timer != "claim_window":
            event = await human.expect(
                "event", where=lambda m: m["event"]["kind"] in ("discard", "win")
            )
            assert event["event"]["seat"] == 0
            if event["event"]["kind"] == "discard":
                tiles = {a.get("tile") for a in prompt["actions"] if a["kind"] == "discard"}
                assert event["event"]["tile"] in tiles
        else:
            with trio.fail_after(5):
                while game.seq == prompt["seq"] and 0 in game.to_act():
                    await trio.sleep(0)  # the mock clock is still: wait for the pass
        if seen == {"first_discard", "turn", "claim_window"}:
            break
    assert seen == {"first_discard", "turn", "claim_window"}


async def test_timers_off_mean_no_deadline(mem, mock_clock) -> None:
    srv, connect, clock = mem
    human = await connect()
    await human.register("calm-player")
    table_id = await human.create_table()  # timers off
    await human.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await human.ok("add_bot", table_id=table_id, seat=seat, level="easy")
    await human.ok("ready", table_id=table_id, ready=True)
    prompt = await human.expect("prompt")
    assert "ms_left" not in prompt
    clock.jump(3600)
    await trio.testing.wait_all_tasks_blocked()
    assert Probe(srv, table_id).seq == prompt["seq"]


@pytest.mark.slow
async def test_auto_play_plays_at_once_without_the_clock(mem, mock_clock) -> None:
    _, connect, _ = mem
    human, table_id = await solo_table(connect, timers=TIMERS)
    prompt = await human.expect("prompt")
    start = trio.current_time()
    await human.ok("auto_play", table_id=table_id, on=True)
    presence = await human.expect("presence", seat=0)
    assert presence["presence"] == "auto_play"
    # The whole hand finishes with the clock standing still.
    result = await human.expect("hand_result")
    assert trio.current_time() == start
    assert result["hand_number"] == 1
    snapshot = await human.ok("join_table", table_id=table_id)  # asking again: a resync
    assert snapshot["players"][0]["presence"] == "auto_play"
    await human.ok("auto_play", table_id=table_id, on=False)
    await human.expect("presence", seat=0, presence="online")
    later = await human.expect("prompt")
    assert later["seq"] > prompt["seq"]


async def test_a_table_whose_humans_are_gone_ends_its_match(mem, mock_clock) -> None:
    srv, connect, clock = mem
    human, table_id = await solo_table(connect, timers=TIMERS)
    await human.expect("prompt")
    table = Probe(srv, table_id)
    await human.aclose()
    await trio.testing.wait_all_tasks_blocked()
    assert table.table.status == "playing"  # held for a reconnect a while
    clock.jump(srv.config.abandon_grace + 1)
    with trio.fail_after(5):
        while table.open:
            await trio.sleep(0)
    storage = srv.store.storage
    assert storage.match(storage.match_ids()[-1]).end_reason == "abandoned"


@pytest.fixture
async def lingering(nursery: trio.Nursery, tmp_path, mock_clock):
    """A server on the mock clock whose empty tables wait five minutes for their owner."""
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, replace(TEST_CONFIG, table_linger=300.0))
    running = await start(nursery, srv, listen=False)
    yield srv, memory_connect(srv, nursery), mock_clock
    await running.stop()
    storage.close()


async def test_an_empty_table_waits_for_its_owner_then_closes(lingering, mock_clock) -> None:
    srv, connect, clock = lingering
    owner = await connect()
    await owner.register("table-owner")
    table_id = await owner.create_table()
    await owner.ok("add_bot", table_id=table_id, seat=1, level="easy")
    await owner.ok("leave_table", table_id=table_id)  # a trip to the lobby
    table = Probe(srv, table_id)
    clock.jump(299)
    await trio.testing.wait_all_tasks_blocked()
    assert table.open
    listed = await owner.ok("list_tables")
    assert [t["table_id"] for t in listed["tables"]] == [table_id]
    # Back at the table: still the owner, with the owner's powers and the bot still there.
    snapshot = await owner.ok("join_table", table_id=table_id)
    assert snapshot["table"]["owner"] == "table-owner"
    assert snapshot["table"]["seats"][1]["bot"]
    await owner.ok("add_bot", table_id=table_id, seat=2, level="easy")
    # Leaving again starts the wait afresh; at its end the table is gone.
    await owner.ok("leave_table", table_id=table_id)
    clock.jump(299)
    await trio.testing.wait_all_tasks_blocked()
    assert table.open
    clock.jump(2)
    await trio.testing.wait_all_tasks_blocked()
    assert not table.open
    assert (await owner.ok("list_tables"))["tables"] == []


@pytest.mark.slow
async def test_an_owner_who_makes_another_table_leaves_no_empty_one_behind(
    lingering, mock_clock
) -> None:
    srv, connect, _ = lingering
    owner, other = await connect(), await connect()
    await owner.register("moves-on")
    await other.register("stays-put")
    first = await owner.create_table()
    await owner.ok("leave_table", table_id=first)
    left_behind = Probe(srv, first)
    kept = await other.create_table()
    await other.ok("leave_table", table_id=kept)  # someone else's wait goes on
    second = await owner.create_table()
    await trio.testing.wait_all_tasks_blocked()
    assert not left_behind.open
    listed = await owner.ok("list_tables")
    assert sorted(t["table_id"] for t in listed["tables"]) == sorted([kept, second])


async def test_a_pung_only_claim_has_the_pung_window(mem, mock_clock) -> None:
    """With a pung window of 3 s and a claim window of 5 s (docs/rules.md §2.3): a seat
    whose only claims are a pung or a kong is prompted with 3 s and passes when they run
    out, not before; a seat that may also chow or win keeps 5 s."""
    srv, connect, clock = mem
    timers = {**TIMERS, "pung_window": 3}
    human, table_id = await solo_table(connect, timers=timers, rounds=4, auto_play_after=10)
    game = Probe(srv, table_id)
    windows: dict[bool, int] = {}
    for _ in range(3000):
        prompt = await human.expect("prompt")
        if prompt["seq"] != game.seq:
            continue
        if prompt["timer"] != "claim_window":
            await human.send(
                {"type": "action", "table_id": table_id, "seq": prompt["seq"]}
                | simple_choice(prompt)
            )
            continue
        kinds = {a["kind"] for a in prompt["actions"]}
        pung_only = kinds <= {"pung", "exposed_kong", "pass"}
        windows[pung_only] = prompt["ms_left"]
        if not pung_only:
            await human.send(
                {"type": "action", "table_id": table_id, "seq": prompt["seq"], "kind": "pass"}
            )
            continue
        steps = game.steps
        clock.jump(2.9)
        await trio.testing.wait_all_tasks_blocked()
        assert game.steps == steps, "the pung window closed early"
        clock.jump(0.2)
        with trio.fail_after(5):
            while game.seq == prompt["seq"] and 0 in game.to_act():
                await trio.sleep(0)  # the mock clock is still: wait for the pass
        if False in windows:
            break
    assert windows == {True: 3000, False: 5000}


async def test_a_bug_in_the_match_ends_it_as_abandoned_and_the_table_stays(
    mem, mock_clock, monkeypatch, caplog
) -> None:
    """A failure in the match's own steps (here: booking the hand) ends that match as
    abandoned; the table goes back to its room and still answers."""
    srv, connect, _ = mem

    async def broken(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("a bug in settling")

    monkeypatch.setattr(settle, "hand_over", broken)
    human, table_id = await solo_table(connect, timers=TIMERS)
    game = Probe(srv, table_id)
    await human.expect("prompt")
    await human.ok("auto_play", table_id=table_id, on=True)  # the hand plays itself out
    result = await human.expect("match_result")
    assert result["reason"] == "abandoned"
    assert "the match failed" in caplog.text
    assert game.open and game.table.play is None and game.table.status == "waiting"
    snapshot = await human.ok("join_table", table_id=table_id)  # the table still answers
    assert snapshot["table"]["status"] == "waiting"
    storage = srv.store.storage
    assert storage.match(storage.match_ids()[-1]).end_reason == "abandoned"
