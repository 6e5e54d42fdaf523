"""What a match costs and reports, over real TCP with a real SQLite file (docs/rules.md
§2.4-2.6): every escape is paid, by the last human to leave as by the first, and after a
restart too; the escaper's client hears its new coins; coins stay at a stake table while
its players are seated, and every player covers the stake when each hand is dealt; every
match at a table starts from zero. Each test checks the ledger: no coin created or lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj.game.match import Match
from gbmj_server.server import Server
from gbmj_server.storage import MatchRecord, Storage
from gbmj_server.storage.matches import ActionRow, PlayerJoined, PlayerLeft
from gbmj_server.storage.passwords import hash_password
from protocol import messages as m
from server.conftest import TEST_CONFIG, Probe, start
from server.test_coins import answer, balance, ledger_ok, next_message
from server.wireclient import RACE_ERRORS, WireClient, solo_table

pytestmark = pytest.mark.trio

STAKE = 10
PENALTY = 80 * STAKE  # an escape's coins (§2.4)
SETTINGS = {  # of the tests' tables (the wire client names them)
    "stake": STAKE,
    "rounds": 1,
    "bots_allowed": True,
    "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
}


async def play_then_leave(
    client: WireClient, table_id: int, *, after_escape: bool = False
) -> list[dict[str, Any]]:
    """Answer prompts and leave the table at the first prompt (with ``after_escape``, the
    first after another player's escape was settled: a prompt of a later hand): the hand
    results seen before leaving."""
    results: list[dict[str, Any]] = []
    while True:
        message = await next_message(client)
        kind = message["type"]
        if kind == "hand_result":
            results.append(message)
        elif kind == "match_result":
            raise AssertionError("the match ended before this player left")
        elif kind == "error":
            assert message["code"] in RACE_ERRORS, message
        elif kind == "prompt":
            if not after_escape or any(r["outcome"] == "escape" for r in results):
                await client.ok("leave_table", table_id=table_id)
                return results
            await answer(client, table_id, message)


async def two_humans_at_a_stake_table(
    server: Server, alice: WireClient, bob: WireClient
) -> tuple[int, Probe]:
    """Alice's stake table, alice at seat 0, bob at 1, two bots, both ready: the match
    running."""
    table_id = await alice.create_table(**SETTINGS)
    await bob.ok("join_table", table_id=table_id)
    await alice.ok("sit", table_id=table_id, seat=0)
    await bob.ok("sit", table_id=table_id, seat=1)
    for seat in (2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await alice.ok("ready", table_id=table_id, ready=True)
    await bob.ok("ready", table_id=table_id, ready=True)
    probe = Probe(server, table_id)
    with trio.fail_after(10):
        while probe.table.play is None:
            await trio.sleep(0.01)
    return table_id, probe


async def pushed_coins(client: WireClient, coins: int) -> None:
    """The client is told its coins (a ``profile`` pushed by the server)."""
    await client.expect("profile", where=lambda p: p["profile"]["coins"] == coins)


async def match_record(server: Server, match_id: int | None) -> MatchRecord:
    assert match_id is not None
    record = await server.store.call(server.store.storage.match, match_id)
    assert record is not None
    return record


# -- every escape is paid --------------------------------------------------------------


async def test_the_last_human_to_leave_pays_the_escape(connect, server: Server) -> None:
    """A lone player with three bots leaves mid-hand: the hand ends with the escape and
    is settled (80 × stake to the house) before the match ends as abandoned; their
    client is told the new coins."""
    house = await balance(server, None)
    alice, table_id = await solo_table(connect, "alice", **SETTINGS)
    probe = Probe(server, table_id)
    with trio.fail_after(10):
        while probe.table.play is None:
            await trio.sleep(0.01)
    game = probe.play
    mine = game.st.match.seat_of(0)
    before = await play_then_leave(alice, table_id)  # at the first prompt: in a hand
    expected = 10_000 + sum(r["coins"][mine] for r in before) - PENALTY
    await pushed_coins(alice, expected)
    assert await balance(server, "alice") == expected
    assert await balance(server, None) == house - expected  # the house paid her 10,000
    assert await ledger_ok(server)
    with trio.fail_after(10):
        while probe.open and probe.table.play is not None:
            await trio.sleep(0.01)
    record = await match_record(server, game.st.match_id)
    assert record.end_reason == "abandoned"
    (escaped,) = [s for s in record.standings if s["name"] == "alice"]
    assert escaped["coins"] == expected - 10_000 and escaped["left"] == "left"
    hands = await server.store.call(server.store.storage.hands, game.st.match_id)
    assert [h.result["outcome"] for h in hands][-1] == "escape"
    assert len(hands) == len(before) + 1


async def test_each_of_two_humans_pays_their_escape(connect, server: Server) -> None:
    """Bob leaves first, alice (then the last human) after him: both pay, both are told."""
    alice, bob = await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    house = await balance(server, None)
    table_id, probe = await two_humans_at_a_stake_table(server, alice, bob)
    game = probe.play
    seat = {"alice": game.st.match.seat_of(0), "bob": game.st.match.seat_of(1)}
    seen: dict[str, list[dict[str, Any]]] = {}

    async def bob_plays() -> None:
        seen["bob"] = await play_then_leave(bob, table_id)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bob_plays)
        seen["alice"] = await play_then_leave(alice, table_id, after_escape=True)
    # Alice heard every hand up to her leaving, bob's escape among them.
    hands = seen["alice"]
    (escape,) = [i for i, r in enumerate(hands) if r["outcome"] == "escape"]
    assert hands[escape]["escaper"] == seat["bob"]
    assert hands[escape]["coins"][seat["bob"]] == -PENALTY
    expected = {
        "bob": 10_000 + sum(r["coins"][seat["bob"]] for r in hands[: escape + 1]),
        # her own escape last, which she no longer hears of
        "alice": 10_000 + sum(r["coins"][seat["alice"]] for r in hands) - PENALTY,
    }
    await pushed_coins(alice, expected["alice"])
    await pushed_coins(bob, expected["bob"])
    assert await balance(server, "alice") == expected["alice"]
    assert await balance(server, "bob") == expected["bob"]
    assert await balance(server, None) == house + 20_000 - sum(expected.values())
    assert await ledger_ok(server)
    with trio.fail_after(10):
        while probe.open and probe.table.play is not None:
            await trio.sleep(0.01)
    record = await match_record(server, game.st.match_id)
    assert record.end_reason == "abandoned"
    left = {s["name"]: s["coins"] for s in record.standings if s.get("left") == "left"}
    assert left == {name: coins - 10_000 for name, coins in expected.items()}


async def test_an_escape_written_before_a_restart_is_paid_after_it(tmp_path: Path) -> None:
    """The server stopped after writing a lone player's escape and before settling the
    hand: once restarted, the hand is settled (the escaper pays) and the match, with no
    human left, ends as abandoned."""
    storage = Storage(tmp_path / "gbmj.sqlite3")
    alice = storage.create_account("alice", hash_password("secret-pw"))
    house = storage.balance(None)
    seed = b"\x07" * 32
    match = Match(seed, 1)
    hand = match.start_hand()
    slot = 0
    settings = m.TableSettings.from_wire({"name": "test table", **SETTINGS}).to_wire()
    players = [PlayerJoined(0, 0, slot, alice.id, "alice")] + [
        PlayerJoined(0, n, n, None, f"bot-{n + 1}", bot_level="normal") for n in (1, 2, 3)
    ]
    match_id = storage.start_match(7, "test table", settings, seed, "alice", False, "", players)
    escape_seat = match.seat_of(slot)
    storage.journal(
        [
            ActionRow(match_id, 1, 0, hand.dealer, "deal", None, 0, 10),
            PlayerLeft(match_id, 0, "left"),
            PlayerJoined(match_id, 4, slot, None, "bot-1", bot_level="hard"),
            ActionRow(match_id, 1, len(hand.log) + 1, escape_seat, "escape", None, 900, 12),
        ]
    )
    server = Server(storage, TEST_CONFIG)
    async with trio.open_nursery() as nursery:
        running = await start(nursery, server)
        try:
            assert server.resumed == 1
            with trio.fail_after(10):
                while await server.store.call(lambda: storage.match(match_id).ended_at) is None:
                    await trio.sleep(0.01)
        finally:
            await running.stop()
    try:
        record = storage.match(match_id)
        assert record.end_reason == "abandoned"
        assert [h.result["outcome"] for h in storage.hands(match_id)] == ["escape"]
        assert storage.balance(alice.id) == 10_000 - PENALTY
        assert storage.balance(None) == house + PENALTY
        assert storage.ledger_balanced()
    finally:
        storage.close()


# -- every match starts from zero ------------------------------------------------------


@pytest.mark.slow
async def test_every_match_at_a_table_starts_from_zero(connect, server: Server) -> None:
    """Two matches in a row at one table: each one's standings (in ``match_result`` and
    in the stored history) are the sums of that match's own hands."""
    alice, table_id = await solo_table(connect, "alice", **SETTINGS)
    start_coins = await balance(server, "alice")
    for match_no in range(2):
        if match_no:
            await alice.ok("ready", table_id=table_id, ready=True)  # the next match
        results: list[dict[str, Any]] = []
        while True:
            message = await next_message(alice)
            kind = message["type"]
            if kind == "hand_result":
                results.append(message)
            elif kind == "match_result":
                final = message
                break
            elif kind == "error":
                assert message["code"] in RACE_ERRORS, message
            elif kind == "prompt":
                await answer(alice, table_id, message)
        standings = final["standings"]
        assert len(standings) == 4 and not any(s.get("left") for s in standings)
        for s in standings:  # one round: everyone keeps their seat for the match
            assert s["points"] == sum(r["points"][s["seat"]] for r in results), s
            assert s["coins"] == sum(r["coins"][s["seat"]] for r in results), s
        detail = await alice.ok("get_match", match_id=final["match_id"])
        stored = {s["name"]: (s["points"], s["coins"]) for s in detail["standings"]}
        assert stored == {s["name"]: (s["points"], s["coins"]) for s in standings}
        mine = next(s for s in standings if s["name"] == "alice")
        assert await balance(server, "alice") == start_coins + mine["coins"]
        assert await ledger_ok(server)
        start_coins += mine["coins"]


# -- coins stay at a stake table, and cover every deal ---------------------------------


@pytest.mark.slow
async def test_no_purchase_while_seated_at_a_stake_table(connect, server: Server) -> None:
    """Ready, then spend: refused (``coins_at_stake``) from the moment of sitting, before
    the match as during it; standing up, a spectator and a free table buy freely."""
    alice, bob = await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    table_id = await alice.create_table(**SETTINGS)
    await alice.ok("sit", table_id=table_id, seat=0)
    await alice.ok("ready", table_id=table_id, ready=True)  # 10,000 covers 1,000
    # 12 tile counters would leave her 400: below the stake she was checked for.
    refused = await alice.request("buy", item="tile_counter", count=12)
    assert refused["code"] == "coins_at_stake", refused
    assert await balance(server, "alice") == 10_000
    assert (await alice.ok("get_inventory"))["slots"] == []
    await bob.ok("join_table", table_id=table_id)
    await bob.ok("sit", table_id=table_id, seat=1)
    refused = await bob.request("buy", item="table_sign", count=1)  # not ready: the same
    assert refused["code"] == "coins_at_stake"
    await bob.ok("stand", table_id=table_id)
    await bob.ok("buy", item="table_sign", count=1)  # a spectator here buys
    free = await connect()
    await free.register("carol")
    free_table = await free.create_table(**{**SETTINGS, "stake": 0})
    await free.ok("sit", table_id=free_table, seat=0)
    await free.ok("buy", item="table_sign", count=1)  # a free table holds no coins
    for seat in (1, 2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await alice.expect("prompt")  # the match runs
    refused = await alice.request("buy", item="tile_counter", count=1)
    assert refused["code"] == "coins_at_stake"
    assert await balance(server, "alice") == 10_000
    assert await ledger_ok(server)


@pytest.mark.slow
@pytest.mark.parametrize("when_broke", ["bot", "pause"])
async def test_every_human_covers_the_stake_when_a_hand_is_dealt(
    connect, server: Server, when_broke: str
) -> None:
    """Coins gone after ``ready`` (here the host takes them): at the deal the player is
    stood up, everyone at the table is told who, and no hand is dealt to them."""
    alice, bob, watcher = await connect(), await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    await watcher.ok("guest")
    table_id = await alice.create_table(**SETTINGS, when_broke=when_broke)
    await bob.ok("join_table", table_id=table_id)
    await watcher.ok("spectate", table_id=table_id)
    await alice.ok("sit", table_id=table_id, seat=0)
    await bob.ok("sit", table_id=table_id, seat=1)
    for seat in (2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await alice.ok("ready", table_id=table_id, ready=True)
    storage = server.store.storage
    await server.store.call(storage.admin_adjust, "alice", -(10_000 - 400))
    house = await balance(server, None)
    await bob.ok("ready", table_id=table_id, ready=True)  # the match starts
    for client in (alice, bob, watcher):
        told = await client.expect("stood_up", table_id=table_id)
        assert told["name"] == "alice" and told["need"] == 100 * STAKE
    assert (await alice.expect("table_left"))["reason"] == "not_enough_coins"
    assert not any(msg["type"] == "event" for msg in alice.seen)  # dealt nothing
    table = Probe(server, table_id).table
    if when_broke == "bot":
        assert table.seats[0] is not None and table.seats[0].is_bot
        await bob.expect("prompt")  # the match goes on without her
    else:
        assert table.seats[0] is None and table.play is not None
        assert Probe(server, table_id).state is None  # waiting for a player, no deal
    assert await balance(server, "alice") == 400
    assert await balance(server, None) == house
    assert await ledger_ok(server)


async def test_leaving_between_two_hands_escapes_the_next_one(connect, server: Server) -> None:
    """Alice leaves while the others still read a hand's result: the next hand is dealt at
    once and ends in her escape (80 × stake to the house), so the pause between hands is
    no way out of the penalty; the match goes on without her."""
    alice, bob = await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    table_id, probe = await two_humans_at_a_stake_table(server, alice, bob)
    game = probe.play
    mine = game.st.match.seat_of(0)
    first: dict[str, Any] = {}

    async def bob_plays() -> None:  # answers his prompts until alice is gone
        while True:
            message = await next_message(bob)
            if message["type"] == "prompt":
                await answer(bob, table_id, message)
            elif message["type"] == "hand_result" and message["outcome"] == "escape":
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bob_plays)
        while not first:
            message = await next_message(alice)
            if message["type"] == "prompt":
                await answer(alice, table_id, message)
            elif message["type"] == "hand_result":
                first.update(message)
        assert game.st.hand is None  # settled; bob has not closed the result
        await alice.ok("leave_table", table_id=table_id)
    expected = 10_000 + first["coins"][mine] - PENALTY
    await pushed_coins(alice, expected)
    assert await balance(server, "alice") == expected
    assert await ledger_ok(server)
    hands = await server.store.call(server.store.storage.hands, game.st.match_id)
    assert [h.result["outcome"] for h in hands][1] == "escape"
    assert hands[1].result["points"][mine] == -80
    assert probe.table.play is game and not game.ended  # bob plays on
