"""The registry's indexes (gbmj_server.tables.registry): where each player is seated and
at which table they are, the tables with bots, each table's status and its lobby entry,
all kept from the reports the tables' tasks send, and emptied when a table closes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio

from gbmj_server.net.connection import Connection
from gbmj_server.server import Server
from protocol.vocabulary import TableStatus
from server.conftest import Make
from server.wireclient import WireClient, connect_from

pytestmark = pytest.mark.trio


async def until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(10):
        while not condition():
            await trio.sleep(0.01)


def connection_of(srv: Server, name: str) -> Connection:
    return next(c for c in srv.sessions.connections if c.session.name == name)


async def test_the_indexes_follow_a_player_through_a_table(server: Server, connect) -> None:
    client = await connect()
    await client.register("wanderer")
    conn = connection_of(server, "wanderer")
    account = conn.session.account_id
    assert account is not None
    tables = server.tables
    table_id = await client.create_table()
    assert conn.session.table == table_id  # at the table, not yet seated
    assert tables.where_seated(account) is None
    assert tables.statuses() == {TableStatus.WAITING: 1}

    await client.ok("sit", table_id=table_id, seat=2)
    actor = tables.where_seated(account)
    assert actor is not None and actor.id == table_id
    assert tables.seated() == {account: table_id}

    await client.ok("add_bot", table_id=table_id, seat=0, level="easy")
    assert tables.has_bots(table_id) and tables.with_bots() == 1
    await client.ok("remove_bot", table_id=table_id, seat=0)
    assert not tables.has_bots(table_id) and tables.with_bots() == 0

    await client.ok("stand", table_id=table_id)
    assert tables.where_seated(account) is None and tables.seated() == {}
    reply = await client.request("watch_lobby", on=True)  # at a table: not in the lobby
    assert reply["code"] == "not_expected"

    await client.ok("leave_table", table_id=table_id)
    assert conn.session.table is None
    await until(lambda: table_id not in tables.actors)  # nobody left: it closes
    assert tables.statuses() == {} and tables.seated() == {}
    assert server.lobby.info(table_id) is None
    await client.ok("watch_lobby", on=True)


async def test_a_closing_table_leaves_nothing_in_the_indexes(server: Server, connect) -> None:
    """A seated player drops before the match: the seat goes, then the table; nothing
    stays indexed (the guests' purge no longer keeps them, no bot place is held)."""
    client = await connect()
    await client.register("dropper")
    account = connection_of(server, "dropper").session.account_id
    table_id = await client.create_table()
    await client.ok("sit", table_id=table_id, seat=0)
    await client.ok("add_bot", table_id=table_id, seat=1, level="easy")
    assert server.tables.seated() == {account: table_id} and server.tables.with_bots() == 1
    await client.aclose()
    await until(lambda: table_id not in server.tables.actors)
    assert server.tables.seated() == {} and server.tables.with_bots() == 0
    assert server.tables.statuses() == {}


async def test_two_tables_asking_at_once_cannot_both_take_the_last_bot_place(
    limited: Make,
) -> None:
    srv = await limited(max_bot_tables=1)
    owners: list[WireClient] = []
    table_ids = []
    for n in range(2):
        owner = await connect_from(srv, f"127.0.31.{n + 1}")
        await owner.ok("guest")
        table_ids.append(await owner.create_table())
        owners.append(owner)
    replies: list[dict[str, object]] = []

    async def ask(owner: WireClient, table_id: int) -> None:
        replies.append(await owner.request("add_bot", table_id=table_id, seat=1, level="easy"))

    async with trio.open_nursery() as nursery:
        for owner, table_id in zip(owners, table_ids, strict=True):
            nursery.start_soon(ask, owner, table_id)
    assert sorted(str(r["type"]) for r in replies) == ["error", "ok"]
    assert [r["code"] for r in replies if r["type"] == "error"] == ["server_busy"]
    assert srv.tables.with_bots() == 1
