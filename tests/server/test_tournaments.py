"""Club tournaments run by the server (docs/rules.md §2.12): players register over the
wire, the server seats each session, opens its tables, records the results and seats
the next session."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest
import trio
import trio.testing

from gbmj_server.server import Server
from gbmj_server.tournaments.runner import Settings
from server.wireclient import WireClient, play

pytestmark = pytest.mark.trio


async def _entered(connect: Any, tournament_id: int, names: list[str]) -> list[WireClient]:
    clients = []
    for name in names:
        client = await connect()
        await client.register(name)
        await client.ok("enter_tournament", tournament_id=tournament_id)
        clients.append(client)
    return clients


async def _play_session(client: WireClient, session: int) -> dict[str, Any]:
    seated = await client.expect(
        "tournament_seated", session=session, where=lambda m: "table_id" in m
    )
    await play(client, seated["table_id"])
    return seated


async def test_eight_players_play_two_sessions(connect, server: Server) -> None:
    tournaments = server.services.tournaments if server.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host",
        Settings(name="club night", sessions=2, hands=1, grace_seconds=30, pause_seconds=0),
    )
    names = [f"player{i}" for i in range(8)]
    clients = await _entered(connect, t.id, names)
    listed = await clients[0].ok("list_tournaments")
    (shown,) = listed["tournaments"]
    assert (shown["state"], shown["entrants"], shown["entered"]) == ("open", 8, True)
    refused = await clients[0].request("enter_tournament", tournament_id=t.id)
    assert refused["code"] == "tournament_refused"
    assert (await clients[0].request("get_tournament", tournament_id=99))["code"] == (
        "no_such_tournament"
    )
    await tournaments.start(t.id)

    seats: dict[int, list[dict[str, Any]]] = {1: [], 2: []}

    async def player(client: WireClient) -> None:
        for session in (1, 2):
            seats[session].append(await _play_session(client, session))

    async with trio.open_nursery() as nursery:
        for client in clients:
            nursery.start_soon(player, client)

    # Each session: two tables of four, each place once per table.
    for session in (1, 2):
        tables = Counter(s["table_id"] for s in seats[session])
        assert sorted(tables.values()) == [4, 4]
        for table_id in tables:
            assert sorted(s["place"] for s in seats[session] if s["table_id"] == table_id) == [
                0,
                1,
                2,
                3,
            ]
    with trio.fail_after(10):
        while (detail := await clients[0].ok("get_tournament", tournament_id=t.id))["tournament"][
            "state"
        ] != "finished":
            await trio.sleep(0.05)
    lines = detail["standings"]
    assert len(lines) == 8 and all(line["sessions"] == 2 for line in lines)
    assert sum(line["table_points"] for line in lines) == 84 * 4
    keys = [(-line["table_points"], -line["score"]) for line in lines]
    assert keys == sorted(keys)
    for session in (1, 2):
        one = await clients[1].ok("get_tournament", tournament_id=t.id, session=session)
        assert len(one["tables"]) == 2
        for table in one["tables"]:
            assert sum(table["table_points"]) == 84
            assert "match_id" in table
            # each session's match is in the history, readable by its players
            match = await clients[0].ok("get_match", match_id=table["match_id"])
            assert match["type"] == "match_detail"
    # Session 2 made the fewest repeat meetings eight players allow: each new table
    # takes two players of each first-session table (one pair met before on each side).
    met: Counter[tuple[str, ...]] = Counter()
    for session in (1, 2):
        one = await clients[1].ok("get_tournament", tournament_id=t.id, session=session)
        for table in one["tables"]:
            met.update(combinations(sorted(table["players"]), 2))
    assert sum(count - 1 for count in met.values()) == 4
