"""Club tournaments on disk (docs/rules.md §2.12): the ``Storage`` methods of the
tournament runner (``gbmj_server.tournaments``).

A tournament row holds its settings and its state (open for registration, closed,
running, finished) and the session in play (``current``). Entrants are numbered in entry
order (``n``); a session's tables list their players by place, East first (``-1``: a bot
filling the field); each entrant's result of a session is written with the rest of its
table's results in one transaction, once the table's match has ended.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from gbmj_server.storage.engine import Database
from gbmj_server.storage.postgres import retry_conflicts

STATES = ("open", "closed", "running", "finished")


class TournamentError(Exception):
    """The change is not allowed now (registration closed, already entered...): nothing
    changed."""


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    id: int
    name: str
    organiser: str
    organiser_id: int | None  # None: the host
    state: str
    sessions: int
    hands: int  # per session, at most
    minutes: int  # a session's time limit
    drawn: bool  # session 1 drawn from the seed (else by seed order: entry order)
    seed: int
    leaders_last: bool  # 高高碰 in the last session
    absent_counts: bool  # an absent player's bot's result counts (else 0 table points)
    spectators: bool  # the organiser lets spectators watch its tables
    turn_seconds: int
    grace_seconds: int  # how long a session waits for its players before bots stand in
    pause_seconds: int  # between two sessions
    current: int  # the session in play or last played (0: none yet)
    created_at: float
    duplicate: bool = False  # every table of a session plays the same deals (§2.14)
    scale: str = "steps"  # a duplicate one's scale: gbmj.tournament.duplicate.scale_of


@dataclass(frozen=True, slots=True)
class Entrant:
    n: int
    account_id: int | None
    name: str
    dropped: bool


@dataclass(frozen=True, slots=True)
class SessionRecord:
    number: int
    started_at: float
    ends_at: float  # wall clock: time is called then
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class SessionTable:
    session: int
    number: int
    players: tuple[int, ...]  # entrant numbers by place, East first; -1 a filling bot
    absent: tuple[int, ...]  # entrants a bot replaced for the whole session
    seed: bytes  # the match seed (which sets the places: gbmj_server.tournaments)
    table_id: int | None
    match_id: int | None  # once its match has ended and its results are written


@dataclass(frozen=True, slots=True)
class ResultRecord:
    session: int
    n: int
    table_number: int
    score: int
    table_points: int  # ×12
    place: int
    absent: bool


_COLUMNS = (
    "id, name, organiser, organiser_id, state, sessions, hands, minutes, drawn, seed, "
    "leaders_last, absent_counts, spectators, turn_seconds, grace_seconds, pause_seconds, "
    "current, created_at, duplicate, scale"
)


def _tournament(row: Sequence[Any]) -> TournamentRecord:
    return TournamentRecord(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        bool(row[8]),
        row[9],
        bool(row[10]),
        bool(row[11]),
        bool(row[12]),
        row[13],
        row[14],
        row[15],
        row[16],
        row[17],
        bool(row[18]),
        row[19],
    )


class TournamentsMixin:
    """Mixed into ``Storage`` (which provides ``_db`` and ``_write``)."""

    _db: Database

    _write: Callable[[], AbstractContextManager[Database]]

    @retry_conflicts
    def create_tournament(
        self,
        name: str,
        organiser: str,
        *,
        organiser_id: int | None = None,
        sessions: int,
        hands: int,
        minutes: int,
        drawn: bool,
        seed: int,
        leaders_last: bool = False,
        absent_counts: bool = False,
        spectators: bool = False,
        turn_seconds: int = 15,
        grace_seconds: int = 60,
        pause_seconds: int = 60,
        duplicate: bool = False,
        scale: str = "steps",
    ) -> TournamentRecord:
        """A new tournament, open for registration."""
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO tournament (name, organiser, organiser_id, state, sessions, hands, "
                "minutes, drawn, seed, leaders_last, absent_counts, spectators, turn_seconds, "
                "grace_seconds, pause_seconds, created_at, duplicate, scale) "
                "VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    organiser,
                    organiser_id,
                    sessions,
                    hands,
                    minutes,
                    int(drawn),
                    seed,
                    int(leaders_last),
                    int(absent_counts),
                    int(spectators),
                    turn_seconds,
                    grace_seconds,
                    pause_seconds,
                    time.time(),
                    int(duplicate),
                    scale,
                ),
            )
            tournament_id = cur.lastrowid
        found = self.tournament(int(tournament_id or 0))
        assert found is not None
        return found

    @retry_conflicts
    def set_organiser(self, account_id: int, allowed: bool) -> None:
        """The host lets a player create and run tournaments (or no longer)."""
        with self._write() as db:
            if allowed:
                db.execute(
                    "INSERT INTO tournament_organiser (account_id) VALUES (?) "
                    "ON CONFLICT DO NOTHING",
                    (account_id,),
                )
            else:
                db.execute("DELETE FROM tournament_organiser WHERE account_id = ?", (account_id,))

    def is_organiser(self, account_id: int) -> bool:
        return bool(
            self._db.execute(
                "SELECT 1 FROM tournament_organiser WHERE account_id = ?", (account_id,)
            ).fetchone()
        )

    def tournament(self, tournament_id: int) -> TournamentRecord | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM tournament WHERE id = ?", (tournament_id,)
        ).fetchone()
        return None if row is None else _tournament(row)

    def tournaments(self, states: Sequence[str] = STATES) -> list[TournamentRecord]:
        """The tournaments in any of ``states``, newest first."""
        marks = ", ".join("?" for _ in states)
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM tournament WHERE state IN ({marks}) ORDER BY id DESC",
            tuple(states),
        ).fetchall()
        return [_tournament(row) for row in rows]

    @retry_conflicts
    def set_tournament_state(self, tournament_id: int, state: str) -> None:
        if state not in STATES:
            raise ValueError(state)
        with self._write() as db:
            db.execute("UPDATE tournament SET state = ? WHERE id = ?", (state, tournament_id))

    @retry_conflicts
    def enter_tournament(self, tournament_id: int, account_id: int, name: str) -> Entrant:
        """Register a player; refused unless registration is open, or if entered."""
        with self._write() as db:
            row = db.execute(
                "SELECT state FROM tournament WHERE id = ?", (tournament_id,)
            ).fetchone()
            if row is None:
                raise TournamentError(f"no tournament {tournament_id}")
            if row[0] != "open":
                raise TournamentError(f"registration for tournament {tournament_id} is closed")
            if db.execute(
                "SELECT 1 FROM tournament_entrant WHERE tournament_id = ? AND account_id = ?",
                (tournament_id, account_id),
            ).fetchone():
                raise TournamentError(f"{name} is entered already")
            (n,) = db.execute(
                "SELECT coalesce(max(n) + 1, 0) FROM tournament_entrant WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchone()
            db.execute(
                "INSERT INTO tournament_entrant (tournament_id, n, account_id, name) "
                "VALUES (?, ?, ?, ?)",
                (tournament_id, n, account_id, name),
            )
        return Entrant(n, account_id, name, False)

    @retry_conflicts
    def withdraw(self, tournament_id: int, account_id: int) -> None:
        """A player takes back their entry while registration is open."""
        with self._write() as db:
            row = db.execute(
                "SELECT state FROM tournament WHERE id = ?", (tournament_id,)
            ).fetchone()
            if row is None or row[0] != "open":
                raise TournamentError("entries can be withdrawn only while registration is open")
            gone = db.execute(
                "DELETE FROM tournament_entrant WHERE tournament_id = ? AND account_id = ?",
                (tournament_id, account_id),
            ).rowcount
            if not gone:
                raise TournamentError("you are not entered")

    @retry_conflicts
    def drop_entrant(self, tournament_id: int, name: str) -> Entrant:
        """The organiser drops a player: seated no more, their results kept."""
        with self._write() as db:
            row = db.execute(
                "SELECT n, account_id, name FROM tournament_entrant "
                "WHERE tournament_id = ? AND lower(name) = lower(?)",
                (tournament_id, name),
            ).fetchone()
            if row is None:
                raise TournamentError(f"{name} is not entered in tournament {tournament_id}")
            db.execute(
                "UPDATE tournament_entrant SET dropped = 1 WHERE tournament_id = ? AND n = ?",
                (tournament_id, row[0]),
            )
        return Entrant(row[0], row[1], row[2], True)

    def entrants(self, tournament_id: int) -> list[Entrant]:
        """Every entrant, in entry order."""
        return [
            Entrant(r[0], r[1], r[2], bool(r[3]))
            for r in self._db.execute(
                "SELECT n, account_id, name, dropped FROM tournament_entrant "
                "WHERE tournament_id = ? ORDER BY n",
                (tournament_id,),
            ).fetchall()
        ]

    def entered_by(self, account_id: int) -> list[int]:
        """The tournaments an account is entered in (and not dropped from)."""
        return [
            r[0]
            for r in self._db.execute(
                "SELECT tournament_id FROM tournament_entrant "
                "WHERE account_id = ? AND dropped = 0 ORDER BY tournament_id",
                (account_id,),
            ).fetchall()
        ]

    @retry_conflicts
    def start_session(
        self,
        tournament_id: int,
        number: int,
        ends_at: float,
        tables: Sequence[tuple[Sequence[int], bytes]],
    ) -> None:
        """Session ``number`` is seated now: ``tables`` (each: the players by place and
        the match seed), numbered from 1; the tournament runs it."""
        with self._write() as db:
            db.execute(
                "INSERT INTO tournament_session (tournament_id, number, started_at, ends_at) "
                "VALUES (?, ?, ?, ?)",
                (tournament_id, number, time.time(), ends_at),
            )
            for index, (players, seed) in enumerate(tables, start=1):
                db.execute(
                    "INSERT INTO tournament_table (tournament_id, session, number, players, "
                    "seed) VALUES (?, ?, ?, ?, ?)",
                    (tournament_id, number, index, json.dumps(list(players)), seed.hex()),
                )
            db.execute(
                "UPDATE tournament SET state = 'running', current = ? WHERE id = ?",
                (number, tournament_id),
            )

    @retry_conflicts
    def set_session_ends(self, tournament_id: int, number: int, ends_at: float) -> None:
        """The session's time is called at ``ends_at`` (wall clock)."""
        with self._write() as db:
            db.execute(
                "UPDATE tournament_session SET ends_at = ? WHERE tournament_id = ? AND number = ?",
                (ends_at, tournament_id, number),
            )

    @retry_conflicts
    def set_session_table_id(
        self, tournament_id: int, session: int, number: int, table_id: int, absent: Sequence[int]
    ) -> None:
        """The session table is open as table ``table_id``, bots standing in for
        ``absent``."""
        with self._write() as db:
            db.execute(
                "UPDATE tournament_table SET table_id = ?, absent = ? "
                "WHERE tournament_id = ? AND session = ? AND number = ?",
                (table_id, json.dumps(list(absent)), tournament_id, session, number),
            )

    @retry_conflicts
    def record_table(
        self,
        tournament_id: int,
        session: int,
        number: int,
        match_id: int | None,
        results: Sequence[ResultRecord],
    ) -> None:
        """A session table's match ended: its players' results, all or none."""
        with self._write() as db:
            db.execute(
                "UPDATE tournament_table SET match_id = ? "
                "WHERE tournament_id = ? AND session = ? AND number = ?",
                (match_id, tournament_id, session, number),
            )
            for r in results:
                db.execute(
                    "INSERT INTO tournament_result (tournament_id, session, n, "
                    "table_number, score, table_points, place, absent) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (tournament_id, session, n) DO UPDATE SET "
                    "table_number = excluded.table_number, score = excluded.score, "
                    "table_points = excluded.table_points, place = excluded.place, "
                    "absent = excluded.absent",
                    (
                        tournament_id,
                        r.session,
                        r.n,
                        r.table_number,
                        r.score,
                        r.table_points,
                        r.place,
                        int(r.absent),
                    ),
                )

    @retry_conflicts
    def finish_session(self, tournament_id: int, number: int, last: bool) -> None:
        """Every table of the session has its results; after the last, the tournament is
        finished."""
        with self._write() as db:
            db.execute(
                "UPDATE tournament_session SET finished_at = ? "
                "WHERE tournament_id = ? AND number = ?",
                (time.time(), tournament_id, number),
            )
            if last:
                db.execute(
                    "UPDATE tournament SET state = 'finished' WHERE id = ?", (tournament_id,)
                )

    def tournament_sessions(self, tournament_id: int) -> list[SessionRecord]:
        return [
            SessionRecord(*r)
            for r in self._db.execute(
                "SELECT number, started_at, ends_at, finished_at FROM tournament_session "
                "WHERE tournament_id = ? ORDER BY number",
                (tournament_id,),
            ).fetchall()
        ]

    def session_tables(self, tournament_id: int, session: int | None = None) -> list[SessionTable]:
        """The tables of one session (or of all), in order."""
        query = (
            "SELECT session, number, players, absent, seed, table_id, match_id "
            "FROM tournament_table WHERE tournament_id = ?"
        )
        args: tuple[int, ...] = (tournament_id,)
        if session is not None:
            query += " AND session = ?"
            args += (session,)
        return [
            SessionTable(
                r[0],
                r[1],
                tuple(json.loads(r[2])),
                tuple(json.loads(r[3])),
                bytes.fromhex(r[4]),
                r[5],
                r[6],
            )
            for r in self._db.execute(query + " ORDER BY session, number", args).fetchall()
        ]

    def tournament_results(self, tournament_id: int) -> list[ResultRecord]:
        return [
            ResultRecord(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]))
            for r in self._db.execute(
                "SELECT session, n, table_number, score, table_points, place, absent "
                "FROM tournament_result WHERE tournament_id = ? ORDER BY session, table_number, n",
                (tournament_id,),
            ).fetchall()
        ]

    def last_match_of_table(self, table_id: int) -> int | None:
        """The latest match played at a table (a session table plays one)."""
        row = self._db.execute(
            "SELECT max(id) FROM match WHERE table_id = ?", (table_id,)
        ).fetchone()
        return None if row is None else row[0]

    def table_of_match(self, match_id: int) -> int | None:
        """The table a match was played at."""
        row = self._db.execute("SELECT table_id FROM match WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else int(row[0])

    def hand_points(self, match_id: int) -> list[tuple[int, tuple[int, ...]]]:
        """(number, points by seat) of each settled hand of a match, in order."""
        return [
            (number, tuple(json.loads(result)["points"]))
            for number, result in self._db.execute(
                "SELECT number, result FROM hand WHERE match_id = ? ORDER BY number", (match_id,)
            )
        ]

    def scores_from_hands(self, match_id: int) -> dict[str, int]:
        """Each player's points over a match's settled hands, by name, summed from the
        hands' own results (how a check recomputes a session's scores)."""
        totals: dict[str, int] = {}
        for (result,) in self._db.execute(
            "SELECT result FROM hand WHERE match_id = ? ORDER BY number", (match_id,)
        ).fetchall():
            summary = json.loads(result)
            for name, points in zip(summary["players"], summary["points"], strict=True):
                totals[name] = totals.get(name, 0) + points
        return totals
