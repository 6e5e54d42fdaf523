"""Running matches on disk: the ``Storage`` methods that let a restarted server resume.

A match is written ahead of play. Its row holds the table, the settings and the seed;
``match_player`` holds every participant (``n`` counts them 0, 1, 2... in the match; the
``slot`` is the seat they hold); ``match_action`` holds the actions of the hand in play,
each written before anyone hears of it (``journal``). The engine is deterministic: the
seed, the settled hands' logs and these actions rebuild the match exactly
(``running_matches``). A hand's settlement (``LedgerMixin.settle_hand``) clears its
actions in the same transaction, since the hand row then holds its whole log.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from gbmj_server.storage.engine import Database
from gbmj_server.storage.logs import read_log
from gbmj_server.storage.nodes import lost_leases
from gbmj_server.storage.postgres import retry_conflicts


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """Participant ``n`` took seat ``slot`` (at the start, or replacing someone)."""

    match_id: int
    n: int
    slot: int
    account_id: int | None
    name: str
    guest: bool = False
    bot_level: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """Participant ``n`` left the match before its end (escaped, stood up)."""

    match_id: int
    n: int
    reason: str


@dataclass(frozen=True, slots=True)
class ActionRow:
    """A ``match_action`` row, which only the journal needs: one step of the hand in
    play, ``idx`` 0 the deal (its events' seq), then each action (``kind`` ``escape``
    for a player leaving). The history reads a settled hand's steps as the protocol's
    ``LoggedAction``."""

    match_id: int
    hand: int  # the hand's number in the match, 1-16
    idx: int
    seat: int
    kind: str
    tile: int | None
    ms: int  # from the hand's start
    seq: int  # the table's seq after the step's events


JournalEntry = PlayerJoined | PlayerLeft | ActionRow


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    n: int
    slot: int
    account_id: int | None
    name: str
    guest: bool
    bot_level: str | None
    points: int
    coins: int
    left_reason: str | None


@dataclass(frozen=True, slots=True)
class RunningMatch:
    """An unfinished match as the disk has it."""

    id: int
    table_id: int
    table_name: str
    settings: dict[str, Any]
    seed: bytes
    owner: str
    public: bool
    password_digest: str
    players: tuple[PlayerRecord, ...]
    hand_logs: tuple[dict[str, Any], ...]  # the settled hands' logs, in order
    actions: tuple[ActionRow, ...]  # of the unsettled hand
    last_seq: int  # the table's seq after the last step written


class MatchesMixin:
    """Mixed into ``Storage`` (which provides ``_db`` and ``_write``)."""

    _db: Database

    _write: Callable[[], AbstractContextManager[Database]]

    @retry_conflicts
    def start_match(
        self,
        table_id: int,
        table_name: str,
        settings: dict[str, Any],
        seed: bytes,
        owner: str,
        public: bool,
        password_digest: str,
        players: Sequence[PlayerJoined],
    ) -> int:
        """Record a match that starts now with its first four participants; its id."""
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO match (table_id, table_name, settings, seed, owner, public, "
                "password_digest, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    table_id,
                    table_name,
                    json.dumps(settings, sort_keys=True),
                    seed.hex(),
                    owner,
                    int(public),
                    password_digest,
                    time.time(),
                ),
            )
            match_id = cur.lastrowid
            assert match_id is not None
            for p in players:
                self._join(
                    db,
                    PlayerJoined(match_id, p.n, p.slot, p.account_id, p.name, p.guest, p.bot_level),
                )
        return match_id

    @staticmethod
    def _join(db: Database, p: PlayerJoined) -> None:
        db.execute(
            "INSERT INTO match_player (match_id, n, slot, account_id, name, guest, bot_level) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (p.match_id, p.n, p.slot, p.account_id, p.name, int(p.guest), p.bot_level),
        )

    @retry_conflicts
    def journal(self, entries: Sequence[JournalEntry], node: str | None = None) -> set[int]:
        """Write entries of one or more matches, in order, in one transaction. On several
        nodes (``node``), only those of the matches whose table ``node`` leases: the
        others' matches are returned, nothing of them written (``LeaseLost`` for them)."""
        with self._write() as db:
            lost = set() if node is None else lost_leases(db, {e.match_id for e in entries}, node)
            for e in entries:
                if e.match_id in lost:
                    continue
                if isinstance(e, ActionRow):
                    db.execute(
                        "INSERT INTO match_action "
                        "(match_id, hand, idx, seat, kind, tile, ms, seq) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (match_id, hand, idx) DO UPDATE SET seat = excluded.seat, "
                        "kind = excluded.kind, tile = excluded.tile, ms = excluded.ms, "
                        "seq = excluded.seq",
                        (e.match_id, e.hand, e.idx, e.seat, e.kind, e.tile, e.ms, e.seq),
                    )
                elif isinstance(e, PlayerJoined):
                    self._join(db, e)
                else:
                    db.execute(
                        "UPDATE match_player SET left_reason = ? WHERE match_id = ? AND n = ?",
                        (e.reason, e.match_id, e.n),
                    )
        return lost

    @retry_conflicts
    def end_match(
        self, match_id: int, reason: str, standings: Sequence[dict[str, Any]] | None = None
    ) -> None:
        """The match is over (finished, or abandoned): never resumed again."""
        with self._write() as db:
            db.execute(
                "UPDATE match SET ended_at = ?, end_reason = ?, standings = ? WHERE id = ?",
                (
                    time.time(),
                    reason,
                    None if standings is None else json.dumps(list(standings), sort_keys=True),
                    match_id,
                ),
            )
            db.execute("DELETE FROM match_action WHERE match_id = ?", (match_id,))

    @retry_conflicts
    def running_matches(self, tables: Collection[int] | None = None) -> list[RunningMatch]:
        """Every match not ended (at ``tables``, if given), as it stood; matches written
        before this format (no seed) cannot be resumed and are ended as abandoned."""
        with self._write() as db:
            db.execute(
                "UPDATE match SET ended_at = ?, end_reason = 'abandoned' "
                "WHERE ended_at IS NULL AND seed IS NULL",
                (time.time(),),
            )
        return [
            self._running(row)
            for row in self._db.execute(
                "SELECT id, table_id, table_name, settings, seed, owner, public, password_digest "
                "FROM match "
                "WHERE ended_at IS NULL ORDER BY id"
            ).fetchall()
            if tables is None or row[1] in tables
        ]

    def players_of(self, match_id: int) -> tuple[PlayerRecord, ...]:
        """Every participant of a match, in joining order."""
        return tuple(
            PlayerRecord(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7], r[8])
            for r in self._db.execute(
                "SELECT n, slot, account_id, name, guest, bot_level, points, coins, left_reason "
                "FROM match_player WHERE match_id = ? ORDER BY n",
                (match_id,),
            )
        )

    def _running(self, row: Sequence[Any]) -> RunningMatch:
        match_id = row[0]
        players = self.players_of(match_id)
        hands = self._db.execute(
            "SELECT event_log, result FROM hand WHERE match_id = ? ORDER BY number", (match_id,)
        ).fetchall()
        logs = tuple(read_log(bytes(r[0])) for r in hands)
        actions = tuple(
            ActionRow(match_id, *r)
            for r in self._db.execute(
                "SELECT hand, idx, seat, kind, tile, ms, seq FROM match_action "
                "WHERE match_id = ? AND hand = ? ORDER BY idx",
                (match_id, len(logs) + 1),
            )
        )
        return RunningMatch(
            id=match_id,
            table_id=row[1],
            table_name=row[2],
            settings=json.loads(row[3]),
            seed=bytes.fromhex(row[4]),
            owner=row[5] or "",
            public=bool(row[6]),
            password_digest=row[7],
            players=players,
            hand_logs=logs,
            actions=actions,
            last_seq=max(
                [a.seq for a in actions]
                + [json.loads(r[1]).get("seq", 0) for r in hands[-1:]]
                + [0]
            ),
        )

    def max_table_id(self) -> int:
        row = self._db.execute("SELECT max(table_id) FROM match").fetchone()
        return row[0] or 0
