"""Prop items at the table (docs/rules.md §2.6): the timer extension on a ``MockClock`` over memory
streams (the clock moves only when a test jumps it), the tile counter, the random item of
a win, and refusals."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, Probe, start
from server.wireclient import WireClient, memory_connect, play, seat_four, simple_choice, solo_table

pytestmark = pytest.mark.trio

TIMERS = {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5}


async def account_of(srv: Server, name: str) -> int:
    account = await srv.store.call(srv.store.storage.account_by_name, name)
    return account.id


async def coins(srv: Server, account_id: int | None) -> int:
    return await srv.store.call(srv.store.storage.balance, account_id)


async def items(srv: Server, account_id: int, item: str) -> int:
    return await srv.store.call(srv.store.storage.item_count, account_id, item)


async def open_prompt(human: WireClient, srv: Server, table_id: int, timers: set[str]) -> dict:
    """The next prompt still open whose timer is one of ``timers``; other prompts are
    answered at once (without the clock moving)."""
    game = Probe(srv, table_id)
    for _ in range(2000):
        prompt = await human.expect("prompt")
        if prompt["seq"] != game.seq or 0 not in game.to_act():
            continue  # an old prompt
        if prompt["timer"] in timers:
            return prompt
        reply = await human.request(
            "action", table_id=table_id, seq=prompt["seq"], **simple_choice(prompt)
        )
        assert reply["type"] == "ok" or reply["code"] in ("stale", "not_your_turn"), reply
    raise AssertionError(f"no {timers} prompt")


@pytest.mark.slow
async def test_timer_extension_fires_on_a_discard_turn_timeout_only(mem, mock_clock) -> None:
    srv, connect, _ = mem
    clock = mock_clock
    human, table_id = await solo_table(connect, "ext-player", timers=TIMERS, auto_play_after=10)
    me = await account_of(srv, "ext-player")
    game = Probe(srv, table_id)
    await srv.store.call(srv.store.storage.give_item, me, "timer_extension", 2)
    house = await coins(srv, None)

    prompt = await open_prompt(human, srv, table_id, {"first_discard"})
    await human.ok("arm_timer_extension", table_id=table_id, armed=True)
    again = await human.request("arm_timer_extension", table_id=table_id, armed=True)
    assert again["code"] == "already_armed"
    steps = game.steps
    clock.jump(30 - 0.1)
    await trio.testing.wait_all_tasks_blocked()
    assert game.steps == steps
    clock.jump(0.2)
    extended = await human.expect("timer_extended")
    assert extended["seat"] == 0 and 89_000 <= extended["ms_left"] <= 90_000
    assert game.play.deadlines[0] == pytest.approx(trio.current_time() + 89.9)
    assert await coins(srv, me) == 10_000 - 270
    assert await coins(srv, None) == house + 270  # three bots' shares go to the house
    assert await items(srv, me, "timer_extension") == 1  # used up: one of two
    again = await human.expect("prompt", where=lambda m: m["seq"] == prompt["seq"])
    assert again["ms_left"] > 80_000  # asked again with the new time left
    clock.jump(89.8)
    await trio.testing.wait_all_tasks_blocked()
    assert game.steps == steps, "the server acted before the extended deadline"
    clock.jump(0.2)
    event = await human.expect("event", where=lambda m: m["event"]["kind"] in ("discard", "win"))
    assert event["event"]["seat"] == 0

    # A claim window's timeout never fires it.
    await human.ok("arm_timer_extension", table_id=table_id, armed=True)
    claim = await open_prompt(human, srv, table_id, {"claim_window"})
    clock.jump(5.1)
    with trio.fail_after(5):
        while game.seq == claim["seq"] and 0 in game.to_act():
            await trio.sleep(0)
    assert await items(srv, me, "timer_extension") == 1
    assert not any(m["type"] == "timer_extended" for m in human.inbox)

    # The next own turn that times out fires it; then none is left to arm.
    await open_prompt(human, srv, table_id, {"turn"})
    clock.jump(15.1)
    await human.expect("timer_extended")
    assert await items(srv, me, "timer_extension") == 0
    assert await coins(srv, me) == 10_000 - 540
    assert (await human.request("arm_timer_extension", table_id=table_id, armed=True))[
        "code"
    ] == "no_such_item"
    assert await srv.store.call(srv.store.storage.ledger_balanced)


async def test_timer_extension_does_not_fire_without_the_coins(mem, mock_clock) -> None:
    srv, connect, _ = mem
    human, table_id = await solo_table(connect, "poor-player", timers=TIMERS, auto_play_after=10)
    me = await account_of(srv, "poor-player")
    await srv.store.call(srv.store.storage.give_item, me, "timer_extension", 1)
    await srv.store.call(srv.store.storage.admin_adjust, "poor-player", -(10_000 - 269))
    prompt = await open_prompt(human, srv, table_id, {"first_discard"})
    await human.ok("arm_timer_extension", table_id=table_id, armed=True)
    mock_clock.jump(30.1)
    event = await human.expect("event", where=lambda m: m["event"]["kind"] in ("discard", "win"))
    assert event["seq"] == prompt["seq"] + 1  # the timeout action, at the first deadline
    assert not any(m["type"] == "timer_extended" for m in human.seen)
    assert await coins(srv, me) == 269
    assert await items(srv, me, "timer_extension") == 1


def counts_from_state(state: Any, seat: int) -> tuple[int, ...]:
    """Unseen counts straight from the engine's state (not from a view)."""
    seen: Counter[int] = Counter(int(t) for t in state.concealed(seat))
    for s in range(4):
        seen.update(int(t) for t in state.discards(s))
        for meld in state.melds(s):
            if meld.concealed and s != seat:
                continue  # face down to this seat
            seen.update(int(t) for t in meld.tiles)
    return tuple(4 - seen[t] for t in range(34))


@pytest.mark.slow
async def test_the_tile_counter_counts_for_its_user_only(mem, mock_clock) -> None:
    srv, connect, _ = mem
    human, table_id = await solo_table(connect, "counter-player")
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    me = await account_of(srv, "counter-player")
    game = Probe(srv, table_id)
    message = await human.expect("prompt")
    missing = await human.request("use_tile_counter", table_id=table_id)
    assert missing["code"] == "no_such_item"
    assert (await watcher.request("use_tile_counter", table_id=table_id))["code"] == "not_seated"
    await srv.store.call(srv.store.storage.give_item, me, "tile_counter", 1)
    reply = await human.ok("use_tile_counter", table_id=table_id)
    assert reply["type"] == "tile_counts"
    state = game.state
    assert len(state.concealed(0)) == 14  # the dealer's hand, the drawn tile included
    assert tuple(reply["counts"]) == counts_from_state(state, 0)
    assert await items(srv, me, "tile_counter") == 0
    twice = await human.request("use_tile_counter", table_id=table_id)
    assert twice["code"] == "not_expected"

    # Through the hand: at each of our turns, the last counts sent match the state.
    checked = 0
    latest = tuple(reply["counts"])
    while checked < 6:
        for seen in human.seen:
            if seen["type"] == "tile_counts":
                latest = tuple(seen["counts"])
        if game.state is not state or state.ended:
            break
        if message["seq"] == game.seq and message["timer"] != "claim_window":
            assert latest == counts_from_state(state, 0)
            checked += 1
        await human.request(
            "action", table_id=table_id, seq=message["seq"], **simple_choice(message)
        )
        message = await human.expect("prompt")  # the next hand's, if this one ended
    assert checked >= 2
    updates = [m for m in human.seen if m["type"] == "tile_counts"]
    assert len(updates) > 2
    await watcher.ok("ping")  # everything sent to the watcher before this is in
    assert not any(m["type"] == "tile_counts" for m in watcher.seen)


class _AlwaysDrop(random.Random):
    """Item drops decided by this RNG always happen (chance 0.0 < 20%)."""

    def random(self) -> float:
        return 0.0


@pytest.mark.slow
async def test_a_win_drops_an_item_to_the_winner_only(tmp_path: Path) -> None:
    # b"drop-29" deals a first hand that one of four simple players wins.
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, TEST_CONFIG, match_seed=b"drop-29", rng=_AlwaysDrop(1))
    async with trio.open_nursery() as nursery:  # the server's tasks end before the file closes
        await start(nursery, srv, listen=False)

        clients, table_id = await seat_four(memory_connect(srv, nursery), rounds=1)
        results: list[list[dict[str, Any]]] = [[] for _ in range(4)]

        async def run(i: int) -> None:
            results[i] = await play(clients[i], table_id, until="hand_result")

        async with trio.open_nursery() as players:
            for i in range(4):
                players.start_soon(run, i)
        result = results[0][0]
        assert result["outcome"] == "win"
        seat_of = [
            next(m["seat"] for m in c.seen if m["type"] == "snapshot" and "game" in m)
            for c in clients
        ]
        for client, seat in zip(clients, seat_of, strict=True):
            awarded = [m for m in client.seen if m["type"] == "item_awarded"]
            slots = (await client.ok("get_inventory"))["slots"]
            if seat == result["winner"]:
                assert len(awarded) == 1 and awarded[0]["count"] == 1
                assert slots == [{"item": awarded[0]["item"], "count": 1, "slot": 0}]
            else:
                assert awarded == [] and slots == []
        nursery.cancel_scope.cancel()
    assert storage.ledger_balanced()
    storage.close()
