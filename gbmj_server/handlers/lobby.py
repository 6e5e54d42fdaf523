"""The lobby's requests: the table list, following it, creating and entering tables.

The tables' share of the limits (docs/hosting.md, "Limits"): an address owns at most
``tables_per_address`` tables at once and runs bots at ``bot_tables_per_address`` of
them; the server holds at most ``max_tables``, ``max_bot_tables`` of them with bots. A
table with bots plays by itself, so it is what costs the server's time.
"""

from __future__ import annotations

from gbmj_server.handlers.common import signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.nodes.leases import hosted_player
from gbmj_server.services import Services
from gbmj_server.tables import commands as do
from protocol import messages as m
from protocol.errors import ErrorCode

handlers: Handlers[Services] = Handlers()


@handlers.on(m.ListTables)
async def list_tables(services: Services, conn: Connection, request: m.ListTables) -> m.Message:
    return services.lobby.page(request.offset or 0)


@handlers.on(m.WatchLobby)
async def watch_lobby(services: Services, conn: Connection, request: m.WatchLobby) -> m.Message:
    lobby = services.lobby
    if not request.on:
        lobby.unwatch(conn)
        return m.TableList(tables=(), total=lobby.tables, players_online=lobby.online)
    if conn.session.table is not None:
        raise RequestError(ErrorCode.NOT_EXPECTED, f"you are at table {conn.session.table}")
    return lobby.watch(conn, request.offset or 0)


@handlers.on(m.CreateTable)
async def create_table(services: Services, conn: Connection, request: m.CreateTable) -> None:
    """A new table, entered by its owner (not yet seated)."""
    if conn.session.table is not None:
        raise RequestError(ErrorCode.NOT_EXPECTED, f"leave table {conn.session.table} first")
    tables, guard, limits = services.tables, services.guard, services.config.limits
    for waiting in tables.waiting_for(signed_in_id(conn)):
        await waiting.call(do.GiveUpWaiting())
    address = guard.key(conn.address)
    if not guard.is_trusted(conn.address) and (
        tables.owned_from(address) >= limits.tables_per_address
    ):
        raise RequestError(ErrorCode.RATE_LIMITED, "your address owns as many tables as allowed")
    if len(tables) >= limits.max_tables:
        raise RequestError(ErrorCode.SERVER_BUSY, "the server has as many tables as it can hold")
    table_id = await tables.new_id()
    actor = tables.create(request.settings, request.password, conn, address, table_id)
    await actor.request(conn, request.id, do.Enter(conn, request.password))


@handlers.on(m.JoinTable)
async def join_table(
    services: Services, conn: Connection, request: m.JoinTable
) -> m.Message | None:
    """Enter a table to play (a member asking again gets a fresh snapshot; a player of
    its running match is back at the seat); a table another node holds: a redirect."""
    redirect = await _redirect(services, conn, request.table_id)
    if redirect is not None:
        return redirect
    actor = services.tables.get(request.table_id)
    await actor.request(conn, request.id, do.Enter(conn, request.password))
    return None


@handlers.on(m.Spectate)
async def spectate(services: Services, conn: Connection, request: m.Spectate) -> m.Message | None:
    redirect = await _redirect(services, conn, request.table_id)
    if redirect is not None:
        return redirect
    actor = services.tables.get(request.table_id)
    await actor.request(conn, request.id, do.Enter(conn, request.password))
    return None


async def _redirect(services: Services, conn: Connection, table_id: int) -> m.Redirect | None:
    """On several nodes, a table this node does not run: where it runs (docs/hosting.md,
    "More than one machine")."""
    leases = services.tables.leases
    if leases is None or table_id in services.tables.actors:
        return None
    return await leases.redirect(signed_in_id(conn), table_id, hosted_player(conn))


def check_bot_room(services: Services, conn: Connection) -> None:
    """Refuse a first bot at a table when ``conn``'s address runs bots at as many tables
    as allowed, or the server at ``max_bot_tables``. Called in the table's task, in the
    same step as the bot is seated, so two tables cannot both take the last place; it
    reads the registry's index of bot tables, which the tables keep current."""
    tables, guard, limits = services.tables, services.guard, services.config.limits
    if not guard.is_trusted(conn.address) and (
        tables.with_bots(guard.key(conn.address)) >= limits.bot_tables_per_address
    ):
        raise RequestError(
            ErrorCode.RATE_LIMITED, "your address has bots at as many tables as allowed"
        )
    if tables.with_bots() >= limits.max_bot_tables:
        raise RequestError(ErrorCode.SERVER_BUSY, "the server runs as many bot tables as it can")
