"""Several server nodes on one database: the ``Storage`` methods of the tables' leases.

A table belongs to one node at a time: its ``table_lease`` row names the node and the
time its lease runs out (``expires_at``, seconds of ``time.time()``: the nodes' clocks
agree, kept by NTP). The node renews all its leases in one statement; a node that can
no longer renew stops its tables. A running match whose lease lapsed is taken over by
another node in one conditional UPDATE, so of two nodes trying at once one wins. The
row also holds the table's lobby entry (``info``, the ``TableInfo`` as msgpack), which
the other nodes list: the database is the truth, a NOTIFY only a hint to read it again
(``gbmj_server.nodes``). Table ids come from here too, past every id any node used.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Collection, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass

from gbmj_server.storage.engine import Database
from gbmj_server.storage.postgres import IntegrityError as PgIntegrityError
from gbmj_server.storage.postgres import retry_conflicts


@dataclass(frozen=True, slots=True)
class NodeAddress:
    """Where players reach a node: ``address`` (HOST:PORT), over TLS with the certificate
    ``fingerprint`` (None: plain TCP)."""

    address: str
    fingerprint: str | None


class LeaseLost(Exception):
    """This node no longer holds the lease of the match's table: another node runs it, so
    this one writes nothing more of it."""


def check_lease(db: Database, match_id: int, node: str) -> None:
    """Inside a write transaction: ``LeaseLost`` unless ``node`` holds the lease of the
    match's table (on PostgreSQL a node taking it over at the same moment conflicts
    with this transaction, and one of the two runs again)."""
    row = db.execute(
        "SELECT l.node FROM match m JOIN table_lease l ON l.table_id = m.table_id WHERE m.id = ?",
        (match_id,),
    ).fetchone()
    if row is None or row[0] != node:
        raise LeaseLost(f"match {match_id}: node {node} holds its table's lease no more")


def lost_leases(db: Database, match_ids: Collection[int], node: str) -> set[int]:
    """Inside a write transaction: those of ``match_ids`` whose table ``node`` does not
    lease (``check_lease`` for many at once)."""
    held = {
        int(r[0])
        for r in db.execute(
            "SELECT m.id FROM match m JOIN table_lease l ON l.table_id = m.table_id "
            "WHERE l.node = ? AND m.id IN (SELECT value FROM json_each(?))",
            (node, json.dumps(sorted(match_ids))),
        ).fetchall()
    }
    return set(match_ids) - held


# The running matches' tables that have no lease row at all (written before leases, or
# copied from SQLite): a node taking lapsed leases takes these too.
_RUNNING = "SELECT DISTINCT table_id FROM match WHERE ended_at IS NULL"
# The tables of the running tournaments' sessions.
_SESSIONS = (
    "SELECT tt.table_id FROM tournament_table tt JOIN tournament t ON t.id = tt.tournament_id "
    "WHERE t.state = 'running' AND tt.table_id IS NOT NULL"
)


class NodesMixin:
    """Mixed into ``Storage`` (which provides ``_db`` and ``_write``)."""

    _db: Database

    _write: Callable[[], AbstractContextManager[Database]]

    @retry_conflicts
    def new_table(self, node: str, expires_at: float) -> int:
        """A fresh table id, past every id of a lease or a match, leased to ``node``."""
        with self._write() as db:
            row = db.execute(
                "SELECT max(n) FROM (SELECT max(table_id) AS n FROM table_lease "
                "UNION ALL SELECT max(table_id) AS n FROM match) AS ids"
            ).fetchone()
            table_id = int(row[0] or 0) + 1
            db.execute(
                "INSERT INTO table_lease (table_id, node, expires_at) VALUES (?, ?, ?)",
                (table_id, node, expires_at),
            )
        return table_id

    @retry_conflicts
    def renew_leases(self, node: str, expires_at: float, tables: Collection[int]) -> set[int]:
        """The leases ``node`` still holds of ``tables`` (those it runs), renewed until
        ``expires_at``; their tables."""
        with self._write() as db:
            return {
                int(r[0])
                for r in db.execute(
                    "UPDATE table_lease SET expires_at = ? WHERE node = ? "
                    "AND table_id IN (SELECT value FROM json_each(?)) RETURNING table_id",
                    (expires_at, node, json.dumps(sorted(tables))),
                ).fetchall()
            }

    @retry_conflicts
    def take_leases(
        self,
        node: str,
        expires_at: float,
        *,
        own: bool,
        sessions_lapsed_before: float | None = None,
    ) -> set[int]:
        """The leases of running matches that lapsed (and, with ``own``, those ``node``
        held before a restart), taken by ``node`` until ``expires_at``, with the running
        matches' tables that had none; their table ids. One conditional UPDATE: of two
        nodes taking at once, each lease goes to one. With ``sessions_lapsed_before``
        (a node that does not run the tournaments), the tables of a running tournament's
        sessions only if they lapsed before then: they are left a while for the node
        that takes the tournaments over, which gives them the session's rules."""
        now = time.time()
        with self._write() as db:
            taken = db.execute(
                "UPDATE table_lease SET node = ?, expires_at = ? "
                f"WHERE (expires_at < ? OR node = ?) AND table_id IN ({_RUNNING}) "
                f"AND (? = 1 OR expires_at < ? OR table_id NOT IN ({_SESSIONS})) "
                "RETURNING table_id",
                (
                    node,
                    expires_at,
                    now,
                    node if own else "",
                    int(sessions_lapsed_before is None),
                    sessions_lapsed_before or 0.0,
                ),
            ).fetchall()
            missing = db.execute(
                "INSERT INTO table_lease (table_id, node, expires_at) "
                f"SELECT table_id, ?, ? FROM ({_RUNNING}) AS running "
                "WHERE table_id NOT IN (SELECT table_id FROM table_lease) "
                "ON CONFLICT (table_id) DO NOTHING RETURNING table_id",
                (node, expires_at),
            ).fetchall()
            # A lapsed lease of a table without a match (a room its node left waiting) is
            # gone with its node: nobody resumes an empty room.
            db.execute(
                f"DELETE FROM table_lease WHERE expires_at < ? AND table_id NOT IN ({_RUNNING})",
                (now,),
            )
        return {int(r[0]) for r in [*taken, *missing]}

    @retry_conflicts
    def hold_role(self, role: str, node: str, expires_at: float) -> bool:
        """Whether ``node`` holds ``role`` until ``expires_at`` now: renewed if it held it,
        taken if nobody did or its holder's lease lapsed (of two nodes at once, one)."""
        with self._write() as db:
            row = db.execute(
                "INSERT INTO role_lease (role, node, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (role) DO UPDATE SET node = excluded.node, "
                "expires_at = excluded.expires_at "
                "WHERE role_lease.node = excluded.node OR role_lease.expires_at < ? "
                "RETURNING node",
                (role, node, expires_at, time.time()),
            ).fetchone()
        return row is not None

    def role_holder(self, role: str) -> str | None:
        """The node that holds ``role``'s lease, lapsed or not (None: none ever did)."""
        row = self._db.execute("SELECT node FROM role_lease WHERE role = ?", (role,)).fetchone()
        return None if row is None else str(row[0])

    @retry_conflicts
    def release_role(self, role: str, node: str) -> None:
        """``node`` gives ``role`` up (if it held it): another node may take it at once."""
        with self._write() as db:
            db.execute("DELETE FROM role_lease WHERE role = ? AND node = ?", (role, node))

    @retry_conflicts
    def release_lease(self, table_id: int, node: str) -> None:
        """The table closed on ``node``: its lease goes (if ``node`` still held it)."""
        with self._write() as db:
            db.execute("DELETE FROM table_lease WHERE table_id = ? AND node = ?", (table_id, node))

    @retry_conflicts
    def share_infos(self, node: str, infos: Mapping[int, bytes]) -> None:
        """The lobby entries of ``node``'s tables, for the other nodes to list."""
        with self._write() as db:
            for table_id, info in sorted(infos.items()):
                db.execute(
                    "UPDATE table_lease SET info = ? WHERE table_id = ? AND node = ?",
                    (info, table_id, node),
                )

    def shared_infos(self, node: str) -> dict[int, bytes]:
        """The lobby entries of the tables other nodes hold: table id -> ``info``."""
        return {
            int(r[0]): bytes(r[1])
            for r in self._db.execute(
                "SELECT table_id, info FROM table_lease WHERE node <> ? AND info IS NOT NULL",
                (node,),
            ).fetchall()
        }

    def lease_holder(self, table_id: int) -> str | None:
        """The node that holds the table's lease (None: no node)."""
        row = self._db.execute(
            "SELECT node FROM table_lease WHERE table_id = ?", (table_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    @retry_conflicts
    def node_seen(
        self, node: str, address: str | None, players: int = 0, fingerprint: str | None = None
    ) -> None:
        """``node`` is alive, reached by players at ``address`` (HOST:PORT) over TLS with
        the certificate ``fingerprint`` (None: plain TCP), ``players`` signed in on it."""
        with self._write() as db:
            db.execute(
                "INSERT INTO node (name, address, players, seen_at, fingerprint) "
                "VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET address = excluded.address, "
                "players = excluded.players, seen_at = excluded.seen_at, "
                "fingerprint = excluded.fingerprint",
                (node, address, players, time.time(), fingerprint),
            )

    def players_elsewhere(self, node: str, seen_since: float) -> int:
        """Players signed in on the other nodes seen alive since ``seen_since``."""
        row = self._db.execute(
            "SELECT coalesce(sum(players), 0) FROM node WHERE name <> ? AND seen_at >= ?",
            (node, seen_since),
        ).fetchone()
        return int(row[0])

    def node_address(self, node: str) -> str | None:
        row = self._db.execute("SELECT address FROM node WHERE name = ?", (node,)).fetchone()
        return None if row is None else row[0]

    @retry_conflicts
    def ticket_key(self) -> bytes:
        """The key every node signs and checks redirect tickets with (made once)."""
        with self._write() as db:
            db.execute(
                "INSERT INTO node_secret (name, secret) VALUES ('tickets', ?) "
                "ON CONFLICT (name) DO NOTHING",
                (secrets.token_bytes(32),),
            )
            row = db.execute("SELECT secret FROM node_secret WHERE name = 'tickets'").fetchone()
        return bytes(row[0])

    @retry_conflicts
    def use_ticket(self, nonce: str, expires_at: float) -> bool:
        """Mark a ticket used; False if it was already (a ticket is good once)."""
        try:
            with self._write() as db:
                db.execute("DELETE FROM ticket_used WHERE expires_at < ?", (time.time(),))
                db.execute(
                    "INSERT INTO ticket_used (nonce, expires_at) VALUES (?, ?)",
                    (nonce, expires_at),
                )
        except (sqlite3.IntegrityError, PgIntegrityError):
            return False
        return True

    def seated_elsewhere(self, account_id: int, node: str) -> tuple[int, NodeAddress] | None:
        """The table (and where its node is reached) of the account's running match, when
        another node holds it (a lapsed lease: nobody, until a node takes it over)."""
        row = self._db.execute(
            "SELECT m.table_id, n.address, n.fingerprint FROM match_player p "
            "JOIN match m ON m.id = p.match_id "
            "JOIN table_lease l ON l.table_id = m.table_id "
            "JOIN node n ON n.name = l.node "
            "WHERE p.account_id = ? AND p.left_reason IS NULL AND m.ended_at IS NULL "
            "AND l.node <> ? AND l.expires_at >= ? AND n.address IS NOT NULL "
            "ORDER BY m.id DESC LIMIT 1",
            (account_id, node, time.time()),
        ).fetchone()
        return None if row is None else (int(row[0]), NodeAddress(str(row[1]), row[2]))

    def holder_address(self, table_id: int) -> tuple[str, NodeAddress | None] | None:
        """The node that holds the table's lease and where it is reached (None: no node;
        no address: it gave none)."""
        row = self._db.execute(
            "SELECT l.node, n.address, n.fingerprint FROM table_lease l "
            "LEFT JOIN node n ON n.name = l.node WHERE l.table_id = ?",
            (table_id,),
        ).fetchone()
        if row is None:
            return None
        return str(row[0]), None if row[1] is None else NodeAddress(str(row[1]), row[2])

    def notify(self, channel: str, payload: str) -> None:
        """PostgreSQL: a NOTIFY to every node listening on ``channel``, at once (never
        inside a transaction: it describes what was committed). SQLite: nothing."""
        if getattr(self, "engine", "sqlite") == "postgresql":
            self._db.execute("SELECT pg_notify(?, ?)", (channel, payload))
