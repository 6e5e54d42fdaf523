"""What the rest of the server may ask a table: each command a value sent to the table's
actor (``TableActor.call`` and ``request``), run by the table's task alone.

Handlers, moderation and the tournament runner build these and await the answer; only
the code here (and the table's own modules) reads or changes a ``Table``. What needs
the database first (a player's coins and level) is read before the command is sent, and
checked again inside it where it matters.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

from gbmj.economy.items import SIGN_PROTECTION
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.storage import LedgerError
from gbmj_server.tables import items, powers
from gbmj_server.tables.play import Play
from gbmj_server.tables.session_rules import SessionRules
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.messages import ActionChoice
from protocol.vocabulary import BotLevel, Cloth, Item

T = TypeVar("T")


class Command(ABC, Generic[T]):
    """A request to one table; its answer is ``T`` (``m.Message`` answers a request)."""

    __slots__ = ()

    @abstractmethod
    def __call__(self, table: Table) -> T | Awaitable[T]: ...


def running(table: Table) -> Play:
    """The table's running match (``not_expected`` when none runs)."""
    if not isinstance(table.play, Play):
        raise RequestError(ErrorCode.NOT_EXPECTED, "no match is running")
    return table.play


async def _use_item(table: Table, conn: Connection, item: Item, missing: str) -> None:
    """Take one ``item`` from ``conn``'s player (guests hold none)."""
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        raise RequestError(ErrorCode.NO_SUCH_ITEM, missing)
    store = table.ctx.store
    try:
        await store.call(store.storage.use_item, account.id, item)
    except LedgerError as exc:
        raise RequestError(ErrorCode(exc.code), str(exc)) from None


# -- entering and leaving ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Enter(Command[m.Snapshot]):
    """``join_table`` and ``spectate`` (``Table.enter``)."""

    conn: Connection
    password: str | None

    def __call__(self, table: Table) -> m.Snapshot:
        return table.enter(self.conn, self.password)


@dataclass(frozen=True, slots=True)
class Leave(Command[None]):
    conn: Connection

    async def __call__(self, table: Table) -> None:
        await table.leave(self.conn)


@dataclass(frozen=True, slots=True)
class WelcomeBack(Command[None]):
    """A player seated here signed in again."""

    conn: Connection

    def __call__(self, table: Table) -> None:
        table.welcome_back(self.conn)


@dataclass(frozen=True, slots=True)
class Disconnected(Command[None]):
    conn: Connection

    def __call__(self, table: Table) -> None:
        table.disconnected(self.conn)


@dataclass(frozen=True, slots=True)
class GiveUpWaiting(Command[None]):
    """Its owner made another table: an empty table kept for them closes."""

    def __call__(self, table: Table) -> None:
        table.give_up_waiting()


# -- seats -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Sit(Command[None]):
    conn: Connection
    slot: int
    level: int | None
    coins: int | None

    def __call__(self, table: Table) -> None:
        table.sit(self.conn, self.slot, self.level, self.coins)


@dataclass(frozen=True, slots=True)
class Stand(Command[None]):
    conn: Connection

    def __call__(self, table: Table) -> None:
        table.stand(self.conn)


@dataclass(frozen=True, slots=True)
class SetReady(Command[None]):
    conn: Connection
    ready: bool
    coins: int | None

    def __call__(self, table: Table) -> None:
        table.set_ready(self.conn, self.ready, self.coins)


@dataclass(frozen=True, slots=True)
class Spend(Command[T]):
    """Coins leaving a seated player's account (``Table.spend``)."""

    conn: Connection
    purchase: Callable[[], Awaitable[T]]

    async def __call__(self, table: Table) -> T:
        return await table.spend(self.conn, self.purchase)


# -- the owner's powers and the host's -----------------------------------------------
@dataclass(frozen=True, slots=True)
class Kick(Command[None]):
    conn: Connection
    slot: int

    def __call__(self, table: Table) -> None:
        powers.kick(table, self.conn, self.slot)


@dataclass(frozen=True, slots=True)
class AddBot(Command[None]):
    """A bot in a seat; the first at a table first passes ``bot_room`` (the limits on
    tables with bots, read from the registry's index in the same step)."""

    conn: Connection
    slot: int
    level: BotLevel
    bot_room: Callable[[], None]

    def __call__(self, table: Table) -> None:
        if not any(s is not None and s.is_bot for s in table.seats):
            self.bot_room()  # a table with bots plays by itself: limited
        powers.add_bot(table, self.conn, self.slot, self.level)


@dataclass(frozen=True, slots=True)
class RemoveBot(Command[None]):
    conn: Connection
    slot: int

    def __call__(self, table: Table) -> None:
        powers.remove_bot(table, self.conn, self.slot)


@dataclass(frozen=True, slots=True)
class Configure(Command[None]):
    """New settings; a new name costs ``sign`` and is then protected."""

    conn: Connection
    settings: m.TableSettings
    password: str | None
    sign: Item

    async def __call__(self, table: Table) -> None:
        conn, settings = self.conn, self.settings
        renaming = powers.check_rename(table, conn, settings)
        store = table.ctx.store
        for seat in table.humans():  # a new stake: everyone seated must cover it
            coins = await store.call(store.storage.balance, seat.holder.account_id)
            who = "you" if seat.conn is conn else seat.holder.name
            table.check_stake(seat.holder.guest, coins, who, settings.stake)
        protect_until = None
        if renaming:
            await _use_item(table, conn, self.sign, "renaming a table takes a table sign")
            protect_until = trio.current_time() + SIGN_PROTECTION[self.sign]
        powers.configure(table, conn, settings, self.password, protect_until)


@dataclass(frozen=True, slots=True)
class LayCloth(Command[None]):
    conn: Connection
    cloth: Cloth

    async def __call__(self, table: Table) -> None:
        powers.require_owner(table, self.conn, before_match=False)
        await _use_item(table, self.conn, Item.TABLECLOTH, "guests hold no tablecloth")
        powers.lay_cloth(table, self.cloth)


@dataclass(frozen=True, slots=True)
class Mute(Command[None]):
    """The owner mutes ``account_id`` at the table."""

    conn: Connection
    account_id: int
    on: bool

    def __call__(self, table: Table) -> None:
        powers.mute(table, self.conn, self.account_id, self.on)


@dataclass(frozen=True, slots=True)
class HostKick(Command[None]):
    account_id: int

    async def __call__(self, table: Table) -> None:
        await powers.host_kick(table, self.account_id)


@dataclass(frozen=True, slots=True)
class Chat(Command[None]):
    conn: Connection
    text: str

    def __call__(self, table: Table) -> None:
        table.chat(self.conn, self.text)


# -- the match ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Act(Command[None]):
    """A game action answering the prompt ``seq``."""

    conn: Connection
    seq: int
    action: ActionChoice

    async def __call__(self, table: Table) -> None:
        await running(table).act(self.conn, self.seq, self.action)


@dataclass(frozen=True, slots=True)
class SetAutoPlay(Command[None]):
    conn: Connection
    on: bool

    def __call__(self, table: Table) -> None:
        slot = table.require_slot(self.conn)
        running(table).set_auto_play(slot, self.on)


@dataclass(frozen=True, slots=True)
class CloseResult(Command[None]):
    conn: Connection

    def __call__(self, table: Table) -> None:
        if isinstance(table.play, Play):  # after the last hand nothing waits: ok all the same
            table.play.result_closed(self.conn)


@dataclass(frozen=True, slots=True)
class ArmExtension(Command[None]):
    conn: Connection
    armed: bool

    async def __call__(self, table: Table) -> None:
        await items.arm_extension(table, self.conn, self.armed)


@dataclass(frozen=True, slots=True)
class UseTileCounter(Command[m.TileCounts]):
    conn: Connection

    async def __call__(self, table: Table) -> m.TileCounts:
        return await items.use_tile_counter(table, running(table).st, self.conn)


# -- a tournament's table ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GiveRules(Command[None]):
    """The session's rules, now known (a resumed table)."""

    rules: SessionRules

    def __call__(self, table: Table) -> None:
        table.tournament = self.rules


@dataclass(frozen=True, slots=True)
class CloseSessionTable(Command[None]):
    """The session is over: the table closes (unless still playing)."""

    def __call__(self, table: Table) -> None:
        if table.play is not None:
            return  # still playing (should not be): it closes by itself when empty
        for slot in range(4):
            table.set_seat(slot, None)
        table.close()
