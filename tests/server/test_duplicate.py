"""Duplicate tournaments over TCP (docs/rules.md §2.14): every table of a session plays
the same deals on personal walls, each at its own speed, the seats turning with each
deal; the session's hands stay closed (history, replays, spectators) until every table
has played every deal; the results are scores against the field."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj.game.duplicate import deals_from_seed, seating
from gbmj.game.wall import commitment_of
from gbmj_server import cli
from gbmj_server.admin_socket import serve_admin
from gbmj_server.moderation import Moderator
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from gbmj_server.tournaments.runner import Settings
from server.conftest import TEST_CONFIG, start
from server.wireclient import WireClient, play

pytestmark = pytest.mark.trio


@pytest.mark.slow
async def test_two_tables_play_the_same_deals_and_stay_closed_until_both_have(
    connect, server: Server
) -> None:
    tournaments = server.services.tournaments if server.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host",
        Settings(
            name="duplicate night",
            sessions=1,
            hands=4,
            grace_seconds=30,
            pause_seconds=0,
            spectators=True,
            duplicate=True,
        ),
    )
    clients: list[WireClient] = []
    for i in range(8):
        client = await connect()
        await client.register(f"dup{i}")
        await client.ok("enter_tournament", tournament_id=t.id)
        clients.append(client)
    await tournaments.start(t.id)
    seated = [await c.expect("tournament_seated", where=lambda m: "table_id" in m) for c in clients]
    # The deals' commitments are published from the session's start.
    published = (await outsider_view(connect, t.id))["deals"]
    assert len(published) == 4
    first = seated[0]["table_id"]
    second = next(s["table_id"] for s in seated if s["table_id"] != first)

    # Nobody may watch a duplicate table while its session is in play (the organiser
    # allows spectators: the refusal is the deals').
    outsider = await connect()
    await outsider.register("dupwatcher")
    reply = await outsider.request("spectate", table_id=second)
    assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply

    # The first table plays its four deals while the second waits.
    results: dict[int, list[dict[str, Any]]] = {}
    go_on = trio.Event()

    async def player(i: int) -> None:
        table_id = seated[i]["table_id"]
        if table_id == second:
            await go_on.wait()
        results[i] = await play(clients[i], table_id)

    async with trio.open_nursery() as nursery:
        for i in range(8):
            nursery.start_soon(player, i)
        with trio.fail_after(60):
            while sum(1 for i in results if seated[i]["table_id"] == first) < 4:
                await trio.sleep(0.05)
        done = next(i for i in results if seated[i]["table_id"] == first)
        hand = results[done][0]
        assert len(results[done]) == 4
        assert len(hand["wall_order"]) == 136  # personal walls
        # The second table has not played these deals: the first's hands stay closed,
        # to its own players too.
        for request, fields in (
            ("get_match", {"match_id": hand["match_id"]}),
            ("get_hand", {"hand_id": hand["hand_id"]}),
        ):
            reply = await clients[done].request(request, **fields)
            assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply
        go_on.set()

    with trio.fail_after(30):
        while (detail := await clients[0].ok("get_tournament", tournament_id=t.id))["tournament"][
            "state"
        ] != "finished":
            await trio.sleep(0.05)

    # Now every table has played every deal: the hands open, with their walls.
    deals = deals_from_seed(min(tournaments_seeds(server, t.id)), 4)
    assert published == [d.walls(0, k + 1).commitment for k, d in enumerate(deals)]
    by_table: dict[int, list[dict[str, Any]]] = {}
    for i, mine in results.items():
        by_table.setdefault(seated[i]["table_id"], mine)
    for table_id, hands in by_table.items():
        table_index = next(s["table_number"] for s in seated if s["table_id"] == table_id) - 1
        for k, result in enumerate(hands):
            log = await clients[0].ok("get_hand", hand_id=result["hand_id"])
            walls = deals[k].walls(result["match_id"], k + 1)
            assert log["wall_order"] == [int(x) for x in walls.order]
            assert log["dealer"] == deals[k].dealer
            assert log["commitment"] == walls.commitment
            # The walls revealed are the deal promised at the session's start.
            order, salt = log["wall_order"], bytes.fromhex(log["salt"])
            assert commitment_of(order, salt, 0, k + 1) == published[k]
            assert log["players"] == [
                next(
                    f"dup{i}"
                    for i in range(8)
                    if seated[i]["table_id"] == table_id
                    and seated[i]["place"] == seating(k, table_index)[s]
                )
                for s in range(4)
            ]
    # Two tables: each deal and seat compared by the difference, on the step scale: the
    # scores sum to zero, and table points are not what ranks a duplicate field.
    lines = detail["standings"]
    assert len(lines) == 8
    assert sum(line["score"] for line in lines) == 0
    assert all(line["table_points"] == 0 for line in lines)
    reply = await outsider.request("spectate", table_id=second)
    assert reply["type"] == "error" and reply["code"] != "deal_in_play"


async def outsider_view(connect: Any, tournament_id: int) -> dict[str, Any]:
    client = await connect()
    await client.register("dupreader")
    detail = await client.ok("get_tournament", tournament_id=tournament_id)
    await client.aclose()
    return detail


def tournaments_seeds(server: Server, tournament_id: int) -> list[bytes]:
    """The seeds of the session's tables, ordered by table number (the first table's
    draws the deals)."""
    assert server.services is not None
    tables = server.services.store.storage.session_tables(tournament_id, 1)
    return [x.seed for x in sorted(tables, key=lambda x: x.number)][:1]


@pytest.mark.slow
async def test_a_restart_resumes_a_duplicate_session_on_its_deals(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    """The server stops after a duplicate session's first hand and starts again on the
    same file: the match resumes as the duplicate match it was (deal 2 on its personal
    walls), the session's hands stay closed until it ends, then open."""
    path = tmp_path / "gbmj.sqlite3"
    storage = Storage(path)
    first = Server(storage, TEST_CONFIG)
    running = await start(nursery, first)
    tournaments = first.services.tournaments if first.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host",
        Settings(name="again", sessions=1, hands=2, grace_seconds=30, duplicate=True),
    )

    async def connect_to(srv: Server) -> WireClient:
        assert srv.port is not None
        client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
        await client.hello()
        return client

    names = [f"dupagain{i}" for i in range(4)]
    clients = []
    for name in names:
        client = await connect_to(first)
        await client.register(name)
        await client.ok("enter_tournament", tournament_id=t.id)
        clients.append(client)
    await tournaments.start(t.id)
    seated = await clients[0].expect("tournament_seated", where=lambda m: "table_id" in m)
    firsts: list[list[dict[str, Any]]] = []

    async def first_hand(client: WireClient) -> None:
        firsts.append(await play(client, seated["table_id"], until="hand_result"))

    async with trio.open_nursery() as hands:
        for client in clients:
            hands.start_soon(first_hand, client)
    await running.stop()
    storage.close()

    storage = Storage(path)
    second = Server(storage, TEST_CONFIG)
    running = await start(nursery, second)
    try:
        again = []
        for name in names:
            client = await connect_to(second)
            await client.ok("login", name=name, password="secret-pw")
            again.append(client)
        # Closed from the restart on: the first hand is not readable yet.
        reply = await again[0].request("get_hand", hand_id=firsts[0][0]["hand_id"])
        assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply
        seen: list[list[dict[str, Any]]] = []

        async def finish(client: WireClient) -> None:
            snapshot = await client.expect("snapshot")
            seen.append(await play(client, snapshot["table"]["table_id"]))

        async with trio.open_nursery() as rest:
            for client in again:
                rest.start_soon(finish, client)
        assert second.services is not None and second.services.tournaments is not None
        with trio.fail_after(10):
            while (
                detail := await second.services.tournaments.detail(t.id)
            ).record.state != "finished":
                await trio.sleep(0.05)
        (table,) = detail.tables
        deals = deals_from_seed(table.seed, 2)
        (last,) = {r["hand_id"] for results in seen for r in results}
        log = await again[0].ok("get_hand", hand_id=last)
        assert log["number"] == 2
        assert log["wall_order"] == [int(x) for x in deals[1].walls(log["match_id"], 2).order]
        assert sum(r.score for r in detail.results) == 0  # one table: nobody to compare with
    finally:
        await running.stop()
        storage.close()


async def test_the_host_creates_a_duplicate_session_from_the_command_line(
    server: Server, nursery: trio.Nursery
) -> None:
    assert server.services is not None and server.services.tournaments is not None
    db = server.store.storage.path
    await nursery.start(serve_admin, db, Moderator(server.services))

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = cli.admin(["--db", str(db), "tournament", "create", *argv])
        return status, out.getvalue()

    status, said = await trio.to_thread.run_sync(
        run, "Duplicate", "--duplicate", "--sessions", "1", "--hands", "8"
    )
    assert status == 0 and "created" in said, said
    record = await server.services.tournaments.get(int(said.split()[1]))
    assert record.duplicate and record.hands == 8 and record.sessions == 1
    status, said = await trio.to_thread.run_sync(run, "Plain")
    assert status == 0
    assert not (await server.services.tournaments.get(int(said.split()[1]))).duplicate
