"""The tables' leases of several nodes (gbmj_server.storage.nodes), on both engines:
table ids past every id used, renewals, takeovers of lapsed leases won by one node, and
the lock that lets one server per node name use a PostgreSQL database."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gbmj_server.storage import Payment, Settlement, Storage, StorageError, hold_for_server
from gbmj_server.storage.matches import ActionRow, PlayerJoined
from gbmj_server.storage.nodes import LeaseLost


def bot_match(store: Storage, table_id: int) -> int:
    players = [PlayerJoined(0, n, n, None, f"bot-{n + 1}", bot_level="easy") for n in range(4)]
    return store.start_match(table_id, "t", {}, b"\x01" * 32, "alice", True, "", players)


def test_table_ids_go_past_every_lease_and_match(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        later = time.time() + 10
        assert store.new_table("a", later) == 1
        bot_match(store, 7)  # a match of a table numbered before the leases
        assert store.new_table("b", later) == 8
        store.release_lease(8, "b")
        store.release_lease(1, "b")  # not b's: kept
        assert store.lease_holder(1) == "a" and store.lease_holder(8) is None
        assert store.new_table("a", later) == 8


def test_leases_renew_and_a_lapsed_running_match_goes_to_one_node(
    db_target: str | Path,
) -> None:
    with Storage(db_target) as store:
        waiting = store.new_table("a", time.time() + 10)  # a room without a match
        playing = store.new_table("a", time.time() + 10)
        bot_match(store, playing)
        bot_match(store, 50)  # a running match no lease names (written before leases)
        assert store.renew_leases("a", time.time() + 10, [waiting, playing]) == {waiting, playing}
        # Unexpired, not b's: nothing to take but the match without a lease.
        assert store.take_leases("b", time.time() + 10, own=False) == {50}
        assert store.take_leases("c", time.time() + 10, own=False) == set()
        # a dies: its leases lapse; b takes the running match, c then finds nothing.
        store.renew_leases("a", time.time() - 1, [waiting, playing])
        assert store.take_leases("b", time.time() + 10, own=False) == {playing}
        assert store.take_leases("c", time.time() + 10, own=False) == set()
        assert store.lease_holder(playing) == "b"
        assert store.lease_holder(waiting) is None  # nobody resumes an empty room
        # a cannot renew what b holds now; b restarting takes its own back at once.
        assert store.renew_leases("a", time.time() + 10, [playing]) == set()
        assert store.take_leases("b", time.time() + 10, own=True) == {playing, 50}
        # The lobby entries: each node reads the others'.
        store.share_infos("b", {playing: b"entry"})
        assert store.shared_infos("a") == {playing: b"entry"}
        assert store.shared_infos("b") == {}


@pytest.mark.postgres
def test_one_server_per_node_name_on_postgresql(pg_url: str) -> None:
    with (
        hold_for_server(pg_url, "a"),
        hold_for_server(pg_url, "b"),
        pytest.raises(StorageError, match="as node 'a'"),
        hold_for_server(pg_url, "a"),
    ):
        pass


def test_a_node_renews_only_the_leases_of_the_tables_it_runs(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        running = store.new_table("a", time.time() + 10)
        stopped = store.new_table("a", time.time() + 10)  # its table stopped on node a
        bot_match(store, running)
        bot_match(store, stopped)
        store.renew_leases("a", time.time() - 1, [running, stopped])  # both lapse
        assert store.renew_leases("a", time.time() + 10, [running]) == {running}
        # The stopped table's lease lapsed: any node takes its match, node a too.
        assert store.take_leases("a", time.time() + 10, own=False) == {stopped}


def test_only_the_node_that_holds_the_lease_settles_a_hand(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        alice = store.create_account("alice", "hash-a").id
        bob = store.create_account("bob", "hash-b").id
        table_id = store.new_table("a", time.time() + 10)
        match_id = bot_match(store, table_id)
        before = store.total_coins()

        def settle(node: str) -> Settlement:
            return store.settle_hand(
                match_id, 1, 1, 1, {}, b"", [Payment(alice, bob, 50, "hand", 0, 1)], node=node
            )

        # Node b took the table over: node a, which has not noticed yet, settles nothing.
        store.renew_leases("a", time.time() - 1, [table_id])
        assert store.take_leases("b", time.time() + 10, own=False) == {table_id}
        with pytest.raises(LeaseLost):
            settle("a")
        assert store.hands(match_id) == [] and store.total_coins() == before
        assert store.balance(alice) == store.balance(bob)
        assert not settle("b").already  # the node that holds it does
        assert (store.balance(bob) or 0) - (store.balance(alice) or 0) == 100
        assert store.ledger_balanced() and store.total_coins() == before


def test_only_the_node_that_holds_the_lease_writes_a_match_ahead(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        table_id = store.new_table("a", time.time() + 10)
        match_id = bot_match(store, table_id)
        step = ActionRow(match_id, 1, 0, 0, "deal", None, 0, 5)
        assert store.journal([step], node="b") == {match_id}  # not b's: nothing written
        assert store.running_matches()[0].actions == ()
        assert store.journal([step], node="a") == set()
        assert store.running_matches()[0].actions == (step,)


def test_a_role_is_held_by_one_node_until_its_lease_lapses(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        assert store.role_holder("tournaments") is None
        assert store.hold_role("tournaments", "a", time.time() + 10)  # nobody had it
        assert not store.hold_role("tournaments", "b", time.time() + 10)  # a holds it
        assert store.hold_role("tournaments", "a", time.time() + 10)  # a renews it
        store.hold_role("tournaments", "a", time.time() - 1)  # a dies: its lease lapses
        assert store.hold_role("tournaments", "b", time.time() + 10)
        assert not store.hold_role("tournaments", "a", time.time() + 10)  # a is back: b's
        assert store.role_holder("tournaments") == "b"
        store.release_role("tournaments", "a")  # not a's: kept
        assert store.role_holder("tournaments") == "b"
        store.release_role("tournaments", "b")
        assert store.hold_role("tournaments", "a", time.time() + 10)


def test_a_redirect_learns_where_the_holder_is_reached(db_target: str | Path) -> None:
    fingerprint = "SHA256:" + ":".join(["AB"] * 32)
    with Storage(db_target) as store:
        table = store.new_table("a", time.time() + 10)
        assert store.holder_address(table) == ("a", None)  # a gave no address yet
        store.node_seen("a", "game-a:7415", 3, fingerprint)
        held = store.holder_address(table)
        assert held is not None and held[0] == "a" and held[1] is not None
        assert (held[1].address, held[1].fingerprint) == ("game-a:7415", fingerprint)
        store.node_seen("a", "game-a:7415", 3, None)  # restarted on plain TCP
        held = store.holder_address(table)
        assert held is not None and held[1] is not None and held[1].fingerprint is None


def test_a_running_tournaments_table_is_left_a_while_to_the_node_that_runs_them(
    db_target: str | Path,
) -> None:
    with Storage(db_target) as store:
        t = store.create_tournament(
            "club", "host", sessions=1, hands=1, minutes=60, drawn=False, seed=1
        )
        store.start_session(t.id, 1, time.time() + 3600, [((0, 1, 2, 3), b"\x02" * 32)])
        session = store.new_table("a", time.time() + 10)
        store.set_session_table_id(t.id, 1, 1, session, ())
        other = store.new_table("a", time.time() + 10)
        for table_id in (session, other):
            bot_match(store, table_id)
        store.renew_leases("a", time.time() - 1, [session, other])  # a dies
        # A node that does not run the tournaments takes the other table, and the
        # session's only once it lapsed long enough (nobody took the tournaments).
        wait = time.time() - 10
        assert store.take_leases("c", time.time() + 10, own=False, sessions_lapsed_before=wait) == {
            other
        }
        # The node that runs them takes it at once.
        assert store.take_leases("b", time.time() + 10, own=False) == {session}
        store.renew_leases("b", time.time() - 20, [session])  # b dies long ago
        assert store.take_leases("c", time.time() + 10, own=False, sessions_lapsed_before=wait) == {
            session
        }
