"""Club tournaments run by the server (docs/rules.md §2.12): players register over the
wire, the server seats each session, opens its tables, records the results and seats
the next session."""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from gbmj.tournament.points import table_points
from gbmj_server import cli
from gbmj_server.admin_socket import serve_admin
from gbmj_server.moderation import Moderator
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from gbmj_server.tournaments.runner import Settings
from protocol.framing import encode_map
from server.conftest import TEST_CONFIG, Probe, start, table_of
from server.wireclient import WireClient, play, simple_choice

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


@pytest.mark.slow
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


@pytest.mark.slow
async def test_time_called_mid_hand_finishes_that_hand_and_starts_no_other(mem, mock_clock) -> None:
    """On the mock clock: the player takes 10 s a turn; the session's minute runs out in
    the middle of a hand, which is played to its end; the match ends there."""
    srv, connect, clock = mem
    tournaments = srv.services.tournaments
    t = await tournaments.create(
        "host",
        Settings(name="timed", sessions=1, hands=16, minutes=1, grace_seconds=0, pause_seconds=0),
    )
    clients = await _entered(connect, t.id, ["timed0", "timed1", "timed2", "timed3"])
    human = clients[0]
    for gone in clients[1:]:  # registered, then not there: bots stand in
        await gone.aclose()
    await trio.testing.wait_all_tasks_blocked()
    await tournaments.start(t.id)
    seated = await human.expect("tournament_seated", where=lambda m: "table_id" in m)
    table_id = seated["table_id"]
    game = Probe(srv, table_id)
    rules = game.table.tournament
    assert rules is not None and rules.hands == 16
    called_in: int | None = None
    hands_started_after = 0
    results = 0
    while True:
        with trio.fail_after(30):
            while not human.inbox:
                await human._fill()
        message = human.inbox.pop(0)
        kind = message["type"]
        if kind == "match_result":
            break
        if kind == "hand_result":
            results += 1
        if kind == "event" and message["event"]["kind"] == "hand_start" and called_in:
            hands_started_after += 1
        if kind != "prompt" or message["seq"] != game.seq:
            continue
        if message["timer"] != "claim_window":
            clock.jump(10)  # thinking, under the 15 s turn clock
            await trio.testing.wait_all_tasks_blocked()
        if called_in is None and trio.current_time() >= rules.ends_at:
            assert game.state is not None and not game.state.ended, "called mid-hand"
            called_in = game.play.st.number
        await human.send(
            {
                "type": "action",
                "id": 7,
                "table_id": table_id,
                "seq": message["seq"],
                **simple_choice(message),
            }
        )
    assert called_in is not None, "the minute ran out during play"
    assert results == called_in  # the hand in play was finished, and it was the last
    assert hands_started_after == 0
    for _ in range(500):  # its results are written in a worker thread: wait for them
        detail = await tournaments.detail(t.id)
        if detail.record.state == "finished":
            break
        await trio.testing.wait_all_tasks_blocked(0.01)
        clock.jump(1)
    assert detail.record.state == "finished"
    absent = [r for r in detail.results if r.absent]
    assert len(absent) == 3 and all(r.table_points == 0 and r.place == 4 for r in absent)
    (mine,) = [r for r in detail.results if not r.absent]
    (table,) = detail.tables
    assert table.match_id is not None
    match = srv.store.storage.match(table.match_id)
    assert match is not None and len(match.players) == 4
    # The table points come from the four seats' scores (the bots' too): the human's
    # share is what their score earns among them.
    scores = {p.name: p.points for p in match.players}
    ordered = [scores["timed0"]] + [v for k, v in scores.items() if k != "timed0"]
    assert mine.score == scores["timed0"]
    assert mine.table_points == table_points(ordered)[0]


@pytest.mark.slow
async def test_no_items_and_no_spectating_of_ones_own_tournament(connect, server: Server) -> None:
    tournaments = server.services.tournaments if server.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host", Settings(name="strict", sessions=1, hands=4, grace_seconds=30, pause_seconds=0)
    )
    clients = await _entered(connect, t.id, [f"strict{i}" for i in range(8)])
    await tournaments.start(t.id)
    seated = [await c.expect("tournament_seated", where=lambda m: "table_id" in m) for c in clients]
    mine, other = (
        seated[0]["table_id"],
        next(s["table_id"] for s in seated if s["table_id"] != seated[0]["table_id"]),
    )
    player = clients[0]
    for request, fields in (
        ("arm_timer_extension", {"table_id": mine, "armed": True}),
        ("use_tile_counter", {"table_id": mine}),
    ):
        reply = await player.request(request, **fields)
        assert reply["type"] == "error" and "no items" in reply["message"], reply
    # No hints either: the table's settings say so to every client; and its info says
    # whose tournament it is, so that no client offers items there.
    assert table_of(server, mine).settings.coach is False
    assert table_of(server, mine).info().tournament_id == t.id
    # An outsider may not watch either: the organiser gave no leave.
    outsider = await connect()
    await outsider.register("outsider")
    reply = await outsider.request("spectate", table_id=other)
    assert reply["type"] == "error" and "spectators" in reply["message"]
    # A player who leaves their table is still one of the session's: no watching.
    await player.ok("leave_table", table_id=mine)
    reply = await player.request("spectate", table_id=other)
    assert reply["type"] == "error" and "you play in this session" in reply["message"]


@pytest.mark.slow
async def test_a_restart_resumes_the_session_and_the_tournament(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    """The server stops in the middle of session 1 and starts again on the same file:
    the session's match resumes, its players sign in again and finish it, and the
    runner records it and plays session 2."""
    path = tmp_path / "gbmj.sqlite3"
    storage = Storage(path)
    first = Server(storage, TEST_CONFIG)
    running = await start(nursery, first)
    tournaments = first.services.tournaments if first.services else None
    assert tournaments is not None
    t = await tournaments.create(
        "host", Settings(name="restart", sessions=2, hands=2, grace_seconds=30, pause_seconds=0)
    )

    async def connect_to(srv: Server) -> WireClient:
        assert srv.port is not None
        client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
        await client.hello()
        return client

    names = [f"again{i}" for i in range(4)]
    clients = await _entered(lambda: connect_to(first), t.id, names)
    await tournaments.start(t.id)
    seated = await clients[0].expect("tournament_seated", where=lambda m: "table_id" in m)
    async with trio.open_nursery() as hands:  # everyone plays until the first hand's end
        for client in clients:
            hands.start_soon(lambda c: play(c, seated["table_id"], until="hand_result"), client)
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

        async def finish(client: WireClient) -> None:
            snapshot = await client.expect("snapshot")
            await play(client, snapshot["table"]["table_id"])
            await _play_session(client, 2)

        async with trio.open_nursery() as rest:
            for client in again:
                rest.start_soon(finish, client)
        assert second.services is not None and second.services.tournaments is not None
        with trio.fail_after(10):
            while (
                detail := await second.services.tournaments.detail(t.id)
            ).record.state != "finished":
                await trio.sleep(0.05)
        assert len(detail.results) == 8
        by_session = Counter(r.session for r in detail.results)
        assert by_session == {1: 4, 2: 4}
        for session in (1, 2):
            assert sum(r.table_points for r in detail.results if r.session == session) == 84
    finally:
        await running.stop()
        storage.close()


@pytest.fixture
async def admin(server: Server, nursery: trio.Nursery):
    """``await admin("tournament", "list")``: the admin command line against the
    running server; (exit status, what it printed)."""
    assert server.services is not None
    db = server.store.storage.path
    await nursery.start(serve_admin, db, Moderator(server.services))

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = cli.admin(["--db", str(db), *argv])
        return status, out.getvalue()

    async def command(*argv: str) -> tuple[int, str]:
        return await trio.to_thread.run_sync(run, *argv)

    return command


@pytest.mark.slow
async def test_the_host_runs_a_tournament_from_the_command_line(
    connect, admin, tmp_path: Path
) -> None:
    status, said = await admin(
        "tournament", "create", "Friday club", "--sessions", "1", "--hands", "1",
        "--grace", "30", "--pause", "0", "--seed-order",
    )  # fmt: skip
    assert status == 0 and "tournament 1 created" in said, said
    bad = await admin("tournament", "create", "x" * 31)
    assert bad[0] == 1 and "name" in bad[1]
    assert (await admin("tournament", "create", "y", "--sessions", "17"))[0] == 1
    clients = await _entered(connect, 1, [f"friday{i}" for i in range(5)])
    status, said = await admin("tournament", "close", "1")
    assert status == 0 and "registration closed" in said
    late = await connect()
    await late.register("late")
    assert (await late.request("enter_tournament", tournament_id=1))["code"] == (
        "tournament_refused"
    )
    status, said = await admin("tournament", "drop", "1", "friday4")
    assert status == 0 and "dropped" in said
    assert (await admin("tournament", "drop", "1", "nobody"))[0] == 1
    status, said = await admin("tournament", "start", "1")
    assert status == 0 and "started" in said
    assert (await admin("tournament", "start", "1"))[0] == 1  # it runs already
    async with trio.open_nursery() as nursery:
        for client in clients[:4]:
            nursery.start_soon(_play_session, client, 1)
    with trio.fail_after(10):
        while "finished" not in (await admin("tournament", "list"))[1]:
            await trio.sleep(0.05)
    status, standings = await admin("tournament", "standings", "1")
    rows = list(csv.reader(io.StringIO(standings)))
    assert rows[0][:4] == ["rank", "name", "table_points", "score"]
    assert len(rows) == 1 + 5 and rows[-1][1] == "friday4" and rows[-1][-1] == "1"
    prefix = str(tmp_path / "friday")
    status, said = await admin("tournament", "export", "1", "--out", prefix)
    assert status == 0
    exported = json.loads(Path(prefix + ".json").read_text("utf-8"))
    (session,) = exported["sessions"]
    (table,) = session["tables"]
    assert [row["place"] for row in table["players"]] == ["East", "South", "West", "North"]
    assert sum(row["table_points_x12"] for row in table["players"]) == 84
    results = list(csv.DictReader(io.StringIO(Path(prefix + "-results.csv").read_text())))
    assert len(results) == 4 and {r["match_id"] for r in results} == {str(table["match_id"])}


@pytest.mark.slow
async def test_a_player_the_host_allows_organises_a_tournament(connect, admin) -> None:
    alice, bob = await connect(), await connect()
    await alice.register("alice")
    await bob.register("bob")
    settings = {
        "name": "alice's club",
        "sessions": 2,
        "hands": 4,
        "minutes": 30,
        "drawn": True,
        "leaders_last": True,
        "spectators": False,
    }
    refused = await alice.request("create_tournament", **settings)
    assert refused["code"] == "tournament_refused"
    status, said = await admin("tournament", "allow", "alice")
    assert status == 0 and "may organise" in said
    assert (await admin("tournament", "allow", "nobody"))[0] == 1
    created = await alice.ok("create_tournament", **settings)
    info = created["tournament"]
    assert (info["organiser"], info["state"], info["sessions"]) == ("alice", "open", 2)
    tournament_id = info["tournament_id"]
    await bob.ok("enter_tournament", tournament_id=tournament_id)
    # Bob is no organiser; and alice organises only her own.
    for action in ("close", "start"):
        reply = await bob.request("manage_tournament", tournament_id=tournament_id, action=action)
        assert reply["code"] == "tournament_refused"
    await alice.ok("manage_tournament", tournament_id=tournament_id, action="close")
    assert (await bob.request("withdraw_tournament", tournament_id=tournament_id))["code"] == (
        "tournament_refused"
    )
    reply = await alice.request("manage_tournament", tournament_id=tournament_id, action="start")
    assert reply["code"] == "tournament_refused" and "four players" in reply["message"]
    # A drop names the player: refused by the protocol itself, nothing changes.
    await alice.send_raw(
        encode_map({"type": "manage_tournament", "id": 99, "tournament_id": tournament_id,
                    "action": "drop"})
    )  # fmt: skip
    assert (await alice.expect("error", id=99))["code"] == "missing_field"
    await alice.ok("manage_tournament", tournament_id=tournament_id, action="drop", name="bob")
    detail = await bob.ok("get_tournament", tournament_id=tournament_id)
    assert detail["standings"][0]["dropped"] is True
    await admin("tournament", "disallow", "alice")
    assert (await alice.request("create_tournament", **settings))["code"] == ("tournament_refused")


@pytest.mark.slow
async def test_a_player_organises_a_duplicate_session_on_their_own_scale(connect, admin) -> None:
    """The organiser's own duplicate session (docs/rules.md §2.14): one session of two
    tables on a scale of their own; a scale without duplicate, or one that is no scale,
    is refused and creates nothing."""
    alice = await connect()
    await alice.register("alice")
    assert (await admin("tournament", "allow", "alice"))[0] == 0
    settings = {
        "name": "thursday duplicate",
        "sessions": 1,
        "hands": 2,
        "minutes": 30,
        "drawn": True,
        "leaders_last": False,
        "spectators": False,
    }
    for wrong in ({"scale": "raw"}, {"duplicate": False, "scale": "raw"}):
        reply = await alice.request("create_tournament", **settings, **wrong)
        assert reply["code"] == "tournament_refused" and "duplicate" in reply["message"]
    reply = await alice.request("create_tournament", **settings, duplicate=True, scale="40,20")
    assert reply["code"] == "tournament_refused" and "rising" in reply["message"]
    assert (await alice.ok("list_tournaments"))["tournaments"] == []  # nothing created
    created = await alice.ok("create_tournament", **settings, duplicate=True, scale="10,20,40")
    tournament_id = created["tournament"]["tournament_id"]
    assert created["scale"] == [10, 20, 40]
    players = await _entered(connect, tournament_id, [f"dup{i}" for i in range(8)])
    await alice.ok("manage_tournament", tournament_id=tournament_id, action="start")
    seated = [await p.expect("tournament_seated", session=1) for p in players]
    assert sorted(Counter(s["table_number"] for s in seated).items()) == [(1, 4), (2, 4)]
    detail = await alice.ok("get_tournament", tournament_id=tournament_id)
    assert len(detail["deals"]) == 2  # the session's deals promised from its start
    # The standing default: a duplicate session without a scale scores on the steps.
    steps = await alice.ok(
        "create_tournament", **{**settings, "name": "friday duplicate"}, duplicate=True
    )
    assert len(steps["scale"]) == 18
