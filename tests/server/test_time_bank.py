"""Time to think (docs/rules.md §2.3) on a ``MockClock`` over memory streams: each
player's reserve for the match, eaten by the overrun of a decision's own clock; and
the pause between hands, which waits for the players reading the result."""

from __future__ import annotations

import time
from typing import Any

import pytest
import trio
import trio.testing

from gbmj_server.tables.play import MatchPhase
from server.conftest import Probe
from server.wireclient import WireClient, solo_table

pytestmark = pytest.mark.trio

BANKED = {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5, "reserve": 20}


async def _next(client: WireClient, *kinds: str) -> dict[str, Any]:
    """The next message of one of ``kinds`` (earlier ones skipped)."""
    with trio.fail_after(10):
        while True:
            for index, message in enumerate(client.inbox):
                if message["type"] in kinds:
                    del client.inbox[: index + 1]
                    return message
            await client._fill()


def _answer(prompt: dict[str, Any]) -> dict[str, Any]:
    """A plain answer: pass a claim, else discard the first tile offered."""
    kinds = [a["kind"] for a in prompt["actions"]]
    if "pass" in kinds:
        return {"kind": "pass"}
    return next(a for a in prompt["actions"] if a["kind"] == "discard")


async def _act(human: WireClient, table_id: int, prompt: dict[str, Any]) -> None:
    await human.request("action", table_id=table_id, seq=prompt["seq"], **_answer(prompt))


async def _settled(condition: Any, tries: int = 500) -> None:
    """Wait until ``condition()`` holds, the clock standing still: a task waiting for the
    database's thread counts as blocked, so each try also lets that thread finish."""
    for _ in range(tries):
        await trio.testing.wait_all_tasks_blocked()
        if condition():
            return
        await trio.to_thread.run_sync(time.sleep, 0.01)
    raise AssertionError(f"still not so after {tries} tries")


async def _own_turn(human: WireClient, table_id: int, game: Probe) -> dict[str, Any]:
    """The next prompt of a turn of the player's own, claims passed at once."""
    while True:
        prompt = await _next(human, "prompt")
        if prompt["seq"] != game.seq:
            continue
        if prompt["timer"] != "claim_window":
            return prompt
        await _act(human, table_id, prompt)


async def test_an_overrun_eats_the_reserve_and_a_timeout_empties_it(mem, mock_clock) -> None:
    srv, connect, clock = mem
    human, table_id = await solo_table(connect, timers=BANKED, auto_play_after=10)
    game = Probe(srv, table_id)
    first = await _own_turn(human, table_id, game)
    assert first["timer"] == "first_discard"
    assert (first["ms_left"], first["reserve_ms"]) == (50_000, 20_000)
    clock.jump(35)  # 5 s past the clock's own 30 s: 5 s of the reserve used
    await _act(human, table_id, first)
    turn = await _own_turn(human, table_id, game)
    assert (turn["ms_left"], turn["reserve_ms"]) == (30_000, 15_000)
    steps = game.steps
    clock.jump(29.9)
    await trio.testing.wait_all_tasks_blocked()
    assert game.steps == steps, "the server acted while the reserve lasted"
    clock.jump(0.2)  # the reserve is gone: the timeout action
    await human.expect("timed_out", seat=0)
    turn = await _own_turn(human, table_id, game)
    assert turn["ms_left"] == 15_000 and "reserve_ms" not in turn


async def test_other_seats_see_no_reserve_in_the_clock(mem, mock_clock) -> None:
    """A spectator's clock is the decision's own: reserves differ by player and would
    say who may claim."""
    _, connect, _ = mem
    human, table_id = await solo_table(connect, timers=BANKED)
    watcher = await connect()
    await watcher.register("watcher")
    await human.expect("prompt")
    snapshot = await watcher.ok("spectate", table_id=table_id)
    assert snapshot["game"]["ms_left"] == 30_000


async def _to_result(human: WireClient, table_id: int) -> dict[str, Any]:
    """Answer every prompt at once until the hand's result."""
    while True:
        message = await _next(human, "prompt", "hand_result")
        if message["type"] == "hand_result":
            return message
        await _act(human, table_id, message)


async def test_the_next_hand_waits_until_the_result_is_closed(mem, mock_clock) -> None:
    srv, connect, clock = mem
    human, table_id = await solo_table(connect, timers=BANKED, result_pause=60)
    game = Probe(srv, table_id)
    result = await _to_result(human, table_id)
    assert result["next_hand_ms"] == 60_000
    ended = trio.current_time()
    clock.jump(40)
    await trio.testing.wait_all_tasks_blocked()
    assert game.state is None, "dealt while the player reads the result"
    await human.ok("result_closed", table_id=table_id)
    await human.expect("event", where=lambda m: m["event"]["kind"] == "hand_start")
    assert trio.current_time() == ended + 40


async def test_the_pause_ends_the_wait_and_auto_play_does_not_hold_it(mem, mock_clock) -> None:
    srv, connect, clock = mem
    human, table_id = await solo_table(connect, timers=BANKED, result_pause=60)
    game = Probe(srv, table_id)
    await _to_result(human, table_id)
    ended = trio.current_time()
    clock.jump(59.9)
    await trio.testing.wait_all_tasks_blocked()
    assert game.state is None
    clock.jump(0.2)
    await human.expect("event", where=lambda m: m["event"]["kind"] == "hand_start")
    assert trio.current_time() == pytest.approx(ended + 60.1)
    # On auto-play the player holds nothing: the next hand follows its result at once.
    await human.ok("auto_play", table_id=table_id, on=True)
    await human.expect("hand_result", hand_number=2)
    await human.expect("event", where=lambda m: m["event"]["kind"] == "hand_start")
    assert trio.current_time() == pytest.approx(ended + 60.1)


async def test_a_player_back_from_a_drop_between_hands_does_not_hold_the_deal(
    mem, mock_clock
) -> None:
    """A client that comes back is not shown the last result again: it holds nothing."""
    _, connect, _ = mem
    human, table_id = await solo_table(connect, timers=BANKED, result_pause=60)
    await _to_result(human, table_id)
    ended = trio.current_time()
    await human.aclose()
    await trio.testing.wait_all_tasks_blocked()
    back = await connect()
    await back.ok("login", name="solo-player", password="secret-pw")
    await back.expect("event", where=lambda m: m["event"]["kind"] == "hand_start")
    assert trio.current_time() == ended


async def test_the_match_goes_through_its_phases(mem, mock_clock) -> None:
    """A decision; held for its humans (and a fresh clock once one is back); between
    hands while the result is read; over once the last human leaves."""
    srv, connect, clock = mem
    human, table_id = await solo_table(connect, timers=BANKED, result_pause=60)
    game = Probe(srv, table_id)
    play = game.play
    first = await _own_turn(human, table_id, game)
    assert play.phase is MatchPhase.DECISION
    await human.aclose()
    await _settled(lambda: play.phase is MatchPhase.WAITING_FOR_HUMANS)
    clock.jump(srv.config.abandon_grace - 1)  # the decision's clock does not run meanwhile
    await trio.testing.wait_all_tasks_blocked()
    assert not play.ended and game.seq == first["seq"]
    back = await connect()
    await back.ok("login", name="solo-player", password="secret-pw")
    again = await _next(back, "prompt")
    assert again["seq"] == first["seq"] and again["ms_left"] == first["ms_left"]
    assert play.phase is MatchPhase.DECISION
    await _act(back, table_id, again)
    await _to_result(back, table_id)
    await _settled(lambda: play.phase is MatchPhase.BETWEEN_HANDS and game.state is None)
    # Leaving between hands escapes the next hand: dealt, settled, then the match ends
    # (no human is left).
    await back.ok("leave_table", table_id=table_id)
    await _settled(lambda: play.ended)
    assert play.phase is MatchPhase.OVER and game.table.play is None
    storage = srv.store.storage
    assert storage.match(storage.match_ids()[-1]).end_reason == "abandoned"
