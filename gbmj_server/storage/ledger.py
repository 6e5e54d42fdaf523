"""Coins, items and ratings in the store (docs/rules.md §2.5-2.7): the ``Storage`` methods of the
ledger, the inventory and the settlement of a hand.

The coin ledger is double-entry: every change is one ``coin_transfer`` row (from wallet,
to wallet, amount > 0) and the two balances it moves, in one transaction. Wallet 1 is the
house; it starts at 0 and pays every new account's 10,000 coins, so the sum of all
balances, the house's included, is always 0 (``ledger_balanced`` checks that and that
every balance is what its transfers add up to). In a Python call the house is ``None``
where an account id goes.

A hand's settlement (``settle_hand``) is one transaction with the hand's record: the
hand row, its coin transfers, the ratings and a dropped item commit together or not at
all, and a hand already recorded (same match and number) is never settled again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from gbmj.economy.items import ITEM_RULES, SLOTS
from gbmj_server.storage.engine import Database
from gbmj_server.storage.nodes import check_lease
from gbmj_server.storage.postgres import retry_conflicts
from protocol.vocabulary import Item

HOUSE_WALLET = 1
START_COINS = 10_000
MAX_ADMIN_AMOUNT = 10**12  # one grant or take at most


class LedgerError(Exception):
    """Base of the refusals below (each changes nothing)."""

    code = "out_of_range"


class NotEnoughCoins(LedgerError):
    code = "not_enough_coins"


class NoSuchItem(LedgerError):
    code = "no_such_item"


class InventoryFull(LedgerError):
    code = "inventory_full"


class RatingCapped(LedgerError):
    """A gem used at the server's gem cap or above."""

    code = "rating_capped"


class NoWallet(LedgerError):
    """Guests (and unknown accounts) hold no coins."""

    code = "not_enough_coins"


@dataclass(frozen=True, slots=True)
class Transfer:
    """One ledger row; ``None`` for the house."""

    id: int
    from_account: int | None
    to_account: int | None
    amount: int
    reason: str
    hand_id: int | None
    match_id: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class Payment:
    """A transfer to make: ``payer`` → ``payee`` (``None``: the house). In a hand's
    settlement, ``payer_n`` and ``payee_n`` name the match's participants whose coin
    totals it moves (``None``: nobody's, e.g. the house)."""

    payer: int | None
    payee: int | None
    amount: int
    reason: str
    payer_n: int | None = None
    payee_n: int | None = None


@dataclass(frozen=True, slots=True)
class Settlement:
    """What ``settle_hand`` did: the hand's row, the amount each payment really moved
    (capped by what its payer had), and the item dropped (if any)."""

    hand_id: int
    moved: tuple[int, ...]
    awarded: str | None
    already: bool  # the hand was recorded before: nothing was done this time
    lost: str | None = None  # the item dropped that a full inventory could not take


@dataclass(frozen=True, slots=True)
class Slot:
    slot: int
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class LeaderRow:
    name: str
    rating: int


class LedgerMixin:
    """Mixed into ``Storage`` (which provides ``_db`` and ``_write``)."""

    _db: Database
    inventory_slots: int = SLOTS  # the host's setting (docs/hosting.md)

    _write: Callable[[], AbstractContextManager[Database]]

    # Storage's: the hand row inside the caller's transaction (db, match_id, number,
    # round, hand_number, result, event_log) -> the hand's id
    _insert_hand: Callable[[Database, int, int, int, int, dict[str, Any], bytes], int]

    # -- wallets -------------------------------------------------------------------

    def _wallet(self, db: Database, account_id: int | None) -> int:
        if account_id is None:
            return HOUSE_WALLET
        row = db.execute("SELECT id FROM wallet WHERE account_id = ?", (account_id,)).fetchone()
        if row is None:
            raise NoWallet("guests play only free tables and hold no coins")
        return int(row[0])

    def _open_wallet(self, db: Database, account_id: int) -> None:
        """A new player's wallet with the starting coins from the house."""
        cur = db.execute("INSERT INTO wallet (account_id, balance) VALUES (?, 0)", (account_id,))
        wallet = cur.lastrowid
        assert wallet is not None  # an INSERT's row id
        self._move(db, HOUSE_WALLET, wallet, START_COINS, "welcome")

    def _move(
        self,
        db: Database,
        source: int,
        target: int,
        amount: int,
        reason: str,
        hand_id: int | None = None,
        match_id: int | None = None,
    ) -> None:
        """One double-entry transfer between wallets (inside the caller's transaction)."""
        if amount <= 0 or source == target:
            return
        db.execute(
            "INSERT INTO coin_transfer (from_wallet, to_wallet, amount, reason, hand_id, "
            "match_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (source, target, amount, reason, hand_id, match_id, time.time()),
        )
        db.execute("UPDATE wallet SET balance = balance - ? WHERE id = ?", (amount, source))
        db.execute("UPDATE wallet SET balance = balance + ? WHERE id = ?", (amount, target))

    def _balance(self, db: Database, wallet: int) -> int:
        return int(db.execute("SELECT balance FROM wallet WHERE id = ?", (wallet,)).fetchone()[0])

    def balance(self, account_id: int | None) -> int | None:
        """Coins of an account (None: a guest, who holds none); ``None`` → the house."""
        try:
            return self._balance(self._db, self._wallet(self._db, account_id))
        except NoWallet:
            return None

    def rating(self, account_id: int) -> int:
        row = self._db.execute("SELECT rating FROM account WHERE id = ?", (account_id,)).fetchone()
        return 0 if row is None else row[0]

    def total_coins(self) -> int:
        """The sum of every balance, the house's included: always 0."""
        return int(self._db.execute("SELECT coalesce(sum(balance), 0) FROM wallet").fetchone()[0])

    def ledger_balanced(self) -> bool:
        """The books agree: the balances sum to 0 and each balance is what its transfers
        add up to (money in minus money out)."""
        if self.total_coins() != 0:
            return False
        off = self._db.execute(
            "SELECT count(*) FROM wallet w WHERE w.balance != "
            "coalesce((SELECT sum(amount) FROM coin_transfer WHERE to_wallet = w.id), 0) - "
            "coalesce((SELECT sum(amount) FROM coin_transfer WHERE from_wallet = w.id), 0)"
        ).fetchone()[0]
        return bool(off == 0)

    @retry_conflicts
    def transfer(self, payment: Payment, *, match_id: int | None = None) -> None:
        """One payment, whole or refused (``NotEnoughCoins``): never capped."""
        with self._write() as db:
            self._pay_in_full(db, [payment], match_id=match_id)

    def _pay_in_full(
        self, db: Database, payments: Sequence[Payment], match_id: int | None = None
    ) -> None:
        for p in payments:
            if p.amount <= 0:
                raise LedgerError("an amount must be positive")
            source = self._wallet(db, p.payer)
            if source != HOUSE_WALLET and self._balance(db, source) < p.amount:
                raise NotEnoughCoins(f"{p.amount} coins needed")
            self._move(db, source, self._wallet(db, p.payee), p.amount, p.reason, None, match_id)

    @retry_conflicts
    def admin_adjust(self, name: str, amount: int, reason: str = "admin") -> int:
        """Grant (``amount`` > 0) or take (< 0) coins through the house; the new balance.
        Refused (nothing changes): zero, over ``MAX_ADMIN_AMOUNT``, more than the account
        holds, an unknown or guest account."""
        if amount == 0 or abs(amount) > MAX_ADMIN_AMOUNT:
            raise LedgerError(f"the amount must be 1 to {MAX_ADMIN_AMOUNT:,} coins")
        with self._write() as db:
            row = db.execute("SELECT id FROM account WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise LedgerError(f"no account named {name!r}")
            wallet = self._wallet(db, row[0])
            if amount > 0:
                self._move(db, HOUSE_WALLET, wallet, amount, reason)
            else:
                if self._balance(db, wallet) < -amount:
                    raise NotEnoughCoins(f"{name} has fewer than {-amount} coins")
                self._move(db, wallet, HOUSE_WALLET, -amount, reason)
            return self._balance(db, wallet)

    def ledger(self, account_id: int | None, limit: int = 100) -> list[Transfer]:
        """The account's transfers, newest first (``None``: the house's)."""
        wallet = self._wallet(self._db, account_id)
        rows = self._db.execute(
            "SELECT t.id, fw.account_id, tw.account_id, t.amount, t.reason, t.hand_id, "
            "t.match_id, t.created_at FROM coin_transfer t "
            "JOIN wallet fw ON fw.id = t.from_wallet JOIN wallet tw ON tw.id = t.to_wallet "
            "WHERE t.from_wallet = ? OR t.to_wallet = ? ORDER BY t.id DESC LIMIT ?",
            (wallet, wallet, limit),
        ).fetchall()
        return [Transfer(*r) for r in rows]

    def hand_transfers(self, hand_id: int) -> list[Transfer]:
        rows = self._db.execute(
            "SELECT t.id, fw.account_id, tw.account_id, t.amount, t.reason, t.hand_id, "
            "t.match_id, t.created_at FROM coin_transfer t "
            "JOIN wallet fw ON fw.id = t.from_wallet JOIN wallet tw ON tw.id = t.to_wallet "
            "WHERE t.hand_id = ? ORDER BY t.id",
            (hand_id,),
        ).fetchall()
        return [Transfer(*r) for r in rows]

    # -- items ---------------------------------------------------------------------

    def inventory(self, account_id: int) -> list[Slot]:
        rows = self._db.execute(
            "SELECT slot, item, count FROM inventory_item WHERE account_id = ? ORDER BY slot",
            (account_id,),
        ).fetchall()
        return [Slot(*r) for r in rows]

    def item_count(self, account_id: int, item: str) -> int:
        return int(
            self._db.execute(
                "SELECT coalesce(sum(count), 0) FROM inventory_item "
                "WHERE account_id = ? AND item = ?",
                (account_id, item),
            ).fetchone()[0]
        )

    def _add_items(self, db: Database, account_id: int, item: str, count: int) -> None:
        """Fill the item's stacks, then free slots; ``InventoryFull`` if it does not fit
        (the caller's transaction then rolls back)."""
        stack = ITEM_RULES[Item(item)].stack
        rows = db.execute(
            "SELECT slot, item, count FROM inventory_item WHERE account_id = ?", (account_id,)
        ).fetchall()
        for slot, held, n in sorted(rows):
            if count and held == item and n < stack:
                add = min(count, stack - n)
                db.execute(
                    "UPDATE inventory_item SET count = count + ? WHERE account_id = ? AND slot = ?",
                    (add, account_id, slot),
                )
                count -= add
        free = iter(sorted(set(range(self.inventory_slots)) - {r[0] for r in rows}))
        while count:
            slot = next(free, None)
            if slot is None:
                raise InventoryFull("the inventory is full")
            add = min(count, stack)
            db.execute(
                "INSERT INTO inventory_item (account_id, slot, item, count) VALUES (?, ?, ?, ?)",
                (account_id, slot, item, add),
            )
            count -= add

    def _take_item(self, db: Database, account_id: int, item: str) -> None:
        """One item out of its fullest-last stack; ``NoSuchItem`` if there is none."""
        row = db.execute(
            "SELECT slot, count FROM inventory_item WHERE account_id = ? AND item = ? "
            "ORDER BY count, slot DESC LIMIT 1",
            (account_id, item),
        ).fetchone()
        if row is None:
            raise NoSuchItem(f"you have no {item}")
        if row[1] == 1:
            db.execute(
                "DELETE FROM inventory_item WHERE account_id = ? AND slot = ?", (account_id, row[0])
            )
        else:
            db.execute(
                "UPDATE inventory_item SET count = count - 1 WHERE account_id = ? AND slot = ?",
                (account_id, row[0]),
            )

    @retry_conflicts
    def buy(self, account_id: int, item: str, count: int, price: int) -> list[Slot]:
        """Buy ``count`` items at ``price`` each (coins to the house); the new inventory.
        Too few coins or no room: refused, nothing changes."""
        if item not in ITEM_RULES or count <= 0 or price <= 0:
            raise LedgerError("no such offer")
        with self._write() as db:
            self._pay_in_full(db, [Payment(account_id, None, price * count, f"buy {item}")])
            self._add_items(db, account_id, item, count)
        return self.inventory(account_id)

    @retry_conflicts
    def give_item(self, account_id: int, item: str, count: int = 1) -> None:
        """Put items in an inventory (admin, tests); ``InventoryFull`` changes nothing."""
        with self._write() as db:
            self._add_items(db, account_id, item, count)

    def award_item(self, account_id: int, item: str) -> bool:
        """A dropped item into the inventory: whether it was kept (a full inventory
        keeps nothing, and nothing changes)."""
        try:
            self.give_item(account_id, item)
        except InventoryFull:
            return False
        return True

    @retry_conflicts
    def move_item(self, account_id: int, from_slot: int, to_slot: int) -> None:
        """What is in ``from_slot`` goes to ``to_slot``, and what was there (if anything)
        to ``from_slot``: one transaction. Refused (nothing changes): ``to_slot`` outside
        the inventory, or nothing in ``from_slot`` (which may lie beyond the inventory's
        end when the host made it smaller: its items can still come down)."""
        if not 0 <= to_slot < self.inventory_slots or from_slot < 0:
            raise LedgerError(f"the slots are 0 to {self.inventory_slots - 1}")
        with self._write() as db:
            held = db.execute(
                "SELECT 1 FROM inventory_item WHERE account_id = ? AND slot = ?",
                (account_id, from_slot),
            ).fetchone()
            if held is None:
                raise NoSuchItem(f"slot {from_slot} is empty")
            if from_slot == to_slot:
                return
            rows = db.execute(
                "SELECT slot, item, count FROM inventory_item WHERE account_id = ? AND slot IN "
                "(?, ?)",
                (account_id, from_slot, to_slot),
            ).fetchall()
            db.execute(
                "DELETE FROM inventory_item WHERE account_id = ? AND slot IN (?, ?)",
                (account_id, from_slot, to_slot),
            )
            swapped = {from_slot: to_slot, to_slot: from_slot}
            for slot, item, n in rows:
                db.execute(
                    "INSERT INTO inventory_item (account_id, slot, item, count) "
                    "VALUES (?, ?, ?, ?)",
                    (account_id, swapped[slot], item, n),
                )

    @retry_conflicts
    def use_gem(self, account_id: int, item: str, cap: int | None) -> int:
        """Use one gem: its rating points added, in one transaction; the new rating.
        Refused (nothing changes): no such gem, or a rating at ``cap`` or above."""
        points = ITEM_RULES[Item(item)].rating
        if not points:
            raise LedgerError(f"{item} is not a gem")
        with self._write() as db:
            row = db.execute("SELECT rating FROM account WHERE id = ?", (account_id,)).fetchone()
            if cap is not None and row[0] >= cap:
                raise RatingCapped(f"gems cannot be used at a rating of {cap:,} or more")
            self._take_item(db, account_id, item)
            db.execute("UPDATE account SET rating = rating + ? WHERE id = ?", (points, account_id))
            return int(row[0]) + points

    @retry_conflicts
    def use_item(
        self,
        account_id: int,
        item: str,
        payments: Sequence[Payment] = (),
        match_id: int | None = None,
    ) -> None:
        """Use one item and make the payments its effect costs, all in one transaction:
        ``NoSuchItem`` or ``NotEnoughCoins`` and nothing changes."""
        with self._write() as db:
            self._take_item(db, account_id, item)
            self._pay_in_full(db, payments, match_id=match_id)

    # -- a hand's settlement -----------------------------------------------------------

    @retry_conflicts
    def settle_hand(
        self,
        match_id: int,
        number: int,
        round_: int,
        hand_number: int,
        result: dict[str, Any],
        event_log: bytes,
        payments: Sequence[Payment] = (),
        ratings: Sequence[tuple[int, int]] = (),
        award: tuple[int, str] | None = None,
        points: Sequence[tuple[int, int]] = (),
        node: str | None = None,
    ) -> Settlement:
        """Record a finished hand and settle it in one transaction: the hand row, the
        payments (each capped at what its payer holds; the house is never short; ``moved``
        counts a house-to-house payment in full though no row is written), the
        rating changes (account, points; never below 0), an awarded item (skipped if
        the inventory is full), the match's participants' totals (``points``: (n,
        points); coins from the payments' ``payer_n``/``payee_n``), and the hand's
        actions written ahead, which its row now holds. A hand recorded before is left
        alone (``already``). On several nodes (``node``), only the node that holds the
        table's lease settles: ``LeaseLost`` otherwise, nothing written."""
        with self._write() as db:
            if node is not None:
                check_lease(db, match_id, node)
            row = db.execute(
                "SELECT id FROM hand WHERE match_id = ? AND number = ?", (match_id, number)
            ).fetchone()
            if row is not None:
                return Settlement(row[0], (), None, already=True)
            hand_id = self._insert_hand(
                db, match_id, number, round_, hand_number, result, event_log
            )
            moved = []
            for p in payments:
                source, target = self._wallet(db, p.payer), self._wallet(db, p.payee)
                amount = p.amount
                if source != HOUSE_WALLET:
                    amount = min(amount, self._balance(db, source))
                # House to house (a bot pays a bot) moves nothing but counts in full.
                self._move(db, source, target, amount, p.reason, hand_id, match_id)
                amount = max(0, amount)
                moved.append(amount)
                for n, sign in ((p.payer_n, -1), (p.payee_n, 1)):
                    if n is not None and amount:
                        db.execute(
                            "UPDATE match_player SET coins = coins + ? "
                            "WHERE match_id = ? AND n = ?",
                            (sign * amount, match_id, n),
                        )
            for n, gained in points:
                db.execute(
                    "UPDATE match_player SET points = points + ? WHERE match_id = ? AND n = ?",
                    (gained, match_id, n),
                )
            db.execute(
                "DELETE FROM match_action WHERE match_id = ? AND hand = ?", (match_id, number)
            )
            for account_id, change in ratings:
                db.execute(
                    "UPDATE account SET rating = max(0, rating + ?) WHERE id = ?",
                    (change, account_id),
                )
            awarded = lost = None
            if award is not None:
                db.execute("SAVEPOINT award")
                try:
                    self._add_items(db, award[0], award[1], 1)
                    awarded = award[1]
                    db.execute("RELEASE award")
                except InventoryFull:
                    db.execute("ROLLBACK TO award")
                    db.execute("RELEASE award")
                    lost = award[1]
        return Settlement(hand_id, tuple(moved), awarded, already=False, lost=lost)

    # -- levels ----------------------------------------------------------------------

    def leaderboard(self, limit: int = 20) -> list[LeaderRow]:
        """The best players by rating (players only, banned ones left out)."""
        rows = self._db.execute(
            "SELECT name, rating FROM account WHERE kind = 'player' AND banned = 0 "
            "ORDER BY rating DESC, name LIMIT ?",
            (limit,),
        ).fetchall()
        return [LeaderRow(*r) for r in rows]
