"""The gold sign (金字招牌), gems and the inventory's slots over the real server
(docs/rules.md §2.6), with the coins and the ledger checked."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from gbmj.economy.items import GEMS
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, start, table_of
from server.test_coins import balance, ledger_ok
from server.wireclient import WireClient, play, seat_four

pytestmark = pytest.mark.trio

HOUR = 3600.0


async def test_a_gold_sign_protects_the_new_name_for_24_hours(mem, mock_clock) -> None:
    """Bought for its price (to the house), a gold sign renames the table and protects
    the name 24 hours: a table sign cannot rename it in the meantime, and can after."""
    srv, connect, clock = mem
    owner = await connect()
    await owner.register("signer")
    table_id = await owner.create_table(name="old name")
    table = table_of(srv, table_id)
    settings = table.settings.to_wire()
    renamed = {"table_id": table_id, "settings": dict(settings, name="golden")}
    refused = await owner.request("configure_table", sign="gold_sign", **renamed)
    assert refused["code"] == "no_such_item" and table.settings.name == "old name"
    refused = await owner.request("configure_table", sign="tile_counter", **renamed)
    assert refused["code"] == "out_of_range" and table.settings.name == "old name"
    shop = {o["item"]: o["price"] for o in (await owner.ok("get_shop"))["offers"]}
    house = await balance(srv, None)
    await owner.ok("buy", item="gold_sign", count=1)
    assert await balance(srv, "signer") == 10_000 - shop["gold_sign"]
    assert await balance(srv, None) == house + shop["gold_sign"]
    await owner.ok("configure_table", sign="gold_sign", **renamed)
    assert table.settings.name == "golden"
    assert (await owner.ok("get_inventory"))["slots"] == []
    await owner.ok("buy", item="table_sign", count=1)
    again = {"table_id": table_id, "settings": dict(settings, name="plain")}
    clock.jump(24 * HOUR - 60)
    await trio.testing.wait_all_tasks_blocked()
    refused = await owner.request("configure_table", **again)
    assert refused["code"] == "name_protected" and table.settings.name == "golden"
    assert (await owner.ok("get_inventory"))["slots"] == [
        {"item": "table_sign", "count": 1, "slot": 0}
    ]
    clock.jump(120)
    await owner.ok("configure_table", **again)
    assert table.settings.name == "plain"
    # The table sign's own protection is an hour.
    clock.jump(HOUR - 60)
    account = await srv.store.call(srv.store.storage.account_by_name, "signer")
    await srv.store.call(srv.store.storage.give_item, account.id, "gold_sign")
    refused = await owner.request("configure_table", sign="gold_sign", **renamed)
    assert refused["code"] == "name_protected"
    clock.jump(120)
    await owner.ok("configure_table", sign="gold_sign", **renamed)
    assert table.settings.name == "golden"
    assert await ledger_ok(srv)


class AlwaysDrop(random.Random):
    """Drops decided by this generator always happen (every chance is 0.0)."""

    def random(self) -> float:
        return 0.0


async def tcp_server(nursery: trio.Nursery, tmp_path: Path, **config: Any) -> Server:
    """A server on a loopback port with these host settings; every drop happens."""
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, replace(TEST_CONFIG, **config), rng=AlwaysDrop(7))
    await start(nursery, srv)
    return srv


async def tcp_connect(srv: Server) -> WireClient:
    assert srv.port is not None
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await client.hello()
    return client


async def give(srv: Server, name: str, item: str) -> None:
    account = await srv.store.call(srv.store.storage.account_by_name, name)
    await srv.store.call(srv.store.storage.give_item, account.id, item)


async def rating(srv: Server, name: str) -> int:
    account = await srv.store.call(srv.store.storage.account_by_name, name)
    return await srv.store.call(srv.store.storage.rating, account.id)


async def four_play_a_match(srv: Server) -> tuple[list[WireClient], dict[str, Any]]:
    """Four players play a one-round match to its end: the clients and the result."""
    clients, table_id = await seat_four(lambda: tcp_connect(srv), rounds=1)
    ends: list[dict[str, Any]] = []

    async def run(client: WireClient) -> None:
        await play(client, table_id)
        ends.append(next(m for m in client.seen if m["type"] == "match_result"))

    async with trio.open_nursery() as players:
        for client in clients:
            players.start_soon(run, client)
    return clients, ends[0]


async def test_moving_items_between_slots(nursery: trio.Nursery, tmp_path: Path) -> None:
    """The inventory lists each stack with its slot; a move goes to an empty slot or
    swaps with what is there; bad moves are refused and change nothing."""
    srv = await tcp_server(nursery, tmp_path, inventory_slots=8)
    alice = await tcp_connect(srv)
    await alice.register("alice")
    await give(srv, "alice", "tile_counter")
    await give(srv, "alice", "gem")
    held = await alice.ok("get_inventory")
    assert held["capacity"] == 8
    assert held["slots"] == [
        {"item": "tile_counter", "count": 1, "slot": 0},
        {"item": "gem", "count": 1, "slot": 1},
    ]
    moved = await alice.ok("move_item", from_slot=0, to_slot=5)
    assert moved["slots"] == [
        {"item": "gem", "count": 1, "slot": 1},
        {"item": "tile_counter", "count": 1, "slot": 5},
    ]
    swapped = await alice.ok("move_item", from_slot=1, to_slot=5)
    assert swapped["slots"] == [
        {"item": "tile_counter", "count": 1, "slot": 1},
        {"item": "gem", "count": 1, "slot": 5},
    ]
    for bad, code in (((0, 2), "no_such_item"), ((1, 8), "out_of_range")):
        refused = await alice.request("move_item", from_slot=bad[0], to_slot=bad[1])
        assert refused["code"] == code
    assert (await alice.ok("get_inventory"))["slots"] == swapped["slots"]
    guest = await tcp_connect(srv)
    await guest.ok("guest")
    refused = await guest.request("move_item", from_slot=0, to_slot=1)
    assert refused["code"] == "guest_not_allowed"


async def test_gems_add_rating_up_to_the_cap(nursery: trio.Nursery, tmp_path: Path) -> None:
    """Each gem adds its points and takes its own slot (no stacking); at the host's cap a
    gem is refused (the cap in the inventory), and the gem is kept; gems are not sold."""
    srv = await tcp_server(nursery, tmp_path, gem_cap=110)
    alice = await tcp_connect(srv)
    await alice.register("alice")
    offers = {o["item"] for o in (await alice.ok("get_shop"))["offers"]}
    assert offers.isdisjoint(GEMS) and {"gold_sign", "table_sign"} <= offers
    assert (await alice.request("buy", item="gem", count=1))["code"] == "no_such_item"
    assert (await alice.request("use_item", item="gem"))["code"] == "no_such_item"
    for gem in ("gem_shard", "gem_shard", "gem", "perfect_gem"):
        await give(srv, "alice", gem)
    held = await alice.ok("get_inventory")
    assert held["gem_cap"] == 110 and len(held["slots"]) == 4  # one slot each
    await alice.ok("use_item", item="gem_shard")
    await alice.expect("profile", where=lambda p: p["profile"]["rating"] == 1)
    await alice.ok("use_item", item="perfect_gem")
    assert await rating(srv, "alice") == 101
    await alice.ok("use_item", item="gem")
    assert await rating(srv, "alice") == 111
    refused = await alice.request("use_item", item="gem_shard")
    assert refused["code"] == "rating_capped" and "110" in refused["message"]
    assert await rating(srv, "alice") == 111
    assert (await alice.ok("get_inventory"))["slots"] == [
        {"item": "gem_shard", "count": 1, "slot": 0}
    ]
    assert (await alice.request("use_item", item="tile_counter"))["code"] == "not_expected"


@pytest.mark.slow
async def test_finishing_first_drops_a_gem(nursery: trio.Nursery, tmp_path: Path) -> None:
    """Whoever finishes a match first gets a gem (here every drop happens); the others
    get none; the gem takes a slot of its own."""
    srv = await tcp_server(nursery, tmp_path)
    clients, end = await four_play_a_match(srv)
    firsts = {s["name"] for s in end["standings"] if s["rank"] == 1}
    assert end["reason"] == "finished" and firsts
    for i, client in enumerate(clients):
        name = f"player{i}"
        slots = (await client.ok("get_inventory"))["slots"]
        gems = [s for s in slots if s["item"] in GEMS]
        if name in firsts:
            award = await client.expect("item_awarded", where=lambda m: m["item"] in GEMS)
            assert "lost" not in award
            assert [s["item"] for s in gems] == [award["item"]] and gems[0]["count"] == 1
        else:
            assert gems == []
    assert await ledger_ok(srv)


@pytest.mark.slow
async def test_a_full_inventory_keeps_no_drop(nursery: trio.Nursery, tmp_path: Path) -> None:
    """With one slot, held by a gem (not stackable), every drop of the match, the gem of
    first place included, is told as lost and the inventory does not change."""
    srv = await tcp_server(nursery, tmp_path, inventory_slots=1)
    clients = [await tcp_connect(srv) for _ in range(4)]
    for i, client in enumerate(clients):
        await client.register(f"player{i}")
        await give(srv, f"player{i}", "perfect_gem")
    table_id = await clients[0].create_table(rounds=1)
    for client in clients[1:]:
        await client.ok("join_table", table_id=table_id)
    for i, client in enumerate(clients):
        await client.ok("sit", table_id=table_id, seat=i)
    for client in clients:
        await client.ok("ready", table_id=table_id, ready=True)
    async with trio.open_nursery() as players:
        for client in clients:
            players.start_soon(play, client, table_id)
    end = next(m for m in clients[0].seen if m["type"] == "match_result")
    firsts = {s["name"] for s in end["standings"] if s["rank"] == 1}
    for i, client in enumerate(clients):
        if f"player{i}" in firsts:
            await client.expect("item_awarded", where=lambda m: m["item"] in GEMS)
        awards = [m for m in client.seen if m["type"] == "item_awarded"]
        assert all(a["lost"] is True for a in awards)
        slots = (await client.ok("get_inventory"))["slots"]
        assert slots == [{"item": "perfect_gem", "count": 1, "slot": 0}]
    assert await ledger_ok(srv)


async def test_a_tablecloth_dresses_the_board_for_everyone(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    """The owner lays a bought tablecloth: the table's info carries its look for every
    member and the lobby; only the owner may, and only with a tablecloth."""
    srv = await tcp_server(nursery, tmp_path)
    owner, guest = await tcp_connect(srv), await tcp_connect(srv)
    await owner.register("owner")
    await guest.register("visitor")
    table_id = await owner.create_table(name="dressed")
    await guest.ok("join_table", table_id=table_id)
    lay = {"table_id": table_id, "cloth": "green"}
    assert (await owner.request("lay_tablecloth", **lay))["code"] == "no_such_item"
    await give(srv, "visitor", "tablecloth")
    assert (await guest.request("lay_tablecloth", **lay))["code"] == "not_owner"
    house = await balance(srv, None)
    shop = {o["item"]: o["price"] for o in (await owner.ok("get_shop"))["offers"]}
    await owner.ok("buy", item="tablecloth", count=2)
    assert await balance(srv, None) == house + 2 * shop["tablecloth"]
    await owner.ok("lay_tablecloth", **lay)
    await guest.expect("table_update", where=lambda m: m["table"].get("cloth") == "green")
    listed = {t["table_id"]: t for t in (await guest.ok("list_tables"))["tables"]}
    assert listed[table_id]["cloth"] == "green"
    await owner.ok("lay_tablecloth", table_id=table_id, cloth="wood")
    await guest.expect("table_update", where=lambda m: m["table"].get("cloth") == "wood")
    assert (await owner.ok("get_inventory"))["slots"] == []
    assert (await owner.request("lay_tablecloth", **lay))["code"] == "no_such_item"
    assert table_of(srv, table_id).cloth == "wood"
    assert await ledger_ok(srv)


async def test_the_host_gives_items(tmp_path: Path) -> None:
    """``gbmj-server admin give NAME ITEM [COUNT]`` puts items in an inventory (gems
    too, which nobody can buy); an unknown name or a bad count changes nothing."""
    from gbmj_server.cli import admin

    db = tmp_path / "gbmj.sqlite3"
    with Storage(db) as store:
        store.create_account("alice", "pw-hash")
    assert admin(["--db", str(db), "give", "alice", "gem"]) == 0
    assert admin(["--db", str(db), "give", "alice", "tablecloth", "3"]) == 0
    assert admin(["--db", str(db), "give", "bob", "gem"]) == 1
    assert admin(["--db", str(db), "give", "alice", "gem", "0"]) == 1
    with Storage(db) as store:
        alice = store.account_by_name("alice")
        assert [(s.item, s.count) for s in store.inventory(alice.id)] == [
            ("gem", 1),
            ("tablecloth", 3),
        ]
        assert store.ledger_balanced()
