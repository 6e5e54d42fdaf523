"""Drops, timeouts and auto-play (docs/rules.md §2.4) on a ``MockClock`` over memory
streams: a disconnected player keeps the seat and the clocks; timeouts in a row put a
seat on auto-play, which everyone at the table sees and the player takes back; an untimed
table gives a dropped player a grace of its own; signing in again lands at the seat."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from server.conftest import Probe
from server.wireclient import WireClient

pytestmark = pytest.mark.trio

TIMERS = {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5}


async def table_of_two(connect, **settings) -> tuple[WireClient, WireClient, WireClient, int]:
    """Two players (seats 0 and 1; seat 0 deals) and two bots, and a spectator."""
    alice, bob, watcher = await connect(), await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    await watcher.register("watcher")
    table_id = await alice.create_table(**settings)
    await bob.ok("join_table", table_id=table_id)
    await alice.ok("sit", table_id=table_id, seat=0)
    await bob.ok("sit", table_id=table_id, seat=1)
    for seat in (2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="easy")
    await watcher.ok("spectate", table_id=table_id)
    await alice.ok("ready", table_id=table_id, ready=True)
    await bob.ok("ready", table_id=table_id, ready=True)
    return alice, bob, watcher, table_id


async def test_a_dropped_player_keeps_the_turn_clock(mem, mock_clock) -> None:
    srv, connect, clock = mem
    alice, _, watcher, table_id = await table_of_two(connect, timers=TIMERS)
    game = Probe(srv, table_id)
    prompt = await alice.expect("prompt")  # the dealer's first discard
    assert prompt["timer"] == "first_discard" and prompt["ms_left"] == 30_000
    await alice.aclose()  # a Wi-Fi drop
    update = await watcher.expect("presence", seat=0)
    assert update["presence"] == "offline"
    # Nothing is played for the dropped player before the clock runs out...
    steps = game.steps
    clock.jump(29.9)
    await trio.testing.wait_all_tasks_blocked()
    assert game.steps == steps, "the server played for a dropped player before its deadline"
    # ...then the timeout action, told to everyone.
    clock.jump(0.2)
    timed_out = await watcher.expect("timed_out", seat=0)
    assert timed_out["timeouts"] == 1
    discard = await watcher.expect("event", where=lambda m: m["event"].get("seat") == 0)
    assert discard["event"]["kind"] in ("discard", "win")


async def test_timeouts_in_a_row_put_the_seat_on_auto_play_until_taken_back(
    mem, mock_clock
) -> None:
    srv, connect, clock = mem
    alice, watcher = await connect(), await connect()
    await alice.register("alice")
    await watcher.register("watcher")
    table_id = await alice.create_table(timers=TIMERS, auto_play_after=2)
    await alice.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="easy")
    await watcher.ok("spectate", table_id=table_id)
    await alice.ok("ready", table_id=table_id, ready=True)
    # Alice lets every clock run out; claim windows left to run out do not count.
    counted = 0
    while counted < 2:
        prompt = await alice.expect("prompt", where=lambda m: m["seq"] == Probe(srv, table_id).seq)
        clock.jump(prompt["ms_left"] / 1000 + 0.1)
        if prompt["timer"] != "claim_window":
            counted += 1
            assert (await watcher.expect("timed_out", seat=0))["timeouts"] == counted
    # After the second the seat is on auto-play, for everyone to see.
    assert (await watcher.expect("presence", seat=0))["presence"] == "auto_play"
    assert (await alice.expect("presence", seat=0))["presence"] == "auto_play"
    snapshot = await watcher.ok("spectate", table_id=table_id)  # asking again: a resync
    assert snapshot["players"][0]["presence"] == "auto_play"
    # The player takes control back with one request.
    await alice.ok("auto_play", table_id=table_id, on=False)
    await watcher.expect("presence", seat=0, presence="online")
    assert Probe(srv, table_id).table.seats[0].timeouts == 0


@pytest.mark.slow
async def test_an_untimed_table_gives_a_dropped_player_its_own_grace(mem, mock_clock) -> None:
    srv, connect, clock = mem
    alice, _, watcher, table_id = await table_of_two(connect, offline_grace=20)
    game = Probe(srv, table_id)
    prompt = await alice.expect("prompt")
    assert "ms_left" not in prompt  # timers off: a present player has all the time
    await alice.aclose()
    await watcher.expect("presence", seat=0, presence="offline")
    steps = game.steps
    clock.jump(19.9)
    await trio.testing.wait_all_tasks_blocked()
    assert game.steps == steps
    clock.jump(0.2)
    await watcher.expect("timed_out", seat=0)


@pytest.mark.slow
async def test_signing_in_again_lands_at_the_seat_with_the_open_prompt(mem, mock_clock) -> None:
    _, connect, _ = mem
    alice, _, watcher, table_id = await table_of_two(connect, timers=TIMERS)
    first = await alice.expect("prompt")
    back = await connect()  # a new client (a restart of the program, another terminal)
    session = await back.ok("login", name="alice", password="secret-pw")
    assert session["type"] == "session"
    assert (await alice.expect("notice"))["code"] == "replaced"
    snapshot = await back.expect("snapshot")
    assert snapshot["table"]["table_id"] == table_id and snapshot["seat"] == 0
    assert len(snapshot["game"]["seats"][0]["concealed"]) == 14
    # The snapshot's clock is the prompt's, running: not a stale or missing one.
    assert 0 < snapshot["game"]["ms_left"] <= first["ms_left"]
    prompt = await back.expect("prompt")
    assert prompt["seq"] == first["seq"] and prompt["timer"] == "first_discard"
    # Joining one's own running table from the lobby returns to it too: never an escape.
    again = await back.ok("join_table", table_id=table_id)
    assert again["seat"] == 0 and "game" in again
    assert not any(m["type"] == "event" and m["event"]["kind"] == "escape" for m in watcher.seen)
