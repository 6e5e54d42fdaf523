"""The recorder (录像机, docs/rules.md §2.6) over the real server: bought and dropped, a
hand saved with one (the ledger exact), listed, read by id by anyone, kept while the
unsaved hands' logs of the same age are pruned; refused for a hand not played and
without a recorder."""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from history.recorder import PASSWORD, record_match, sitters

from gbmj.economy.items import droppable, roll_drop
from gbmj_server.cli import admin
from gbmj_server.config import ConfigError, load_config_file
from gbmj_server.handlers.history import DAY, PRUNE_EVERY, prune_hand_logs
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, start
from server.test_coins import balance, ledger_ok
from server.wireclient import WireClient, memory_connect, play, seat_four

pytestmark = pytest.mark.trio


def recorded(path: Path) -> list[int]:
    """A private match alice and bob played with two bots (two hands), recorded in the
    database at ``path``; its hands' ids. carol (who did not play) has an account."""
    store = Storage(path)
    match = record_match(
        store, sitters(store, "alice", "bob"), b"recorder-1", hands=2, public=False
    )
    match_private = store.match_detail(match.match_id)
    assert match_private is not None and not match_private.detail.match.public
    sitters(store, "carol")
    store.close()
    return match.hand_ids


@pytest.fixture
async def world(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[tuple[Server, list[int]]]:
    path = tmp_path / "gbmj.sqlite3"
    hands = recorded(path)
    storage = Storage(path)
    srv = Server(storage, TEST_CONFIG)
    running = await start(nursery, srv)
    yield srv, hands
    await running.stop()
    storage.close()


async def login(srv: Server, name: str) -> WireClient:
    assert srv.port is not None
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await client.hello()
    await client.ok("login", name=name, password=PASSWORD)
    return client


async def give(srv: Server, name: str, item: str) -> None:
    account = await srv.store.call(srv.store.storage.account_by_name, name)
    await srv.store.call(srv.store.storage.give_item, account.id, item)


def ids(reply: dict[str, Any]) -> list[int]:
    return [x["hand"]["hand_id"] for x in reply["hands"]]


@pytest.mark.slow
async def test_a_hand_saved_with_a_recorder_is_listed_and_read_by_anyone(world) -> None:
    srv, (first, second) = world
    alice, carol = await login(srv, "alice"), await login(srv, "carol")
    # carol did not play the private match: she reads none of its hands.
    assert (await carol.request("get_hand", hand_id=first))["code"] == "no_such_match"
    shop = {o["item"]: o["price"] for o in (await alice.ok("get_shop"))["offers"]}
    assert shop["recorder"] == 1500
    house, coins = await balance(srv, None), await balance(srv, "alice")
    await alice.ok("buy", item="recorder", count=2)
    assert await balance(srv, "alice") == coins - 2 * shop["recorder"]
    assert await balance(srv, None) == house + 2 * shop["recorder"]
    assert (await alice.ok("get_inventory"))["slots"] == [
        {"item": "recorder", "count": 2, "slot": 0}
    ]
    saved = await alice.ok("save_hand", hand_id=first)
    assert saved["type"] == "saved_hands" and saved["total"] == 1 and ids(saved) == [first]
    entry = saved["hands"][0]
    assert entry["table_name"] == "东风局" and set(entry["hand"]["players"]) >= {"alice", "bob"}
    assert (await alice.ok("get_inventory"))["slots"] == [
        {"item": "recorder", "count": 1, "slot": 0}
    ]
    # Saving it again uses nothing.
    assert ids(await alice.ok("save_hand", hand_id=first)) == [first]
    assert (await alice.ok("get_inventory"))["slots"][0]["count"] == 1
    assert ids(await alice.ok("list_saved_hands")) == [first]
    assert (await (await login(srv, "bob")).ok("list_saved_hands"))["total"] == 0
    # Anyone with the id reads the saved hand; the match's other hand stays private.
    log = await carol.ok("get_hand", hand_id=first)
    assert log["type"] == "hand_log" and log["hand_id"] == first and log["actions"]
    assert (await carol.request("get_hand", hand_id=second))["code"] == "no_such_match"
    assert (await carol.ok("list_saved_hands"))["total"] == 0
    assert await balance(srv, None) == house + 2 * shop["recorder"]  # a recorder pays nobody
    assert await ledger_ok(srv)


@pytest.mark.slow
async def test_saving_is_refused_without_a_recorder_or_for_a_hand_not_played(world) -> None:
    srv, (first, _) = world
    bob, carol = await login(srv, "bob"), await login(srv, "carol")
    refused = await bob.request("save_hand", hand_id=first)
    assert refused["code"] == "no_such_item"
    assert (await bob.ok("list_saved_hands"))["total"] == 0
    await give(srv, "carol", "recorder")
    refused = await carol.request("save_hand", hand_id=first)
    assert refused["code"] == "no_such_match"
    assert (await carol.ok("list_saved_hands"))["total"] == 0
    assert (await carol.ok("get_inventory"))["slots"] == [
        {"item": "recorder", "count": 1, "slot": 0}
    ]
    refused = await carol.request("save_hand", hand_id=first + 1000)
    assert refused["code"] == "no_such_match"
    guest = await login_guest(srv)
    assert (await guest.request("save_hand", hand_id=first))["code"] == "guest_not_allowed"
    assert await ledger_ok(srv)


async def login_guest(srv: Server) -> WireClient:
    assert srv.port is not None
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await client.hello()
    await client.ok("guest")
    return client


def age(path: Path, hand_ids: list[int], days: float) -> None:
    """Make the hands ``days`` older, as the host's clock would have them."""
    with sqlite3.connect(path) as db:
        db.executemany(
            "UPDATE hand SET played_at = played_at - ? WHERE id = ?",
            [(days * DAY, h) for h in hand_ids],
        )
    db.close()


async def test_a_saved_hand_is_kept_while_its_unsaved_twin_is_pruned(
    nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock
) -> None:
    """The host keeps hand logs 30 days: the housekeeping prunes, by itself, the log of
    an unsaved hand 31 days old and keeps the saved one of the same age."""
    path = tmp_path / "gbmj.sqlite3"
    saved, unsaved = recorded(path)
    storage = Storage(path)
    srv = Server(storage, replace(TEST_CONFIG, hand_log_days=30))
    running = await start(nursery, srv, listen=False)
    connect = memory_connect(srv, nursery)
    alice = await connect()
    await alice.ok("login", name="alice", password=PASSWORD)
    await give(srv, "alice", "recorder")
    await alice.ok("save_hand", hand_id=saved)
    age(path, [saved, unsaved], 31)
    mock_clock.jump(PRUNE_EVERY - 1)
    await trio.testing.wait_all_tasks_blocked()
    assert storage.hand_log(unsaved) is not None  # not yet
    mock_clock.jump(2)
    await trio.testing.wait_all_tasks_blocked()  # the pruning waits for the database...
    assert srv.services is not None
    await srv.services.store.call(lambda: None)  # ...which answers in turn
    assert storage.hand_log(unsaved) is None
    assert storage.hand_log(saved) is not None
    refused = await alice.request("get_hand", hand_id=unsaved)
    assert refused["code"] == "no_such_match" and "no longer kept" in refused["message"]
    assert (await alice.ok("get_hand", hand_id=saved))["hand_id"] == saved
    # The match still lists both hands (their results stay); the ledger is whole.
    detail = await alice.ok(
        "get_match", match_id=(await alice.ok("list_matches"))["matches"][0]["match_id"]
    )
    assert [h["hand_id"] for h in detail["hands"]] == [saved, unsaved]
    # A pruned hand cannot be saved: its log is gone.
    await give(srv, "alice", "recorder")
    assert (await alice.request("save_hand", hand_id=unsaved))["code"] == "no_such_match"
    assert (await alice.ok("get_inventory"))["slots"][0]["count"] == 1
    assert storage.ledger_balanced()
    await running.stop()
    storage.close()


async def test_hand_logs_younger_than_the_days_or_at_0_days_are_kept(
    world, tmp_path, capsys
) -> None:
    srv, hands = world
    assert srv.services is not None
    age(tmp_path / "gbmj.sqlite3", hands, 364)
    assert await prune_hand_logs(srv.services) == 0  # the default: 365 days
    age(tmp_path / "gbmj.sqlite3", hands, 2)
    srv.services.config = replace(srv.services.config, hand_log_days=0)  # for ever
    assert await prune_hand_logs(srv.services) == 0
    srv.services.config = replace(srv.services.config, hand_log_days=365)
    storage = srv.store.storage
    assert await srv.store.call(storage.prune_hand_logs, time.time() - 365 * DAY, 1) == 1
    assert await prune_hand_logs(srv.services) == 1  # the other one
    assert await prune_hand_logs(srv.services) == 0  # pruned once
    # The host's export says why a pruned hand cannot be written.
    db = str(tmp_path / "gbmj.sqlite3")
    out = tmp_path / "hand.json"
    export = ["--db", db, "export", f"h{hands[0]}", "--out", str(out)]
    assert await trio.to_thread.run_sync(admin, export) == 1
    assert "no longer kept" in capsys.readouterr().err and not out.exists()


class DropsARecorder(random.Random):
    """Every win drops an item (every chance is 0.0), and the item is a recorder."""

    def random(self) -> float:
        return 0.0

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return droppable().index("recorder")


async def test_a_win_drops_a_recorder(tmp_path: Path) -> None:
    # b"drop-29" deals a first hand that one of four simple players wins.
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, TEST_CONFIG, match_seed=b"drop-29", rng=DropsARecorder(1))
    async with trio.open_nursery() as nursery:
        await start(nursery, srv, listen=False)
        clients, table_id = await seat_four(memory_connect(srv, nursery), rounds=1)
        async with trio.open_nursery() as players:
            for client in clients:
                players.start_soon(partial(play, client, table_id, until="hand_result"))
        awarded = [m for c in clients for m in c.seen if m["type"] == "item_awarded"]
        assert [(m["item"], m["count"]) for m in awarded] == [("recorder", 1)]
        nursery.cancel_scope.cancel()
    assert storage.ledger_balanced()
    storage.close()


async def test_the_host_sets_the_days_and_the_price(tmp_path: Path) -> None:
    assert roll_drop(0.0, droppable().index("recorder")) == "recorder"
    config = tmp_path / "gbmj.toml"
    config.write_text("hand_log_days = 30\n[shop]\nrecorder = 900\n")
    loaded = load_config_file(config)
    assert loaded.hand_log_days == 30 and ("recorder", 900) in loaded.shop
    config.write_text("hand_log_days = -1\n")
    with pytest.raises(ConfigError):
        load_config_file(config)


@pytest.mark.slow
async def test_the_host_keeps_a_hand_in_a_players_saved_hands(world, tmp_path, capsys) -> None:
    """``admin save-hand``: the host keeps any hand, no recorder used; carol (who did not
    play it) finds it in her saved hands and reads it."""
    srv, (first, _) = world
    db = str(tmp_path / "gbmj.sqlite3")
    assert await trio.to_thread.run_sync(admin, ["--db", db, "save-hand", "carol", str(first)]) == 0
    assert "kept for good in carol's saved hands" in capsys.readouterr().out
    carol = await login(srv, "carol")
    assert ids(await carol.ok("list_saved_hands")) == [first]
    assert (await carol.ok("get_hand", hand_id=first))["hand_id"] == first
    assert await trio.to_thread.run_sync(admin, ["--db", db, "save-hand", "carol", "9999"]) == 1
    assert await trio.to_thread.run_sync(admin, ["--db", db, "save-hand", "nobody", "1"]) == 1
    assert await ledger_ok(srv)
