"""Tournaments in the store: registration, sessions, tables and results (a real SQLite
file, and a PostgreSQL database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbmj_server.storage import Storage
from gbmj_server.storage.tournaments import ResultRecord, TournamentError


def test_a_tournament_from_registration_to_its_results(db_target: str | Path) -> None:
    path = db_target
    with Storage(path) as store:
        t = store.create_tournament(
            "club night", "host", sessions=2, hands=4, minutes=60, drawn=True, seed=7
        )
        assert (t.state, t.current, t.hands, t.drawn) == ("open", 0, 4, True)
        ids = [store.create_account(f"p{i}", "x").id for i in range(4)]
        for i, account in enumerate(ids):
            assert store.enter_tournament(t.id, account, f"p{i}").n == i
        with pytest.raises(TournamentError, match="entered already"):
            store.enter_tournament(t.id, ids[0], "p0")
        assert store.entered_by(ids[2]) == [t.id]
        store.set_tournament_state(t.id, "closed")
        late = store.create_account("late", "x")
        with pytest.raises(TournamentError, match="closed"):
            store.enter_tournament(t.id, late.id, "late")
        store.start_session(t.id, 1, 1e12, [((2, 0, 3, 1), b"\x01" * 32)])
        store.set_session_table_id(t.id, 1, 1, 41, [3])
        results = [ResultRecord(1, n, 1, 10 - n, 48 - 12 * n, n + 1, False) for n in (0, 1, 2)]
        results.append(ResultRecord(1, 3, 1, 0, 0, 4, True))
        store.record_table(t.id, 1, 1, None, results)
        store.finish_session(t.id, 1, last=False)
    with Storage(path) as store:  # all of it back from the database
        again = store.tournament(t.id)
        assert again is not None and (again.state, again.current) == ("running", 1)
        (table,) = store.session_tables(t.id, 1)
        assert (table.players, table.table_id, table.absent) == ((2, 0, 3, 1), 41, (3,))
        assert store.tournament_results(t.id) == results
        (session,) = store.tournament_sessions(t.id)
        assert session.finished_at is not None
        assert store.drop_entrant(t.id, "P3").dropped
        assert [e.dropped for e in store.entrants(t.id)] == [False, False, False, True]
        assert store.entered_by(ids[3]) == []  # dropped
        with pytest.raises(TournamentError):
            store.drop_entrant(t.id, "nobody")
