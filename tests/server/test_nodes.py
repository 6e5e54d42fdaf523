"""Several server nodes on one PostgreSQL database (docs/hosting.md, "More than one
machine"): each node lists every node's tables, lobby chat reaches every node's
players, table ids never collide, and the match of a node killed with SIGKILL resumes on
another node once its lease lapsed, no hand lost, the ledger balanced.

The nodes are real: servers on loopback ports of their own (one in a subprocess where
it is killed), one PostgreSQL started by the tests (``storage.pg``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import psycopg
import pytest
import trio

from gbmj_server.nodes.leases import TOURNAMENTS
from gbmj_server.server import Server
from gbmj_server.storage import Storage, hash_password
from server.conftest import TEST_CONFIG, start, table_of
from server.node_procs import LEASE, start_node_process, stop
from server.wireclient import WireClient, play, solo_table

pytestmark = [pytest.mark.trio, pytest.mark.postgres, pytest.mark.slow]

APPEAR_WITHIN = 1.0  # seconds a table made on one node takes to be in another's lobby


async def connect_to(port: int) -> WireClient:
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
    await client.hello()
    return client


async def run_node(nursery: trio.Nursery, url: str, name: str) -> tuple[Server, Storage]:
    storage = Storage(url)
    server = Server(storage, replace(TEST_CONFIG, db=url, node=name, lease_time=LEASE))
    await start(nursery, server)
    assert server.listener is not None
    await server.listener.listening.wait()
    return server, storage


@pytest.fixture
async def two_nodes(nursery: trio.Nursery, pg_url: str) -> AsyncIterator[tuple[Server, Server]]:
    async with trio.open_nursery() as nodes:
        a, store_a = await run_node(nodes, pg_url, "a")
        b, store_b = await run_node(nodes, pg_url, "b")
        yield a, b
        nodes.cancel_scope.cancel()
    store_a.close()
    store_b.close()


async def wait_for(condition: Callable[[], bool], within: float) -> None:
    with trio.fail_after(within):
        while not condition():
            await trio.sleep(0.01)


async def test_a_table_made_on_one_node_is_in_every_nodes_lobby(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None
    watcher = await connect_to(b.port)
    await watcher.register("watcher")
    assert (await watcher.ok("watch_lobby", on=True))["type"] == "table_list"
    owner = await connect_to(a.port)
    await owner.register("owner")
    table_id = await owner.create_table(name="on node a")
    await wait_for(lambda: b.lobby.info(table_id) is not None, APPEAR_WITHIN)
    update = await watcher.expect(
        "lobby_update", where=lambda u: any(t["table_id"] == table_id for t in u["tables"])
    )
    (shown,) = [t for t in update["tables"] if t["table_id"] == table_id]
    assert shown["settings"]["name"] == "on node a" and shown["owner"] == "owner"
    # A table made on node b next takes another id: the database numbers them.
    other = await connect_to(b.port)
    await other.register("other")
    table_b = await other.create_table(name="on node b")
    assert table_b != table_id
    await wait_for(lambda: a.lobby.info(table_b) is not None, APPEAR_WITHIN)
    # A change (someone sits) and the table's end reach the other node too.
    await owner.ok("sit", table_id=table_id, seat=0)
    await wait_for(
        lambda: (info := b.lobby.info(table_id)) is not None and info.seats[0].name == "owner",
        APPEAR_WITHIN,
    )
    await owner.ok("leave_table", table_id=table_id)
    await wait_for(lambda: b.lobby.info(table_id) is None, APPEAR_WITHIN)
    await watcher.expect("lobby_update", where=lambda u: table_id in u["removed"])


async def test_lobby_chat_reaches_the_players_of_every_node(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None
    on_a, on_b = await connect_to(a.port), await connect_to(b.port)
    await on_a.register("alice")
    await on_b.register("bob")
    for client in (on_a, on_b):
        await client.ok("watch_lobby", on=True)
    await on_a.ok("chat_send", channel="lobby", text="hello from node a")
    line = await on_b.expect("chat", text="hello from node a")
    assert line["sender"] == "alice" and line["channel"] == "lobby"
    await on_b.ok("chat_send", channel="lobby", text="和 from b")
    assert (await on_a.expect("chat", text="和 from b"))["sender"] == "bob"
    # Each line once: the node it was said on does not hear it back from the database.
    await on_a.drain(0.3)
    assert [c["text"] for c in on_a.seen if c["type"] == "chat"] == [
        "hello from node a",
        "和 from b",
    ]


async def test_the_players_online_count_those_of_every_node(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None
    clients = []  # (kept: a client collected is a connection closed)
    for port, name in ((a.port, "gina"), (b.port, "hank"), (b.port, "ivan")):
        clients.append(await connect_to(port))
        await clients[-1].register(name)
    # Each node tells the database its count each third of the lease; the others read it.
    await wait_for(lambda: a.lobby.online == 3 and b.lobby.online == 3, 2 * LEASE)
    watcher = await connect_to(a.port)
    await watcher.register("jill")
    await wait_for(lambda: b.lobby.online == 4, 2 * LEASE)
    listed = await watcher.ok("list_tables")
    assert listed["players_online"] == 4


async def test_the_hosts_announcements_and_bans_reach_every_node(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None and a.moderator is not None
    on_b = await connect_to(b.port)
    await on_b.register("carol")
    await a.moderator.announce("the server restarts at noon")
    notice = await on_b.expect("notice", code="announcement")
    assert notice["message"] == "the server restarts at noon"
    await a.moderator.ban("carol", True)
    assert (await on_b.expect("notice"))["code"] == "banned"
    with trio.fail_after(5), pytest.raises(EOFError):
        while True:
            await on_b._fill()


async def test_a_player_follows_a_redirect_to_the_node_that_holds_the_table(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None
    owner = await connect_to(a.port)
    await owner.register("owner")
    table_id = await owner.create_table(name="on node a")
    guest = await connect_to(b.port)
    await guest.register("dana")
    redirect = await guest.ok("join_table", table_id=table_id)
    assert redirect["type"] == "redirect" and redirect["table_id"] == table_id
    assert redirect["address"] == f"127.0.0.1:{a.port}"
    # On node a the ticket signs dana in (no password) and she joins the table.
    port = redirect["address"].rsplit(":", 1)[1]
    there = await connect_to(int(port))
    session = await there.ok("redeem_ticket", ticket=redirect["ticket"])
    assert session["type"] == "session" and session["profile"]["name"] == "dana"
    snapshot = await there.ok("join_table", table_id=table_id)
    assert snapshot["type"] == "snapshot" and snapshot["table"]["table_id"] == table_id
    # A ticket is good once, and only as signed.
    again = await connect_to(a.port)
    used = await again.request("redeem_ticket", ticket=redirect["ticket"])
    assert used["type"] == "error" and used["code"] == "bad_token" and "used" in used["message"]
    body, _, signature = redirect["ticket"].partition(".")
    forged = await again.request("redeem_ticket", ticket=f"{body}.{signature[::-1]}")
    assert forged["type"] == "error" and forged["code"] == "bad_token"
    # Watching goes the same way.
    watch = await guest.ok("spectate", table_id=table_id)
    assert watch["type"] == "redirect" and watch["address"] == redirect["address"]


async def test_a_player_seated_on_another_node_is_sent_there_on_signing_in(
    two_nodes: tuple[Server, Server],
) -> None:
    a, b = two_nodes
    assert a.port is not None and b.port is not None
    human, table_id = await solo_table(partial(connect_to, a.port), "erin")
    await human.expect("prompt")  # the match runs
    elsewhere = await connect_to(b.port)
    await elsewhere.ok("login", name="erin", password="secret-pw")
    redirect = await elsewhere.expect("redirect")
    assert redirect["table_id"] == table_id and redirect["address"] == f"127.0.0.1:{a.port}"


async def test_a_node_that_lost_a_tables_lease_stops_it_and_settles_nothing(
    two_nodes: tuple[Server, Server], pg_url: str
) -> None:
    a, b = two_nodes
    assert a.port is not None
    human, table_id = await solo_table(partial(connect_to, a.port), "frank")
    prompt = await human.expect("prompt")
    # A claim prompt comes first when a bot deals: pass until the player's own turn, where
    # the match waits for them and nothing more is written.
    while not any(x["kind"] == "discard" for x in prompt["actions"]):
        await human.send(
            {"type": "action", "id": 98, "table_id": table_id, "seq": prompt["seq"], "kind": "pass"}
        )
        prompt = await human.expect("prompt")
    with Storage(pg_url) as store:
        (before,) = store.running_matches()
    # Another node (one that then dies at once) took the lease: node a writes nothing
    # more of the match (the player's discard is refused, not written) and stops the
    # table, at that step or at its next renewal, the match left as it stood.
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(b"UPDATE table_lease SET node = 'gone' WHERE table_id = %s", (table_id,))
    discard = next(a for a in prompt["actions"] if a["kind"] == "discard")
    await human.send(
        {"type": "action", "id": 99, "table_id": table_id, "seq": prompt["seq"], **discard}
    )
    await wait_for(lambda: table_id not in a.tables.actors, LEASE)
    await human.expect("table_left")
    with Storage(pg_url) as store:
        (running,) = store.running_matches()
        assert running.table_id == table_id and running.hand_logs == ()
        assert running.actions == before.actions  # the discard never reached the disk
    # Its lease lapses unrenewed: a node takes the match over.
    await wait_for(lambda: table_id in a.tables.actors or table_id in b.tables.actors, LEASE + 5)


async def test_a_killed_nodes_match_resumes_on_another_node(pg_url: str, tmp_path: Path) -> None:
    proc, port_a = await trio.to_thread.run_sync(start_node_process, pg_url, "a", tmp_path)
    try:
        async with trio.open_nursery() as nodes:
            b, store_b = await run_node(nodes, pg_url, "b")
            await _kill_and_take_over(proc, port_a, b, pg_url)
            nodes.cancel_scope.cancel()
        store_b.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    check = subprocess.run(
        [sys.executable, "-m", "gbmj_server", "admin", "--db", pg_url, "check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr


async def _kill_and_take_over(
    proc: subprocess.Popen[str], port_a: int, b: Server, pg_url: str
) -> None:
    human, table_id = await solo_table(partial(connect_to, port_a), "survivor", stake=1)
    # A hand settled, and a few steps into the next one: then the node dies.
    assert len(await play(human, table_id, until="hand_result")) == 1
    await play(human, table_id, until="never", prompts=2)
    with Storage(pg_url) as store:
        (running,) = store.running_matches()
        assert running.table_id == table_id
        before = [h.result for h in store.hands(running.id)]
    assert before
    proc.send_signal(signal.SIGKILL)
    await trio.to_thread.run_sync(proc.wait, 10)
    # Node b resumes the match once the lease lapsed (the wait is bounded by the lease
    # time and five seconds, as the hosting guide promises).
    # The player comes back at once, on node b, before the takeover (node b may send it
    # to node a while a's lease runs: a client that cannot reach it stays); once node b
    # took the match over, the player is back at the seat, the hand going on.
    assert b.port is not None
    back = await connect_to(b.port)
    await back.ok("login", name="survivor", password="secret-pw")
    await wait_for(lambda: table_id in b.tables.actors, LEASE + 5)
    snapshot = await back.expect("snapshot", timeout=5)
    assert snapshot["table"]["table_id"] == table_id and snapshot["seat"] is not None
    await play(back, table_id)  # to the match's end
    with Storage(pg_url) as store:
        record = store.match(running.id)
        assert record is not None and record.end_reason == "finished"
        hands = store.hands(running.id)
        # One round: its four hands, each once, those settled on node a as they were.
        assert [h.number for h in hands] == [1, 2, 3, 4]
        assert [h.result for h in hands][: len(before)] == before
        assert store.ledger_balanced()


async def poll(condition: Callable[[], bool], within: float) -> None:
    """``wait_for`` a condition that asks the database (a blocking call: seldom)."""
    with trio.fail_after(within):
        while not condition():
            await trio.sleep(0.2)


async def test_a_killed_nodes_tournament_goes_on_on_another_node(
    pg_url: str, tmp_path: Path
) -> None:
    """The node that runs the tournaments (it holds the role's lease) dies in the middle
    of a session: another node takes the role over and the session's table, and goes on
    with the tournament to its end, every session's results written."""
    with Storage(pg_url) as store:
        t = store.create_tournament(
            "Across nodes",
            "host",
            sessions=2,
            hands=1,
            minutes=60,
            drawn=False,
            seed=7,
            turn_seconds=3,
            grace_seconds=0,  # the players not there: a stand-in bot each
            pause_seconds=0,
        )
        for name in ("kim", "lee", "max", "ned"):
            account = store.create_account(name, hash_password("secret-pw"))
            store.enter_tournament(t.id, account.id, name)
    # Node a starts first and so holds the role.
    proc, port_a = await trio.to_thread.run_sync(start_node_process, pg_url, "a", tmp_path)
    try:
        async with trio.open_nursery() as nodes:
            b, store_b = await run_node(nodes, pg_url, "b")
            tournaments = b.services.tournaments if b.services else None
            assert tournaments is not None and not tournaments.runs
            # kim plays on node a (and answers nothing there: the session is in play).
            kim = await connect_to(port_a)
            await kim.ok("login", name="kim", password="secret-pw")
            with Storage(pg_url) as store:
                assert store.role_holder(TOURNAMENTS) == "a"
                store.set_tournament_state(t.id, "running")  # as `tournament start` does

                def session_in_play() -> bool:
                    """The session's table is made and its match written (a table
                    shows its match a moment before the match's first write)."""
                    tables = store.session_tables(t.id, 1)
                    if not tables or any(x.table_id is None for x in tables):
                        return False
                    running = [r.table_id for r in store.running_matches()]
                    return running == [x.table_id for x in tables]

                await poll(session_in_play, 30)
                (table,) = store.session_tables(t.id, 1)
                proc.send_signal(signal.SIGKILL)
                await trio.to_thread.run_sync(proc.wait, 10)
                await wait_for(lambda: tournaments.runs, 2 * LEASE + 5)
                assert store.role_holder(TOURNAMENTS) == "b"
                # The session's table comes to the node that runs the tournament (left to
                # it a while), with the session's rules again (its hands, its clock).
                await wait_for(lambda: table.table_id in b.tables.actors, LEASE)
                await wait_for(lambda: table_of(b, table.table_id).tournament is not None, 5)
                # kim is back, on node b, and plays the session's match to its end.
                assert b.port is not None and table.table_id is not None
                back = await connect_to(b.port)
                await back.ok("login", name="kim", password="secret-pw")
                await play(back, table.table_id)
                await back.stream.aclose()  # session 2: kim is not there, a bot stands in

                def finished() -> bool:
                    record = store.tournament(t.id)
                    return record is not None and record.state == "finished"

                await poll(finished, 60)
                results = store.tournament_results(t.id)
                assert sorted((r.session, r.n) for r in results) == [
                    (s, n) for s in (1, 2) for n in range(4)
                ]
                assert store.ledger_balanced()
            nodes.cancel_scope.cancel()
        store_b.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_the_hosts_admin_commands_reach_a_node_by_its_name(
    pg_url: str, tmp_path: Path
) -> None:
    """``admin --db URL --node b``: through node b's admin socket, an announcement and a
    ban reach a player of node a; ``check`` reads the database; a node not running here
    is named in the refusal."""
    procs = [
        await trio.to_thread.run_sync(start_node_process, pg_url, name, tmp_path)
        for name in ("a", "b")
    ]
    try:
        zed = await connect_to(procs[0][1])
        await zed.register("zed")
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "b-data")}  # node b's

        async def admin(*words: str) -> subprocess.CompletedProcess[str]:
            command = [sys.executable, "-m", "gbmj_server", "admin", "--db", pg_url, *words]
            run = partial(subprocess.run, command, capture_output=True, text=True, env=env)
            return await trio.to_thread.run_sync(run)

        said = await admin("--node", "b", "announce", "the server restarts at noon")
        assert said.returncode == 0, said.stderr
        assert "other nodes" in said.stdout
        notice = await zed.expect("notice", code="announcement")
        assert notice["message"] == "the server restarts at noon"
        banned = await admin("--node", "b", "ban", "zed")
        assert banned.returncode == 0, banned.stderr
        assert (await zed.expect("notice"))["code"] == "banned"
        check = await admin("check")
        assert check.returncode == 0 and "ledger balanced" in check.stdout
        nowhere = await admin("--node", "c", "announce", "nobody hears this")
        assert nowhere.returncode == 1 and "no node c runs on this machine" in nowhere.stderr
    finally:
        for proc, _ in procs:
            stop(proc)
