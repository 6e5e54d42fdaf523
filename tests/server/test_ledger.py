"""The coin ledger, inventories, ratings and the settlement of a hand in the store, and
the pure parts they use (levels, stakes, the item registry)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gbmj.economy.counter import unseen_counts
from gbmj.economy.items import GEMS, ITEM_RULES, roll_drop, roll_gem, shop_prices
from gbmj.economy.levels import THRESHOLDS, level_of, threshold
from gbmj.economy.stakes import HOUSE, SeatPayment, hand_payments
from gbmj.game.settlement import escape_points, win_points
from gbmj.rules.hand import Meld
from gbmj_server.storage import (
    InventoryFull,
    LedgerError,
    NoSuchItem,
    NotEnoughCoins,
    NoWallet,
    Payment,
    Storage,
)
from gbmj_server.storage.migrations import MIGRATIONS
from protocol.tiles import Tile
from protocol.vocabulary import Item, MeldKind


@pytest.fixture
def store(db_target: str | Path):
    with Storage(db_target) as storage:
        yield storage


def test_new_accounts_get_10000_from_the_house_and_guests_nothing(store: Storage) -> None:
    alice = store.create_account("alice", "h")
    bob = store.create_account("bob", "h")
    guest = store.create_guest("guest-1")
    assert store.balance(alice.id) == store.balance(bob.id) == 10_000
    assert store.balance(None) == -20_000  # the house paid them
    assert store.balance(guest.id) is None
    assert store.total_coins() == 0 and store.ledger_balanced()
    [welcome] = store.ledger(alice.id)
    assert (welcome.from_account, welcome.to_account, welcome.amount) == (None, alice.id, 10_000)


def test_a_database_of_the_first_schema_gets_wallets_on_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.executescript(MIGRATIONS[0] + "\nINSERT INTO schema_version VALUES (1);")
    db.execute(
        "INSERT INTO account (name, kind, password_hash, created_at) "
        "VALUES ('old', 'player', 'h', 0)"
    )
    db.execute("INSERT INTO account (name, kind, created_at) VALUES ('guest-x', 'guest', 0)")
    db.close()
    with Storage(path) as store:
        old = store.account_by_name("old")
        assert store.balance(old.id) == 10_000
        assert store.balance(None) == -10_000
        assert store.ledger_balanced()


def test_admin_grant_and_take_go_through_the_house(store: Storage) -> None:
    alice = store.create_account("alice", "h")
    assert store.admin_adjust("alice", 500) == 10_500
    assert store.admin_adjust("alice", -10_000) == 500
    assert store.balance(None) == -10_500 + 10_000
    for bad in (0, -501, 10**13, -(10**13)):
        with pytest.raises(LedgerError):
            store.admin_adjust("alice", bad)
    with pytest.raises(LedgerError):
        store.admin_adjust("nobody", 5)
    store.create_guest("guest-2")
    with pytest.raises(NoWallet):
        store.admin_adjust("guest-2", 5)
    assert store.balance(alice.id) == 500 and store.ledger_balanced()


def test_a_corrupted_balance_is_caught(store: Storage) -> None:
    store.create_account("alice", "h")
    assert store.ledger_balanced()
    store._db.execute("UPDATE wallet SET balance = balance + 1 WHERE id = 2")
    assert not store.ledger_balanced()
    store._db.execute("UPDATE wallet SET balance = balance - 1 WHERE id = 1")
    assert store.total_coins() == 0
    assert not store.ledger_balanced()  # the sum is right, the books are not


def test_buying_needs_the_coins_and_the_room(store: Storage) -> None:
    alice = store.create_account("alice", "h")
    slots = store.buy(alice.id, "tile_counter", 3, 800)
    assert [(s.item, s.count) for s in slots] == [("tile_counter", 3)]
    assert store.balance(alice.id) == 10_000 - 2_400
    with pytest.raises(NotEnoughCoins):
        store.buy(alice.id, "timer_extension", 99, 500)
    assert store.item_count(alice.id, "timer_extension") == 0
    assert store.balance(alice.id) == 7_600
    store.admin_adjust("alice", 10**9)
    store.buy(alice.id, "timer_extension", 99, 1)
    store.buy(alice.id, "timer_extension", 99, 1)  # a second full stack
    assert sorted(s.count for s in store.inventory(alice.id)) == [3, 99, 99]
    # Fill every slot, then nothing more fits and nothing is charged.
    for _ in range(27):
        store.buy(alice.id, "table_sign", 99, 1)
    assert len(store.inventory(alice.id)) == 30
    store.buy(alice.id, "tile_counter", 96, 1)  # tops up the 3-stack: fits
    before = store.balance(alice.id)
    with pytest.raises(InventoryFull):
        store.buy(alice.id, "tile_counter", 1, 1)
    assert store.balance(alice.id) == before and store.ledger_balanced()


def test_using_an_item_is_all_or_nothing(store: Storage) -> None:
    alice = store.create_account("alice", "h")
    bob = store.create_account("bob", "h")
    fee = [Payment(alice.id, bob.id, 90, "timer"), Payment(alice.id, None, 180, "timer")]
    with pytest.raises(NoSuchItem):
        store.use_item(alice.id, "timer_extension", fee)
    store.give_item(alice.id, "timer_extension", 2)
    store.use_item(alice.id, "timer_extension", fee)
    assert store.item_count(alice.id, "timer_extension") == 1
    assert store.balance(alice.id) == 10_000 - 270 and store.balance(bob.id) == 10_090
    store.admin_adjust("alice", -(10_000 - 270 - 100))
    with pytest.raises(NotEnoughCoins):
        store.use_item(alice.id, "timer_extension", fee)
    assert store.item_count(alice.id, "timer_extension") == 1  # not used up
    assert store.balance(alice.id) == 100 and store.ledger_balanced()


from server.test_storage import new_match  # noqa: E402


def test_settling_a_hand_caps_losers_and_never_runs_twice(store: Storage) -> None:
    ids = [store.create_account(n, "h").id for n in ("a", "b", "c")]
    match_id = new_match(store)
    store.admin_adjust("c", -9_950)  # c has 50 coins left
    payments = [
        Payment(ids[1], ids[0], 190, "hand"),
        Payment(ids[2], ids[0], 80, "hand"),
        Payment(None, ids[0], 80, "hand"),  # a bot's seat pays from the house
    ]
    ratings = [(ids[0], 35), (ids[1], -19), (ids[2], -8)]
    first = store.settle_hand(
        match_id, 1, 1, 1, {"k": 1}, b"log", payments, ratings, (ids[0], "tile_counter")
    )
    assert first.moved == (190, 50, 80) and not first.already
    assert first.awarded == "tile_counter"
    assert store.balance(ids[0]) == 10_320
    assert store.balance(ids[2]) == 0
    assert [store.rating(i) for i in ids] == [35, 0, 0]  # never below 0
    again = store.settle_hand(match_id, 1, 1, 1, {"k": 1}, b"log", payments, ratings)
    assert again.already and again.hand_id == first.hand_id
    assert store.balance(ids[0]) == 10_320
    assert len(store.hand_transfers(first.hand_id)) == 3
    assert store.ledger_balanced()


def test_a_failed_settlement_leaves_nothing(store: Storage) -> None:
    a = store.create_account("a", "h").id
    match_id = new_match(store)
    with pytest.raises(NoWallet):  # a guest's seat in a payment: the whole hand rolls back
        store.settle_hand(
            match_id,
            1,
            1,
            1,
            {},
            b"",
            [Payment(a, None, 10, "hand"), Payment(store.create_guest("guest-3").id, a, 5, "x")],
        )
    assert store.hands(match_id) == [] and store.balance(a) == 10_000
    assert store.ledger_balanced()


def test_a_full_inventory_gets_no_drop(store: Storage) -> None:
    a = store.create_account("a", "h").id
    store.give_item(a, "table_sign", 30 * 99)
    match_id = new_match(store)
    result = store.settle_hand(match_id, 1, 1, 1, {}, b"", award=(a, "tile_counter"))
    assert result.awarded is None and store.item_count(a, "tile_counter") == 0
    assert store.hands(match_id)  # the hand itself was recorded


def test_leaderboard_by_rating(store: Storage) -> None:
    for name, rating in (("low", 5), ("top", 900), ("mid", 300)):
        account = store.create_account(name, "h")
        store._db.execute("UPDATE account SET rating = ? WHERE id = ?", (rating, account.id))
    store.create_guest("guest-9")
    assert [(r.name, r.rating) for r in store.leaderboard(2)] == [("top", 900), ("mid", 300)]


def test_levels_follow_50_l_minus_1_l() -> None:
    assert len(THRESHOLDS) == 37
    assert THRESHOLDS[:4] == (0, 100, 300, 600) and threshold(37) == 66_600
    assert [level_of(r) for r in (0, 99, 100, 299, 300, 66_599, 66_600, 10**9)] == [
        1,
        1,
        2,
        2,
        3,
        36,
        37,
        37,
    ]


def test_stake_payments_follow_the_points() -> None:
    # Seat 2 wins 11 fan on seat 1's discard at 10 coins a point.
    points = win_points(2, 1, 11)
    assert hand_payments(points, 10, 2, None) == [
        SeatPayment(0, 2, 80),
        SeatPayment(1, 2, 190),
        SeatPayment(3, 2, 80),
    ]
    assert hand_payments(win_points(0, None, 8), 5, 0, None) == [
        SeatPayment(s, 0, 80) for s in (1, 2, 3)
    ]
    assert hand_payments(escape_points(3), 2, None, 3) == [SeatPayment(3, HOUSE, 160)]
    assert hand_payments((0, 0, 0, 0), 10, None, None) == []
    assert hand_payments(points, 0, 2, None) == []


def test_item_registry_and_drops() -> None:
    prices = shop_prices({"tile_counter": 0, "table_sign": 42})
    assert "tile_counter" not in prices and prices["table_sign"] == 42
    with pytest.raises(ValueError):
        shop_prices({"diamond": 1})
    with pytest.raises(ValueError, match="never sold"):
        shop_prices({"gem": 1})
    assert roll_drop(0.2, 0) is None
    drops = {roll_drop(0.1, n) for n in range(len(ITEM_RULES))}
    assert drops == {k for k, rule in ITEM_RULES.items() if rule.price is not None}
    assert roll_gem(0.5, 0) is None
    gems = [roll_gem(0.1, n) for n in range(100)]
    counts = {g: gems.count(g) for g in GEMS}
    assert counts == {Item.GEM_SHARD: 89, Item.GEM: 10, Item.PERFECT_GEM: 1}
    assert all(ITEM_RULES[g].stack == 1 and ITEM_RULES[g].price is None for g in GEMS)


def _meld(kind: MeldKind, tile: Tile, **kw: Any) -> Meld:
    return Meld(kind, tile, **kw)


def test_unseen_counts_of_a_hand_worked_by_hand() -> None:
    """Seat 0 holds 1m 2m 3m 5p 5p and a concealed kong of E; seat 1 shows a pung of C
    (taken from seat 0's discard) and a face-down kong; seat 2 a chow 3s4s5s; the pools
    hold 5p, 9s and 1m. By hand: 1m 4-1-1 = 2, 2m 3, 5p 4-2-1 = 1, E 0, C 1, 3s 3,
    9s 3, the face-down kong's tiles all unseen."""
    seat = SimpleNamespace
    view = SimpleNamespace(
        viewer=0,
        game=SimpleNamespace(
            seats=(
                seat(
                    concealed=(Tile.M1, Tile.M2, Tile.M3, Tile.P5, Tile.P5),
                    melds=(_meld(MeldKind.KONG, Tile.E, concealed=True),),
                    discards=(Tile.P5,),
                ),
                seat(
                    concealed=None,
                    melds=(_meld(MeldKind.PUNG, Tile.C, claimed_from=1, claimed_tile=Tile.C), None),
                    discards=(Tile.S9,),
                ),
                seat(
                    concealed=None,
                    melds=(_meld(MeldKind.CHOW, Tile.S3, claimed_from=1, claimed_tile=Tile.S4),),
                    discards=(Tile.M1,),
                ),
                seat(concealed=None, melds=(), discards=()),
            ),
        ),
    )
    counts = unseen_counts(view)
    expected = [4] * 34
    for tile, n in {
        Tile.M1: 2,
        Tile.M2: 3,
        Tile.M3: 3,
        Tile.P5: 1,
        Tile.E: 0,
        Tile.C: 1,
        Tile.S3: 3,
        Tile.S4: 3,
        Tile.S5: 3,
        Tile.S9: 3,
    }.items():
        expected[tile] = n
    assert counts == tuple(expected)
