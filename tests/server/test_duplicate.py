"""Duplicate tournaments over TCP (docs/rules.md §2.14): every table of a session plays
the same deals on personal walls, each at its own speed, the seats turning with each
deal; the session's hands stay closed (history, replays, spectators) until every table
has played every deal; the results are scores against the field."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj.game.duplicate import deals_from_seed, seating
from gbmj.game.wall import commitment_of
from gbmj.replay import Replay, dumps, hand_from_log, match_from_detail, replay_file, verify_text
from gbmj.replay.verify import Trust
from gbmj.tournament.duplicate import DEFAULT_SCALE, DEFAULT_STEPS, scale_of
from gbmj_server import cli
from gbmj_server.admin_socket import serve_admin
from gbmj_server.config import ServerConfig
from gbmj_server.moderation import Moderator
from gbmj_server.server import Server
from gbmj_server.signing import load_signer
from gbmj_server.storage import Storage
from gbmj_server.storage.tournaments import SessionTable
from gbmj_server.tournaments.runner import Settings, session_field_scores
from protocol.messages import HandLog, MatchDetail, Message
from server.conftest import TEST_CONFIG, start
from server.wireclient import WireClient, play

pytestmark = pytest.mark.trio


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[Server]:
    """The tests' server, signing what its history tells (so replay files verify)."""
    path = tmp_path / "gbmj.sqlite3"
    storage = Storage(path)
    srv = Server(storage, TEST_CONFIG, signer=load_signer(ServerConfig(db=path)))
    running = await start(nursery, srv)
    yield srv
    await running.stop()
    storage.close()


@pytest.mark.slow
async def test_two_tables_play_the_same_deals_each_closed_until_both_have_played_it(
    connect, server: Server
) -> None:
    """Table 1 plays both deals while table 2 waits: nothing sent to table 1 carries a
    wall, a salt or a tile of another seat but the winner's; its deals stay closed
    (history, replays, spectators). Table 2 plays deal 1: deal 1 opens, deal 2 stays
    closed; table 2 may be watched (table 1 has ended). At the end every deal is open
    and its walls are the deal promised."""
    tournaments = server.services.tournaments if server.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host",
        Settings(
            name="duplicate night",
            sessions=1,
            hands=2,
            grace_seconds=30,
            pause_seconds=0,
            spectators=True,
            turn_seconds=600,  # nobody's clock runs out while a table waits
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
    assert len(published) == 2
    first = next(s["table_id"] for s in seated if s["table_number"] == 1)
    second = next(s["table_id"] for s in seated if s["table_number"] == 2)
    at_first = [i for i in range(8) if seated[i]["table_id"] == first]
    at_second = [i for i in range(8) if seated[i]["table_id"] == second]

    # Nobody may watch a duplicate table while another table will play its deals (the
    # organiser allows spectators: the refusal is the deals').
    outsider = await connect()
    await outsider.register("dupwatcher")
    for table_id in (first, second):
        reply = await outsider.request("spectate", table_id=table_id)
        assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply

    # Table 1 plays its two deals while table 2 waits.
    results: dict[int, list[dict[str, Any]]] = {}
    async with trio.open_nursery() as nursery:
        for i in at_first:
            nursery.start_soon(lambda i=i: _play_into(results, i, clients[i], first))
    done = at_first[0]
    mine = results[done]
    assert [4 * (r["round_number"] - 1) + r["hand_number"] for r in mine] == [1, 2]
    for i in at_first:  # everything table 1's players were sent: sealed
        assert_sealed(clients[i].seen, seated[i]["place"], table_index=0)

    # Neither deal has been played at table 2: both closed, to table 1's players too.
    for result in mine:
        reply = await clients[done].request("get_hand", hand_id=result["hand_id"])
        assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply
    listed = await clients[done].ok("get_match", match_id=mine[0]["match_id"])
    assert listed["hands"] == []  # the match is there, its closed deals left out
    assert "standings" not in listed  # (their points are the standings')

    # Table 2 plays deal 1, the last table to: its players see its end unsealed.
    seconds: dict[int, list[dict[str, Any]]] = {}
    async with trio.open_nursery() as nursery:
        for i in at_second:
            nursery.start_soon(
                lambda i=i: _play_into(seconds, i, clients[i], second, until="hand_result")
            )
    (deal_1,) = seconds[at_second[0]]
    assert len(deal_1["wall_order"]) == 136 and deal_1["salt"]
    assert all(deal_1["concealed"])
    # Deal 1 has opened (walls and all), deal 2 has not.
    log = await clients[done].ok("get_hand", hand_id=mine[0]["hand_id"])
    assert commitment_of(log["wall_order"], bytes.fromhex(log["salt"]), 0, 1) == published[0]
    reply = await clients[done].request("get_hand", hand_id=mine[1]["hand_id"])
    assert reply["type"] == "error" and reply["code"] == "deal_in_play", reply
    listed = await clients[done].ok("get_match", match_id=mine[0]["match_id"])
    assert [h["number"] for h in listed["hands"]] == [1] and "standings" not in listed
    # Table 1 has ended: table 2 plays only deals nobody else will play, and may be
    # watched (its players hold at deal 2's first prompt: nothing times out).
    watched = await outsider.request("spectate", table_id=second)
    assert watched["type"] == "snapshot", watched

    async with trio.open_nursery() as nursery:
        for i in at_second:
            nursery.start_soon(lambda i=i: _play_into(seconds, i, clients[i], second))
    with trio.fail_after(30):
        while (detail := await clients[0].ok("get_tournament", tournament_id=t.id))["tournament"][
            "state"
        ] != "finished":
            await trio.sleep(0.05)
    # The spectator saw deal 2 end unsealed: no table will play it any more.
    await outsider.expect("match_result")
    ends = hand_ends(outsider.seen)
    assert len(ends) == 1 and len(ends[0]["wall_order"]) == 136

    # Every deal is open: every table's walls are the deals promised.
    deals = deals_from_seed(min(tournaments_seeds(server, t.id)), 2)
    assert published == [d.walls(0, k + 1).commitment for k, d in enumerate(deals)]
    by_table = {first: mine, second: [*seconds[at_second[0]]]}
    assert len(by_table[second]) == 2
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
    listed = await clients[done].ok("get_match", match_id=mine[0]["match_id"])
    assert [h["number"] for h in listed["hands"]] == [1, 2] and listed["standings"]
    # And a replay file made of what the history now tells verifies (gbmj verify).
    assert server.services is not None and server.services.signer is not None
    trust = Trust({server.services.signer.fingerprint: "the test server"}, "the test's pin")
    for hands in by_table.values():
        report = verify_text(dumps(await replay_over_the_wire(clients[0], hands)), trust)
        assert report.ok, report.text()
    # Two tables: each deal and seat compared by the difference, on the step scale: the
    # scores sum to zero, and table points are not what ranks a duplicate field.
    lines = detail["standings"]
    assert len(lines) == 8
    assert sum(line["score"] for line in lines) == 0
    assert all(line["table_points"] == 0 for line in lines)
    assert detail["scale"] == list(DEFAULT_STEPS)  # the standings say the scale


async def replay_over_the_wire(client: WireClient, hands: list[dict[str, Any]]) -> Replay:
    """A match's replay file as ``gbmj export`` makes it, from the signed history."""
    detail = Message.from_wire(await client.ok("get_match", match_id=hands[0]["match_id"]))
    assert isinstance(detail, MatchDetail) and detail.certificate is not None
    logs = [Message.from_wire(await client.ok("get_hand", hand_id=h["hand_id"])) for h in hands]
    return replay_file(
        "test server",
        "test",
        match_from_detail(detail, detail.signature),
        [hand_from_log(log, signature=log.signature) for log in logs if isinstance(log, HandLog)],
        exported_at=0,
        certificate=detail.certificate,
    )


async def _play_into(
    into: dict[int, list[dict[str, Any]]],
    i: int,
    client: WireClient,
    table_id: int,
    until: str = "match_result",
) -> None:
    into.setdefault(i, []).extend(await play(client, table_id, until=until))


def assert_sealed(seen: list[dict[str, Any]], place: int, table_index: int) -> None:
    """No message carries a wall or a salt; every hand's end (the event and the result)
    shows the concealed tiles of the player's own seat and the winner's only, and no
    other seat's concealed kong."""
    assert not any(_has_key(x, ("wall_order", "salt")) for x in seen)
    ends = hand_ends(seen)
    results = [x for x in seen if x["type"] == "hand_result"]
    assert len(ends) == len(results) == 2
    for k, (end, result) in enumerate(zip(ends, results, strict=True)):
        own = seating(k, table_index).index(place)
        shown = {own, result.get("winner", own)}
        for body in (end, result):
            for s in range(4):
                if s in shown:
                    assert body["concealed"][s], (k, s, body)
                else:
                    assert body["concealed"][s] == [], (k, s, body)
                    assert all(m is None or not m["concealed"] for m in body["melds"][s])


def hand_ends(seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x["event"] for x in seen if x["type"] == "event" and x["event"]["kind"] == "hand_end"]


def _has_key(value: Any, keys: tuple[str, ...]) -> bool:
    if isinstance(value, dict):
        return any(k in keys or _has_key(v, keys) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_key(v, keys) for v in value)
    return False


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
    walls); which deals are still in play is read from the file (deal 1, played by the
    only table, is open; deal 2 is not until it is played)."""
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
        # What the session's tables have played is read from the file: the only table
        # has played deal 1, which no table will play again (open), not deal 2.
        reply = await again[0].request("get_hand", hand_id=firsts[0][0]["hand_id"])
        assert reply["type"] == "hand_log" and reply["number"] == 1, reply
        assert second.services is not None and second.services.tournaments is not None
        assert second.services.tournaments.deal_closed(seated["table_id"], 2)
        seen: list[list[dict[str, Any]]] = []

        async def finish(client: WireClient) -> None:
            snapshot = await client.expect("snapshot")
            seen.append(await play(client, snapshot["table"]["table_id"]))

        async with trio.open_nursery() as rest:
            for client in again:
                rest.start_soon(finish, client)
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
    server: Server, nursery: trio.Nursery, connect: Any
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
    record = await server.services.tournaments.get(_created(said))
    assert record.duplicate and record.hands == 8 and record.sessions == 1
    assert record.scale == "steps"
    status, said = await trio.to_thread.run_sync(run, "Plain")
    assert status == 0
    plain_id = _created(said)
    assert not (await server.services.tournaments.get(plain_id)).duplicate

    # The scale is a setting of a duplicate tournament, stored and shown in its detail.
    client = await connect()
    await client.register("scalereader")
    for words, shown in (("raw", []), ("10,20,40", [10, 20, 40]), ("steps", list(DEFAULT_STEPS))):
        status, said = await trio.to_thread.run_sync(
            run, "Scaled", "--duplicate", "--sessions", "1", "--scale", words
        )
        assert status == 0, said
        tournament_id = _created(said)
        assert (await server.services.tournaments.get(tournament_id)).scale == words
        detail = await client.ok("get_tournament", tournament_id=tournament_id)
        assert detail["scale"] == shown
    assert "scale" not in await client.ok("get_tournament", tournament_id=plain_id)
    before = await trio.to_thread.run_sync(server.store.storage.tournaments)
    for argv in (("Bad", "--duplicate", "--scale", "imps"), ("Bad", "--scale", "raw")):
        status, said = await trio.to_thread.run_sync(run, *argv)
        assert status == 1 and ("scale" in said), said
    assert await trio.to_thread.run_sync(server.store.storage.tournaments) == before


async def test_a_session_scores_on_its_scale() -> None:
    """Two tables, one deal: seat 0 scored 48 at table 1 and -16 at table 2 (difference
    64), the other seats the opposite of a difference of their own."""
    tables = [SessionTable(1, n, (0, 1, 2, 3), (), b"", n, None) for n in (1, 2)]
    played = [[(1, (48, -16, -16, -16))], [(1, (-16, 48, -16, -16))]]
    # Deal 1 at table 2 turns the seats by one: place p holds seat (p - 1) mod 4.
    by_seat = {1: seating(0, 0), 2: seating(0, 1)}
    raw = session_field_scores(tables, played, scale_of("raw"))
    steps = session_field_scores(tables, played)
    for n, table_played in zip((1, 2), played, strict=True):
        points = table_played[0][1]
        other = played[2 - n][0][1]
        for place in range(4):
            seat = by_seat[n].index(place)
            assert raw[n][place] == points[seat] - other[seat]
            assert steps[n][place] == DEFAULT_SCALE.score(points[seat] - other[seat])
    assert sum(raw[1]) + sum(raw[2]) == 0


def _created(said: str) -> int:
    """The id in the admin command's "tournament N created" line (other lines may come
    first: its output is the process's, shared with the server running in the test)."""
    found = re.search(r"^tournament (\d+) created", said, re.MULTILINE)
    assert found is not None, said
    return int(found.group(1))
