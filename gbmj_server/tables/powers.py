"""What a table's owner may do to it (docs/rules.md §2.2, §2.11), and what the host may:
functions over the room, called in the table's task like every command."""

from __future__ import annotations

import math

import trio

from gbmj.bots import make_bot
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.tables.seat import Seat, bot_participant
from gbmj_server.tables.settings import checked, with_fee
from gbmj_server.tables.table import Table, password_digest
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import BotLevel, Cloth, LeaveReason


def require_owner(table: Table, conn: Connection, *, before_match: bool = True) -> None:
    if conn.session.account_id != table.owner_id:
        raise RequestError(ErrorCode.NOT_OWNER, "only the table's owner may do that")
    if before_match and table.play is not None:
        raise RequestError(ErrorCode.MATCH_RUNNING, "not once the match has started")


def check_rename(table: Table, conn: Connection, settings: m.TableSettings) -> bool:
    """Whether ``configure`` would rename the table (it costs a table sign)."""
    require_owner(table, conn)
    _check_bots(table, settings)
    if checked(settings).name == table.settings.name:
        return False
    now = trio.current_time()
    if now < table.name_protected_until:
        minutes = math.ceil((table.name_protected_until - now) / 60)
        left = f"{minutes} min" if minutes <= 90 else f"{math.ceil(minutes / 60)} h"
        raise RequestError(ErrorCode.NAME_PROTECTED, f"the name is protected {left} more")
    return True


def _check_bots(table: Table, settings: m.TableSettings) -> None:
    if not settings.bots_allowed and any(s is not None and s.is_bot for s in table.seats):
        raise RequestError(ErrorCode.BOTS_NOT_ALLOWED, "remove the bots first")


def configure(
    table: Table,
    conn: Connection,
    settings: m.TableSettings,
    password: str | None,
    protect_until: float | None,
) -> None:
    """New settings; everyone seated confirms again (ready flags cleared)."""
    require_owner(table, conn)
    settings = checked(settings)
    _check_bots(table, settings)
    table.settings = with_fee(settings, table.ctx.table_fee)
    table.password_digest = password_digest(password)
    if protect_until is not None:
        table.name_protected_until = protect_until
    for seat in table.seats:
        if seat is not None:
            seat.ready = False
    table.changed()


def lay_cloth(table: Table, cloth: Cloth) -> None:
    """The owner's tablecloth (§2.6), before or during a match: every member sees it."""
    table.cloth = cloth
    table.changed()


def add_bot(table: Table, conn: Connection, slot: int, level: BotLevel) -> None:
    """A bot in an empty seat: before the match, or in a seat left empty for want of
    coins during one (the match then goes on)."""
    require_owner(table, conn, before_match=table.seats[slot] is not None or table.play is None)
    if not table.settings.bots_allowed:
        raise RequestError(ErrorCode.BOTS_NOT_ALLOWED, "this table allows no bots")
    if table.seats[slot] is not None:
        raise RequestError(ErrorCode.SEAT_TAKEN, f"seat {slot} is taken")
    bot = Seat(bot_participant(slot, level), ready=True)
    bot.brain = make_bot(level, seed=table.ctx.rng.getrandbits(64))
    table.set_seat(slot, bot)
    if table.play is not None:
        table.play.seat_filled(slot)
    table.maybe_start()


def remove_bot(table: Table, conn: Connection, slot: int) -> None:
    require_owner(table, conn)
    held = table.seats[slot]
    if held is None or not held.is_bot:
        raise RequestError(ErrorCode.SEAT_EMPTY, f"no bot in seat {slot}")
    table.set_seat(slot, None)


def kick(table: Table, conn: Connection, slot: int) -> None:
    """The owner removes a player before the match; they may not sit here again until
    the table's next match has ended (§2.11)."""
    require_owner(table, conn)
    held = table.seats[slot]
    if held is None or held.is_bot:
        raise RequestError(ErrorCode.SEAT_EMPTY, f"no player in seat {slot}")
    if held.holder.account_id == table.owner_id:
        raise RequestError(ErrorCode.NOT_EXPECTED, "you cannot kick yourself")
    assert held.holder.account_id is not None
    table.kicked.add(held.holder.account_id)
    table.set_seat(slot, None)
    if held.conn is not None:
        table.dismiss(held.conn, LeaveReason.KICKED)


def mute(table: Table, conn: Connection, account_id: int, on: bool) -> None:
    """The owner mutes (or unmutes) a player at this table, for everyone."""
    require_owner(table, conn, before_match=False)
    if on:
        table.muted.add(account_id)
    else:
        table.muted.discard(account_id)


async def host_kick(table: Table, account_id: int) -> None:
    """The host takes a player off this table (docs/rules.md §2.11): a seat in the
    running match goes to a bot, as for an escape; no seat here until the next match
    has ended."""
    conn = next((c for c in table.members if c.session.account_id == account_id), None)
    slot = next(
        (
            i
            for i, s in enumerate(table.seats)
            if s is not None and s.holder.account_id == account_id
        ),
        None,
    )
    if conn is None and slot is None:
        raise RequestError(ErrorCode.NOT_SEATED, "that player is not at this table")
    table.kicked.add(account_id)
    if slot is not None:
        if table.play is not None:
            await table.play.escape(slot, LeaveReason.KICKED)
        else:
            table.set_seat(slot, None)
    if conn is not None:
        table.dismiss(conn, LeaveReason.KICKED)
