"""A newer sign-in ends the older token, guests long gone are purged, and coins stay at
a stake table while its match runs (docs/hosting.md, "Limits"; docs/rules.md §2.5),
over TCP (the purge's own clock: a MockClock over memory streams) with a real SQLite
file."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import pytest
import trio
import trio.testing

from gbmj_server.handlers.accounts import PURGE_EVERY, purge_guests
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, start, table_of
from server.wireclient import connect_from, memory_connect

pytestmark = pytest.mark.trio


def storage_of(server: Server):
    assert server.services is not None
    return server.services.store.storage


async def test_a_newer_sign_in_ends_the_older_token(connect) -> None:
    first = await connect()
    token = (await first.register("twice"))["token"]
    second = await connect()
    await second.ok("login", name="twice", password="secret-pw")
    assert (await first.expect("notice"))["code"] == "replaced"
    third = await connect()
    assert (await third.request("resume", token=token))["code"] == "bad_token"


async def test_the_purge_runs_by_itself(nursery, tmp_path, mock_clock) -> None:
    storage = Storage(tmp_path / "gbmj.sqlite3")
    config = replace(TEST_CONFIG, limits=replace(TEST_CONFIG.limits, guest_keep=0.0))
    server = Server(storage, config)
    running = await start(nursery, server, listen=False)
    connect = memory_connect(server, nursery)
    gone = await connect()
    token = (await gone.ok("guest"))["token"]
    await gone.aclose()
    await trio.testing.wait_all_tasks_blocked()
    assert server.sessions.signed_in == 0
    mock_clock.jump(PURGE_EVERY - 1)
    await trio.testing.wait_all_tasks_blocked()
    assert len(storage.list_accounts(include_guests=True)) == 1  # not yet
    mock_clock.jump(2)
    await trio.testing.wait_all_tasks_blocked()  # the purge waits for the database...
    assert server.services is not None
    await server.services.store.call(lambda: None)  # ...which answers in turn
    assert storage.list_accounts(include_guests=True) == []
    again = await connect()
    assert (await again.request("resume", token=token))["code"] == "bad_token"
    await running.stop()
    storage.close()


async def test_guests_not_seen_for_a_while_are_purged(limited) -> None:
    server = await limited(guest_keep=0.0)  # "a while" is no time at all here
    connect = partial(connect_from, server)
    gone = await connect("127.0.20.1")
    token = (await gone.ok("guest"))["token"]
    await gone.aclose()
    online = await connect("127.0.20.2")
    await online.ok("guest")
    seated = await connect("127.0.20.3")
    await seated.ok("guest")
    table_id = await seated.create_table()
    await seated.ok("sit", table_id=table_id, seat=0)
    player = await connect("127.0.20.4")
    await player.register("player")
    with trio.fail_after(5):  # the server sees the first guest go
        while server.sessions.signed_in != 3:
            await trio.sleep(0.01)
    storage = storage_of(server)
    before = {a.name for a in storage.list_accounts(include_guests=True)}
    assert await purge_guests(server.services) == 1
    after = {a.name for a in storage.list_accounts(include_guests=True)}
    assert len(before - after) == 1 and "player" in after
    again = await connect("127.0.20.5")
    assert (await again.request("resume", token=token))["code"] == "bad_token"
    assert table_of(server, table_id).seats[0] is not None
    assert (await online.ok("ping"))["type"] == "pong"
    assert await purge_guests(server.services) == 0


async def test_a_guest_who_resumes_is_seen_again(connect, server) -> None:
    storage = storage_of(server)
    stays, goes = await connect(), await connect()
    token = (await stays.ok("guest"))["token"]
    await goes.ok("guest")
    await stays.aclose()
    await goes.aclose()
    with trio.fail_after(5):
        while server.sessions.signed_in:
            await trio.sleep(0.01)
    between = time.time()
    back = await connect()
    await back.ok("resume", token=token)
    await back.aclose()
    with trio.fail_after(5):
        while server.sessions.signed_in:
            await trio.sleep(0.01)
    assert storage.purge_guests(between) == 1  # the one not seen since
    again = await connect()
    await again.ok("resume", token=token)


async def test_coins_cannot_leave_a_stake_table_while_its_match_runs(connect, server) -> None:
    dodger = await connect()
    await dodger.register("dodger")
    profile = await dodger.ok("get_inventory")
    table_id = await dodger.create_table(stake=10)
    await dodger.ok("buy", item="tile_counter", count=1)  # not seated yet: fine
    await dodger.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await dodger.ok("add_bot", table_id=table_id, seat=seat, level="easy")
    coins = storage_of(server).balance(table_of(server, table_id).owner_id)
    await dodger.ok("ready", table_id=table_id, ready=True)
    with trio.fail_after(5):
        while table_of(server, table_id).play is None:
            await trio.sleep(0.01)
    reply = await dodger.request("buy", item="tile_counter", count=1)
    assert reply["code"] == "coins_at_stake"
    account = table_of(server, table_id).owner_id
    assert storage_of(server).balance(account) == coins  # nothing paid...
    inventory = await dodger.ok("get_inventory")
    assert inventory["slots"] == [{"item": "tile_counter", "count": 1, "slot": 0}]  # ...nothing got
    assert profile["slots"] == []
    # A spectator buys freely: only a seat at the running stake table holds the coins.
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    await watcher.ok("buy", item="tile_counter", count=1)
