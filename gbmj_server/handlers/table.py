"""Requests at a table: seats, readiness, the owner's powers, the game's actions, items.

Each is a command run by the table's actor (``gbmj_server.tables``); what needs the
database first (a player's coins and level) is read before the command, and checked
again inside it where it matters.
"""

from __future__ import annotations

import trio

from gbmj.economy.items import SIGN_PROTECTION
from gbmj.game.actions import action_of
from gbmj_server import metrics
from gbmj_server.handlers.common import at_table, signed_in_id
from gbmj_server.handlers.lobby import check_bot_room
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.profiles import profile
from gbmj_server.services import Services
from gbmj_server.storage import LedgerError
from gbmj_server.tables import items, powers
from gbmj_server.tables.play import Play
from gbmj_server.tables.registry import has_bots
from gbmj_server.tables.settings import checked
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.tiles import Tile
from protocol.vocabulary import Item

handlers: Handlers[Services] = Handlers()


def running(table: Table) -> Play:
    """The table's running match (``not_expected`` when none runs)."""
    if not isinstance(table.play, Play):
        raise RequestError(ErrorCode.NOT_EXPECTED, "no match is running")
    return table.play


@handlers.on(m.Sit)
async def sit(services: Services, conn: Connection, request: m.Sit) -> None:
    actor = at_table(services, conn, request.table_id)
    assert conn.account is not None
    mine = await profile(services.store, conn.account.id, conn.account.name, conn.account.is_guest)
    await actor.request(
        conn, request.id, lambda t: t.sit(conn, request.seat, mine.level, mine.coins)
    )


@handlers.on(m.Stand)
async def stand(services: Services, conn: Connection, request: m.Stand) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, lambda t: t.stand(conn))


@handlers.on(m.Ready)
async def ready(services: Services, conn: Connection, request: m.Ready) -> None:
    actor = at_table(services, conn, request.table_id)
    coins = await services.store.call(services.store.storage.balance, signed_in_id(conn))
    await actor.request(conn, request.id, lambda t: t.set_ready(conn, request.ready, coins))


@handlers.on(m.LeaveTable)
async def leave_table(services: Services, conn: Connection, request: m.LeaveTable) -> None:
    """Back to the lobby; during a match this is an escape (docs/rules.md §2.4)."""
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, lambda t: t.leave(conn))


@handlers.on(m.Kick)
async def kick(services: Services, conn: Connection, request: m.Kick) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, lambda t: powers.kick(t, conn, request.seat))


@handlers.on(m.AddBot)
async def add_bot(services: Services, conn: Connection, request: m.AddBot) -> None:
    actor = at_table(services, conn, request.table_id)
    level = request.level

    def add(table: Table) -> None:
        if not has_bots(table):
            check_bot_room(services, conn)  # a table with bots plays by itself: limited
        powers.add_bot(table, conn, request.seat, level)

    await actor.request(conn, request.id, add)


@handlers.on(m.RemoveBot)
async def remove_bot(services: Services, conn: Connection, request: m.RemoveBot) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, lambda t: powers.remove_bot(t, conn, request.seat))


@handlers.on(m.ConfigureTable)
async def configure_table(services: Services, conn: Connection, request: m.ConfigureTable) -> None:
    """New settings; a new name costs a sign and is then protected (a table sign: an
    hour; a gold sign: 24 hours)."""
    actor = at_table(services, conn, request.table_id)
    settings = checked(request.settings)
    sign = request.sign or Item.TABLE_SIGN
    if sign not in SIGN_PROTECTION:
        raise RequestError(ErrorCode.OUT_OF_RANGE, "sign must be table_sign or gold_sign")
    store = services.store

    async def configure(table: Table) -> None:
        renaming = powers.check_rename(table, conn, settings)
        for seat in table.humans():  # a new stake: everyone seated must cover it
            coins = await store.call(store.storage.balance, seat.holder.account_id)
            who = "you" if seat.conn is conn else seat.holder.name
            table.check_stake(seat.holder.guest, coins, who, settings.stake)
        protect_until = None
        if renaming:
            assert conn.account is not None
            if conn.account.is_guest:
                raise RequestError(ErrorCode.NO_SUCH_ITEM, "renaming a table takes a table sign")
            try:
                await store.call(store.storage.use_item, conn.account.id, sign)
            except LedgerError as exc:
                raise RequestError(ErrorCode(exc.code), str(exc)) from None
            protect_until = trio.current_time() + SIGN_PROTECTION[sign]
        powers.configure(table, conn, settings, request.password, protect_until)

    await actor.request(conn, request.id, configure)


@handlers.on(m.LayTablecloth)
async def lay_tablecloth(services: Services, conn: Connection, request: m.LayTablecloth) -> None:
    """The owner uses a tablecloth: the board's look for everyone, while the table lasts."""
    actor = at_table(services, conn, request.table_id)
    store = services.store

    async def lay(table: Table) -> None:
        powers.require_owner(table, conn, before_match=False)
        assert conn.account is not None
        if conn.account.is_guest:
            raise RequestError(ErrorCode.NO_SUCH_ITEM, "guests hold no tablecloth")
        try:
            await store.call(store.storage.use_item, conn.account.id, Item.TABLECLOTH)
        except LedgerError as exc:
            raise RequestError(ErrorCode(exc.code), str(exc)) from None
        powers.lay_cloth(table, request.cloth)

    await actor.request(conn, request.id, lay)


@handlers.on(m.AutoPlay)
async def auto_play(services: Services, conn: Connection, request: m.AutoPlay) -> None:
    """Switch 托管 on or off (off: the player takes control back)."""
    actor = at_table(services, conn, request.table_id)

    def switch(table: Table) -> None:
        slot = table.require_slot(conn)
        running(table).set_auto_play(slot, request.on)

    await actor.request(conn, request.id, switch)


@handlers.on(m.Action)
async def action(services: Services, conn: Connection, request: m.Action) -> None:
    actor = at_table(services, conn, request.table_id)
    chosen = action_of(request.kind, None if request.tile is None else Tile(request.tile))

    async def act(table: Table) -> None:
        await running(table).act(conn, request.seq, chosen)

    arrived = trio.current_time()
    await actor.request(conn, request.id, act)
    metrics.action_answered(trio.current_time() - arrived)  # its events are out too


@handlers.on(m.ResultClosed)
async def result_closed(services: Services, conn: Connection, request: m.ResultClosed) -> None:
    actor = at_table(services, conn, request.table_id)

    def closed(table: Table) -> None:
        if isinstance(table.play, Play):  # after the last hand nothing waits: ok all the same
            table.play.result_closed(conn)

    await actor.request(conn, request.id, closed)


@handlers.on(m.ArmTimerExtension)
async def arm_timer_extension(
    services: Services, conn: Connection, request: m.ArmTimerExtension
) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, lambda t: items.arm_extension(t, conn, request.armed))


@handlers.on(m.UseTileCounter)
async def use_tile_counter(services: Services, conn: Connection, request: m.UseTileCounter) -> None:
    actor = at_table(services, conn, request.table_id)

    async def use(table: Table) -> m.TileCounts:
        return await items.use_tile_counter(table, running(table).st, conn)

    await actor.request(conn, request.id, use)
