"""Coins at stake tables over real TCP with a real SQLite file (docs/rules.md §2.5-2.7): whole
matches settled to the coin, stand-ups, the shop, the table sign, levels, bad input."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgpack
import pytest
import trio

from gbmj.economy.levels import level_of
from gbmj_server.server import Server
from server.conftest import Probe, table_of
from server.wireclient import RACE_ERRORS, WireClient, simple_choice

pytestmark = pytest.mark.trio

STAKE = 10
FAST_TIMERS = {"on": True, "first_discard": 5, "turn": 3, "claim_window": 1}


async def balance(server: Server, name: str | None) -> int:
    storage = server.store.storage
    if name is None:
        return await server.store.call(storage.balance, None)
    account = await server.store.call(storage.account_by_name, name)
    return await server.store.call(storage.balance, account.id)


async def ledger_ok(server: Server) -> bool:
    return await server.store.call(server.store.storage.ledger_balanced)


async def answer(client: WireClient, table_id: int, prompt: dict[str, Any]) -> None:
    await client.send(
        {"type": "action", "table_id": table_id, "seq": prompt["seq"], **simple_choice(prompt)}
    )


async def next_message(client: WireClient) -> dict[str, Any]:
    with trio.fail_after(30):
        while not client.inbox:
            await client._fill()
    return client.inbox.pop(0)


async def play_match(
    client: WireClient,
    table_id: int,
    results: list[dict[str, Any]],
    *,
    extend: bool = False,
    escape_in_hand: int | None = None,
) -> dict[str, Any] | None:
    """Answer prompts to the match's end (its ``match_result``), collecting hand results.
    ``extend``: let the first own discard turn time out (an armed extension fires) and
    answer after it; ``escape_in_hand``: leave the table at the first prompt of that hand."""
    waiting = extend
    while True:
        message = await next_message(client)
        kind = message["type"]
        if kind == "hand_result":
            results.append(message)
        elif kind == "match_result":
            return message
        elif kind == "error":
            assert message["code"] in RACE_ERRORS, message
        elif kind == "prompt":
            if escape_in_hand is not None and escape_in_hand == len(results) + 1:
                await client.ok("leave_table", table_id=table_id)
                return None
            if waiting and message["timer"] in ("first_discard", "turn"):
                extended = await client.expect("timer_extended", timeout=10)
                assert extended["ms_left"] > 85_000
                waiting = False
            await answer(client, table_id, message)


@pytest.mark.slow
async def test_a_stake_match_moves_exactly_the_coins_spec_says(connect, server: Server) -> None:
    alice, bob = await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    house_at_start = await balance(server, None)
    table_id = await alice.create_table(stake=STAKE, timers=FAST_TIMERS)
    shop = await alice.ok("get_shop")  # bought before sitting: coins stay at the table
    price = next(o["price"] for o in shop["offers"] if o["item"] == "timer_extension")
    inventory = await alice.ok("buy", item="timer_extension", count=1)
    assert inventory["slots"] == [{"item": "timer_extension", "count": 1, "slot": 0}]
    await bob.ok("join_table", table_id=table_id)
    await alice.ok("sit", table_id=table_id, seat=0)
    await bob.ok("sit", table_id=table_id, seat=1)
    for seat in (2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await alice.ok("arm_timer_extension", table_id=table_id, armed=True)
    await bob.ok("ready", table_id=table_id, ready=True)
    await alice.ok("ready", table_id=table_id, ready=True)
    with trio.fail_after(5):
        while table_of(server, table_id).play is None:
            await trio.sleep(0.01)
    match = Probe(server, table_id).play.st.match
    seat = {name: match.seat_of(p) for p, name in enumerate(("alice", "bob"))}
    watcher = await connect()
    await watcher.ok("guest")  # a guest: no coins come into being
    snapshot = await watcher.ok("spectate", table_id=table_id)
    levels = {p["name"]: p.get("level") for p in snapshot["players"]}
    assert levels["alice"] == levels["bob"] == 1  # beside the names; bots have none
    assert [levels[n] for n in levels if n.startswith("bot")] == [None, None]

    alice_results: list[dict[str, Any]] = []
    bob_results: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(play_match, bob, table_id, bob_results, escape_in_hand=3))
        final = await play_match(alice, table_id, alice_results, extend=True)
    assert final is not None and len(alice_results) == 4
    escape = alice_results[2]
    assert escape["outcome"] == "escape" and escape["escaper"] == seat["bob"]

    # Every hand: points × stake for every seat (nobody ran short), bots included.
    for result in alice_results:
        assert result["coins"] == [p * STAKE for p in result["points"]], result
    assert escape["coins"][seat["bob"]] == -80 * STAKE
    points = {n: [r["points"][seat[n]] for r in alice_results] for n in seat}
    alice_expected = 10_000 - price - 270 + STAKE * sum(points["alice"])
    bob_expected = 10_000 + 90 + STAKE * sum(points["bob"][:3])
    assert await balance(server, "alice") == alice_expected
    assert await balance(server, "bob") == bob_expected
    # Everything else went to (or came from) the house: the total never changed.
    assert await balance(server, None) + alice_expected + bob_expected == house_at_start + 20_000
    assert await ledger_ok(server)
    standings = {s["name"]: s["coins"] for s in final["standings"]}
    assert standings["alice"] == STAKE * sum(points["alice"])

    # Ratings move by the points, never below 0; the level follows; the leaderboard too.
    rating = 0
    for p in points["alice"]:
        rating = max(0, rating + p)
    profile = [m for m in alice.seen if m["type"] == "profile"][-1]["profile"]
    assert profile["rating"] == rating and profile["level"] == level_of(rating)
    assert profile["coins"] == alice_expected
    board = await alice.ok("get_leaderboard", limit=5)
    assert {"name": "alice", "rating": rating, "level": level_of(rating)}.items() <= next(
        e for e in board["entries"] if e["name"] == "alice"
    ).items()
    levels = await alice.ok("get_levels")
    assert levels["thresholds"][:3] == [0, 100, 300] and len(levels["thresholds"]) == 37


@pytest.mark.slow
async def test_self_draws_wins_and_draws_settle_exactly(connect, server: Server) -> None:
    """Matches of one human and three bots until a self-drawn win, a win on a discard
    and a draw have all been settled; every hand checked against the ledger."""
    human = await connect()
    await human.register("solo")
    table_id = await human.create_table(stake=STAKE, rounds=2)
    await human.ok("sit", table_id=table_id, seat=0)
    for s in (1, 2, 3):
        await human.ok("add_bot", table_id=table_id, seat=s, level="easy")  # draws come often
    seen: set[str] = set()
    expected = 10_000
    for _ in range(12):  # usually two or three matches
        await human.ok("ready", table_id=table_id, ready=True)
        with trio.fail_after(5):
            while table_of(server, table_id).play is None:
                await trio.sleep(0.01)
        game = Probe(server, table_id).play
        results: list[dict[str, Any]] = []
        await play_match(human, table_id, results)
        for r, record in zip(results, game.st.match.history, strict=True):
            assert r["coins"] == [p * STAKE for p in r["points"]]
            expected += r["coins"][record.players.index(0)]  # seats change each round
            if r["outcome"] == "win":
                seen.add("self_drawn" if r.get("from_seat") is None else "discard")
            else:
                seen.add(r["outcome"])
        assert await balance(server, "solo") == expected
        assert await ledger_ok(server)
        if {"self_drawn", "discard", "exhaustive_draw"} <= seen:
            break
    assert {"self_drawn", "discard", "exhaustive_draw"} <= seen


async def test_sitting_needs_the_coins_and_guests_play_free(connect, server: Server) -> None:
    owner, guest, poor = await connect(), await connect(), await connect()
    session = await owner.register("owner")
    assert session["profile"] == {
        "name": "owner",
        "guest": False,
        "coins": 10_000,
        "rating": 0,
        "level": 1,
    }
    await poor.register("poor")
    assert (await guest.ok("guest"))["profile"]["coins"] == 0
    table_id = await owner.create_table(stake=STAKE)
    await owner.ok("sit", table_id=table_id, seat=0)
    await guest.ok("join_table", table_id=table_id)
    refused = await guest.request("sit", table_id=table_id, seat=1)
    assert refused["code"] == "guest_not_allowed"
    await server.store.call(server.store.storage.admin_adjust, "poor", -(10_000 - 999))
    await poor.ok("join_table", table_id=table_id)
    refused = await poor.request("sit", table_id=table_id, seat=2)
    assert refused["code"] == "not_enough_coins" and "1000" in refused["message"]
    table = table_of(server, table_id)
    assert table.seats[1] is None and table.seats[2] is None
    # A higher stake must be covered by everyone seated: owner has 10,000 (stake 100 ok,
    # stake 200 needs 20,000).
    settings = dict(table.settings.to_wire(), stake=200)
    refused = await owner.request("configure_table", table_id=table_id, settings=settings)
    assert refused["code"] == "not_enough_coins"
    assert table.settings.stake == STAKE
    # The level shows beside the name in the lobby.
    info = table.info()
    assert info.seats[0].level == 1 and info.seats[3].level is None


@pytest.mark.slow
@pytest.mark.parametrize("when_broke", ["bot", "pause"])
async def test_a_player_below_100_stakes_is_stood_up(connect, server: Server, when_broke) -> None:
    player, owner = await connect(), await connect()
    await player.register("shaky")
    await owner.register("host")
    await server.store.call(server.store.storage.admin_adjust, "shaky", -(10_000 - 100 * STAKE))
    table_id = await owner.create_table(stake=STAKE, rounds=4, when_broke=when_broke)
    await player.ok("join_table", table_id=table_id)
    await player.ok("sit", table_id=table_id, seat=0)
    for s in (2, 3):
        await owner.ok("add_bot", table_id=table_id, seat=s, level="normal")
    await owner.ok("sit", table_id=table_id, seat=1)  # a human stays: the match waits
    await owner.ok("ready", table_id=table_id, ready=True)
    await player.ok("ready", table_id=table_id, ready=True)
    table = table_of(server, table_id)
    await owner.ok("auto_play", table_id=table_id, on=True)  # the server plays for it
    # Play until the first hand lost: then the seat goes.
    while True:
        message = await next_message(player)
        if message["type"] == "prompt":
            await answer(player, table_id, message)
        elif message["type"] == "table_left":
            assert message["reason"] == "not_enough_coins"
            break
        elif message["type"] == "match_result":
            raise AssertionError("never lost a hand in 16")
    assert await balance(server, "shaky") < 100 * STAKE
    if when_broke == "bot":
        assert table.seats[0] is not None and table.seats[0].is_bot
        return
    assert table.seats[0] is None  # the match waits for a new player
    assert table.play is not None
    newcomer = await connect()
    await newcomer.register("newcomer")
    await newcomer.ok("join_table", table_id=table_id)
    await newcomer.ok("sit", table_id=table_id, seat=0)
    prompt = await newcomer.expect("prompt", timeout=10)  # the match goes on
    assert prompt["table_id"] == table_id
    refused = await owner.request("sit", table_id=table_id, seat=1)
    assert refused["code"] == "match_running"
    assert await ledger_ok(server)


async def test_the_owner_may_fill_a_seat_left_empty_with_a_bot(connect, server: Server) -> None:
    player, owner = await connect(), await connect()
    await player.register("brief")
    await owner.register("keeper")
    await server.store.call(server.store.storage.admin_adjust, "brief", -(10_000 - 100 * STAKE))
    table_id = await owner.create_table(stake=STAKE, rounds=4, when_broke="pause")
    await player.ok("join_table", table_id=table_id)
    await player.ok("sit", table_id=table_id, seat=0)
    await owner.ok("sit", table_id=table_id, seat=1)
    for s in (2, 3):
        await owner.ok("add_bot", table_id=table_id, seat=s, level="easy")
    await owner.ok("ready", table_id=table_id, ready=True)
    await player.ok("ready", table_id=table_id, ready=True)
    await owner.ok("auto_play", table_id=table_id, on=True)
    table = table_of(server, table_id)
    game = Probe(server, table_id).play
    while (message := await next_message(player))["type"] != "table_left":
        if message["type"] == "prompt":
            await answer(player, table_id, message)
        assert message["type"] != "match_result", "never lost a hand in 16"
    assert table.seats[0] is None
    hands = game.st.number
    refused = await owner.request("add_bot", table_id=table_id, seat=2, level="easy")
    assert refused["code"] == "match_running"  # only an empty seat, during a match
    await owner.ok("add_bot", table_id=table_id, seat=0, level="easy")
    await owner.expect("hand_result", where=lambda m: game.st.number > hands)
    storage = server.store.storage
    match = await server.store.call(storage.match, game.st.match_id)
    holders = [p for p in match.players if p.slot == 0]
    assert holders[0].left_reason == "not_enough_coins"  # the new holder is on record
    assert holders[-1].bot_level == "easy" and holders[-1].left_reason is None


async def test_shop_refusals_change_nothing(connect, server: Server) -> None:
    client, guest = await connect(), await connect()
    await client.register("buyer")
    await guest.ok("guest")
    refused = await client.request("buy", item="tile_counter", count=99)  # 79,200 coins
    assert refused["code"] == "not_enough_coins"
    assert (await client.ok("get_inventory"))["slots"] == []
    assert await balance(server, "buyer") == 10_000
    assert (await guest.request("buy", item="tile_counter", count=1))["code"] == (
        "guest_not_allowed"
    )
    for bad in ({"item": "tile_counter", "count": -1}, {"item": "diamond", "count": 1}):
        body = msgpack.packb({"type": "buy", "id": 99, **bad})
        await client.send_raw(len(body).to_bytes(4, "big") + body)
        assert (await client.expect("error"))["code"] == "out_of_range"
    table_id = await client.create_table()
    await client.ok("sit", table_id=table_id, seat=0)
    refused = await client.request("arm_timer_extension", table_id=table_id, armed=True)
    assert refused["code"] == "no_such_item"
    refused = await client.request("use_tile_counter", table_id=table_id)
    assert refused["code"] == "not_expected"  # no hand in play
    assert await balance(server, "buyer") == 10_000 and await ledger_ok(server)


async def test_a_table_sign_renames_and_protects_the_name(connect, server: Server) -> None:
    owner, watcher = await connect(), await connect()
    await owner.register("signer")
    await watcher.register("watcher")
    await watcher.ok("watch_lobby", on=True)
    table_id = await owner.create_table(name="old name")
    table = table_of(server, table_id)
    settings = table.settings.to_wire()
    refused = await owner.request(
        "configure_table", table_id=table_id, settings=dict(settings, name="new name")
    )
    assert refused["code"] == "no_such_item" and table.settings.name == "old name"
    # Other settings need no sign.
    await owner.ok("configure_table", table_id=table_id, settings=dict(settings, rounds=2))
    await owner.ok("buy", item="table_sign", count=1)
    await owner.ok(
        "configure_table", table_id=table_id, settings=dict(settings, rounds=2, name="new name")
    )
    await watcher.expect(
        "lobby_update",
        where=lambda m: [t["settings"]["name"] for t in m["tables"]] == ["new name"],
    )
    assert (await owner.ok("get_inventory"))["slots"] == []
    await owner.ok("buy", item="table_sign", count=1)
    refused = await owner.request(
        "configure_table", table_id=table_id, settings=dict(settings, name="newer name")
    )
    assert refused["code"] == "name_protected" and table.settings.name == "new name"
    assert (await owner.ok("get_inventory"))["slots"] == [
        {"item": "table_sign", "count": 1, "slot": 0}
    ]
