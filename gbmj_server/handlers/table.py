"""Requests at a table: seats, readiness, the owner's powers, the game's actions, items.

Each is a command sent to the table's actor (``gbmj_server.tables.commands``); what
needs the database first (a player's coins and level) is read before the command, and
checked again inside it where it matters.
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
from gbmj_server.tables import commands as do
from gbmj_server.tables.settings import checked
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.tiles import Tile
from protocol.vocabulary import Item

handlers: Handlers[Services] = Handlers()


@handlers.on(m.Sit)
async def sit(services: Services, conn: Connection, request: m.Sit) -> None:
    actor = at_table(services, conn, request.table_id)
    account = conn.session.account
    assert account is not None
    mine = await profile(services.store, account.id, account.name, account.is_guest)
    await actor.request(conn, request.id, do.Sit(conn, request.seat, mine.level, mine.coins))


@handlers.on(m.Stand)
async def stand(services: Services, conn: Connection, request: m.Stand) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.Stand(conn))


@handlers.on(m.Ready)
async def ready(services: Services, conn: Connection, request: m.Ready) -> None:
    actor = at_table(services, conn, request.table_id)
    coins = await services.store.call(services.store.storage.balance, signed_in_id(conn))
    await actor.request(conn, request.id, do.SetReady(conn, request.ready, coins))


@handlers.on(m.LeaveTable)
async def leave_table(services: Services, conn: Connection, request: m.LeaveTable) -> None:
    """Back to the lobby; during a match this is an escape (docs/rules.md §2.4)."""
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.Leave(conn))


@handlers.on(m.Kick)
async def kick(services: Services, conn: Connection, request: m.Kick) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.Kick(conn, request.seat))


@handlers.on(m.AddBot)
async def add_bot(services: Services, conn: Connection, request: m.AddBot) -> None:
    actor = at_table(services, conn, request.table_id)
    command = do.AddBot(conn, request.seat, request.level, lambda: check_bot_room(services, conn))
    await actor.request(conn, request.id, command)


@handlers.on(m.RemoveBot)
async def remove_bot(services: Services, conn: Connection, request: m.RemoveBot) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.RemoveBot(conn, request.seat))


@handlers.on(m.ConfigureTable)
async def configure_table(services: Services, conn: Connection, request: m.ConfigureTable) -> None:
    """New settings; a new name costs a sign and is then protected (a table sign: an
    hour; a gold sign: 24 hours)."""
    actor = at_table(services, conn, request.table_id)
    settings = checked(request.settings)
    sign = request.sign or Item.TABLE_SIGN
    if sign not in SIGN_PROTECTION:
        raise RequestError(ErrorCode.OUT_OF_RANGE, "sign must be table_sign or gold_sign")
    await actor.request(conn, request.id, do.Configure(conn, settings, request.password, sign))


@handlers.on(m.LayTablecloth)
async def lay_tablecloth(services: Services, conn: Connection, request: m.LayTablecloth) -> None:
    """The owner uses a tablecloth: the board's look for everyone, while the table lasts."""
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.LayCloth(conn, request.cloth))


@handlers.on(m.AutoPlay)
async def auto_play(services: Services, conn: Connection, request: m.AutoPlay) -> None:
    """Switch 托管 on or off (off: the player takes control back)."""
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.SetAutoPlay(conn, request.on))


@handlers.on(m.Action)
async def action(services: Services, conn: Connection, request: m.Action) -> None:
    actor = at_table(services, conn, request.table_id)
    chosen = action_of(request.kind, None if request.tile is None else Tile(request.tile))
    arrived = trio.current_time()
    await actor.request(conn, request.id, do.Act(conn, request.seq, chosen))
    metrics.action_answered(trio.current_time() - arrived)  # its events are out too


@handlers.on(m.ResultClosed)
async def result_closed(services: Services, conn: Connection, request: m.ResultClosed) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.CloseResult(conn))


@handlers.on(m.ArmTimerExtension)
async def arm_timer_extension(
    services: Services, conn: Connection, request: m.ArmTimerExtension
) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.ArmExtension(conn, request.armed))


@handlers.on(m.UseTileCounter)
async def use_tile_counter(services: Services, conn: Connection, request: m.UseTileCounter) -> None:
    actor = at_table(services, conn, request.table_id)
    await actor.request(conn, request.id, do.UseTileCounter(conn))
