"""The lobby's requests: the table list, following it, creating and entering tables."""

from __future__ import annotations

from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from protocol import messages as m
from protocol.errors import ErrorCode

handlers = Handlers()


@handlers.on(m.ListTables)
async def list_tables(services: Services, conn: Connection, request: m.ListTables) -> m.Message:
    return services.lobby.page(request.offset or 0)


@handlers.on(m.WatchLobby)
async def watch_lobby(services: Services, conn: Connection, request: m.WatchLobby) -> m.Message:
    lobby = services.lobby
    if not request.on:
        lobby.unwatch(conn)
        return m.TableList(
            tables=(), total=lobby.tables, players_online=services.sessions.signed_in
        )
    if conn.table is not None:
        raise RequestError(ErrorCode.NOT_EXPECTED, f"you are at table {conn.table.id}")
    return lobby.watch(conn, request.offset or 0)


@handlers.on(m.CreateTable)
async def create_table(services: Services, conn: Connection, request: m.CreateTable) -> None:
    """A new table, entered by its owner (not yet seated)."""
    if conn.table is not None:
        raise RequestError(ErrorCode.NOT_EXPECTED, f"leave table {conn.table.id} first")
    tables, guard = services.tables, services.guard
    address = guard.key(conn.address)
    if not guard.is_trusted(conn.address) and (
        tables.owned_from(address) >= services.config.limits.tables_per_address
    ):
        raise RequestError(ErrorCode.RATE_LIMITED, "your address owns as many tables as allowed")
    actor = tables.create(request.settings, request.password, conn, address)
    await actor.request(conn, request.id, lambda table: table.enter(conn, request.password))


@handlers.on(m.JoinTable)
async def join_table(services: Services, conn: Connection, request: m.JoinTable) -> None:
    """Enter a table to play (a member asking again gets a fresh snapshot; a player of
    its running match is back at the seat)."""
    actor = services.tables.get(request.table_id)
    await actor.request(conn, request.id, lambda table: table.enter(conn, request.password))


@handlers.on(m.Spectate)
async def spectate(services: Services, conn: Connection, request: m.Spectate) -> None:
    actor = services.tables.get(request.table_id)
    await actor.request(conn, request.id, lambda table: table.enter(conn, request.password))
