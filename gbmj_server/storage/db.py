"""``Storage``: the synchronous store behind the lobby server, on a SQLite file (the
default) or a PostgreSQL database (a ``postgresql://`` URL; ``.postgres``).

One connection, used from one thread at a time (the server's worker thread behind a
``CapacityLimiter(1)``). SQLite: WAL journal, a busy timeout and foreign keys on.
Every write is one explicit transaction, so a crash leaves each change whole or absent;
on PostgreSQL a SERIALIZABLE one, run again when it conflicts (``retry_conflicts``).

Session tokens are random (``secrets``); only their SHA-256 is stored, so a copy of the
database does not hand out live sessions.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import platformdirs

from gbmj_server.names import name_skeleton
from gbmj_server.storage.engine import Database
from gbmj_server.storage.history import HistoryMixin
from gbmj_server.storage.ledger import LedgerMixin
from gbmj_server.storage.matches import MatchesMixin, PlayerRecord
from gbmj_server.storage.migrations import MIGRATIONS, SCHEMA_VERSION
from gbmj_server.storage.moderation import ModerationMixin
from gbmj_server.storage.nodes import NodesMixin
from gbmj_server.storage.postgres import (
    MIGRATION_LOCK_KEY,
    SERVER_LOCK_KEY,
    PgConnection,
    is_database_url,
    retry_conflicts,
    schema_sql,
    shown,
)
from gbmj_server.storage.postgres import DatabaseError as PgError
from gbmj_server.storage.postgres import IntegrityError as PgIntegrityError
from gbmj_server.storage.tournaments import TournamentsMixin

SESSION_TTL = 30 * 24 * 3600.0  # a session token is good for 30 days
BUSY_TIMEOUT_MS = 5000
LOCK_SUFFIX = ".lock"  # beside the database: held by the one server that uses it


class StorageError(Exception):
    """A request the store cannot satisfy (unknown account, newer schema...)."""


class NameTaken(StorageError):
    """An account with that name (case-insensitively) or a look-alike of it exists."""


class AccountKind(StrEnum):
    PLAYER = "player"
    GUEST = "guest"


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    kind: AccountKind
    banned: bool
    created_at: float
    password_hash: str | None = field(default=None, repr=False)

    @property
    def is_guest(self) -> bool:
        return self.kind is AccountKind.GUEST


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    table_name: str
    settings: dict[str, Any]
    started_at: float
    ended_at: float | None
    end_reason: str | None
    standings: list[dict[str, Any]] | None  # ``Standing`` wire maps, by rank
    players: tuple[PlayerRecord, ...]  # every participant, in joining order


@dataclass(frozen=True, slots=True)
class StoredHand:
    """A hand as stored: its result map and its event log (the replay's source)."""

    id: int
    match_id: int
    number: int
    round: int
    hand_number: int
    result: dict[str, Any]
    event_log: bytes


def default_db_path() -> Path:
    """The database file in the user's data directory (created on first use)."""
    return platformdirs.user_data_path("gbmj", appauthor=False) / "gbmj-server.sqlite3"


def _make_private_folder(folder: Path) -> None:
    """``folder`` and any missing parents, made readable by the owner only (0700)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700)
        path.chmod(0o700)  # mkdir's mode is masked by the umask


def _create_private_file(path: Path) -> None:
    """An empty ``path`` readable by the owner only (0600), unless it exists."""
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


@contextmanager
def hold_for_server(path: str | Path, node: str = "") -> Iterator[None]:
    """Hold the database at ``path`` for one server's lifetime, after checking that the
    server can use it: its folder exists or can be made, the file opens as a database
    of this schema, and a write goes through (a read-only file or folder fails here, at
    start, not in every later write). A second server on the same file fails too: the
    lock file beside it (``fcntl.flock``) is held until the block ends. Admin commands
    do not take it, so they run beside a live server. On PostgreSQL several servers
    share the database, each a node of its own name: only a second server with the
    same ``node`` fails. Any failure is a ``StorageError`` whose text is one line for
    the host."""
    if is_database_url(path):
        assert isinstance(path, str)
        with _hold_postgres(path, node):
            yield
        return
    path = Path(path)
    try:
        _make_private_folder(path.parent)
    except OSError as exc:
        raise StorageError(f"cannot make the database folder {path.parent}: {_why(exc)}") from None
    if not path.parent.is_dir():
        raise StorageError(f"the database folder {path.parent} is not a folder")
    if path.is_dir():
        raise StorageError(f"the database path {path} is a folder, not a file")
    lock_path = path.with_name(path.name + LOCK_SUFFIX)
    try:
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(
            f"cannot write in the database folder {path.parent}: {_why(exc)}"
        ) from None
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StorageError(
                f"another gbmj-server is using {path} (it holds {lock_path})"
            ) from None
        try:
            with Storage(path) as store:
                store._check_writable()
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot use the database {path}: {_why(exc)}") from None
        yield
    finally:
        os.close(lock)  # closing the file lets the lock go


@contextmanager
def _hold_postgres(url: str, node: str) -> Iterator[None]:
    """``hold_for_server`` for a PostgreSQL database: it answers, migrates, takes a write,
    and no other server of the same node name holds it (an advisory lock, held by a
    connection kept open)."""
    try:
        store = Storage(url)
    except PgError as exc:
        raise StorageError(f"cannot use the database {shown(url)}: {_why(exc)}") from None
    with store:
        try:
            store._check_writable()
            held = store.hold_server_lock(node)
        except PgError as exc:
            raise StorageError(f"cannot use the database {shown(url)}: {_why(exc)}") from None
        if not held:
            raise StorageError(f"another gbmj-server is using {shown(url)} as node {node!r}")
        yield


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied (read-only)"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


_ACCOUNT_COLUMNS = "id, name, kind, banned, created_at, password_hash"


def _account(row: Sequence[Any]) -> Account:
    return Account(
        id=row[0],
        name=row[1],
        kind=AccountKind(row[2]),
        banned=bool(row[3]),
        created_at=row[4],
        password_hash=row[5],
    )


class Storage(
    LedgerMixin, MatchesMixin, ModerationMixin, HistoryMixin, TournamentsMixin, NodesMixin
):
    """Accounts, sessions and history in one SQLite file; migrations applied on open.
    Coins, items and ratings: ``gbmj_server.storage.ledger``; running matches:
    ``.matches``; the history players read: ``.history``."""

    def __init__(self, path: str | Path) -> None:
        """Open (and migrate) the SQLite file at ``path``, or the PostgreSQL database a
        ``postgresql://`` URL names (``gbmj_server.storage.postgres``)."""
        # Held by every call from a worker thread (``AsyncStorage.call``) and by ``close``:
        # closing the connection while another thread uses it can crash the interpreter.
        self.lock = threading.Lock()
        self._pg: PgConnection | None = None
        self._sqlite: sqlite3.Connection | None = None
        self._begin = "BEGIN IMMEDIATE"
        if is_database_url(path):
            assert isinstance(path, str)
            self.path: Path | None = None
            self.url: str | None = path  # (the listener of several nodes opens its own)
            self.target = shown(path)
            self._pg = PgConnection(path)
            self._begin = "BEGIN ISOLATION LEVEL SERIALIZABLE"
            self._db: Database = self._pg
            try:
                self._migrate_postgres()
            except BaseException:
                self._pg.close()  # a refused database is not left connected
                raise
            return
        self.path = Path(path)
        self.url = None
        self.target = str(path)
        if str(path) != ":memory:":
            _make_private_folder(self.path.parent)
            _create_private_file(self.path)  # SQLite gives its -wal and -shm files this mode
        # isolation_level=None: no implicit transactions; ``_write`` opens them.
        self._sqlite = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db = self._sqlite
        self._sqlite.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._sqlite.execute("PRAGMA journal_mode = WAL")
        self._sqlite.execute("PRAGMA foreign_keys = ON")
        self._sqlite.execute("PRAGMA synchronous = NORMAL")  # durable enough under WAL
        # Migration 4 fills the skeletons of the accounts that exist (gbmj_server.names).
        self._sqlite.create_function("name_skeleton", 1, name_skeleton, deterministic=True)
        self._migrate()

    @property
    def engine(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return "sqlite" if self._pg is None else "postgresql"

    def close(self) -> None:
        """Close the file (after a worker thread's call in progress); later calls raise."""
        with self.lock:
            if self._pg is not None:
                self._pg.close()
            if self._sqlite is not None:
                self._sqlite.close()

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema -----------------------------------------------------------------

    def schema_version(self) -> int:
        row = self._db.execute("SELECT version FROM schema_version").fetchone()
        return 0 if row is None else row[0]

    def _migrate(self) -> None:
        sqlite = self._sqlite
        assert sqlite is not None
        self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"database schema version {version} is newer than this server's "
                f"{SCHEMA_VERSION}: upgrade gbmj"
            )
        for number in range(version + 1, SCHEMA_VERSION + 1):
            script = MIGRATIONS[number - 1]
            # The migration and its version bump commit together or not at all.
            try:
                sqlite.executescript(
                    "BEGIN IMMEDIATE;\n"
                    + script
                    + "\nDELETE FROM schema_version;"
                    + f"\nINSERT INTO schema_version (version) VALUES ({number});"
                    + "\nCOMMIT;"
                )
            except BaseException:
                if sqlite.in_transaction:
                    sqlite.execute("ROLLBACK")
                raise

    def _migrate_postgres(self) -> None:
        """The same migrations, translated (``schema_sql``), all in one transaction under
        an advisory lock, so two processes starting at once migrate once."""
        assert self._pg is not None
        pg = self._pg
        pg.script("BEGIN")
        try:
            pg.script(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
            pg.script("CREATE EXTENSION IF NOT EXISTS citext")  # the names, case-insensitive
            pg.script("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            version = self.schema_version()
            if version > SCHEMA_VERSION:
                raise StorageError(
                    f"database schema version {version} is newer than this server's "
                    f"{SCHEMA_VERSION}: upgrade gbmj"
                )
            for number in range(version + 1, SCHEMA_VERSION + 1):
                pg.script(schema_sql(MIGRATIONS[number - 1]))
                pg.script("DELETE FROM schema_version")
                pg.script(f"INSERT INTO schema_version (version) VALUES ({number})")
            if version < SCHEMA_VERSION:
                pg.sync_identities()
        except BaseException:
            pg.script("ROLLBACK")
            raise
        pg.script("COMMIT")

    def hold_server_lock(self, node: str = "") -> bool:
        """PostgreSQL: take the lock the server of node ``node`` holds on its database for
        as long as this connection lives; False if another server of that node holds it
        (servers of other nodes share the database)."""
        assert self._pg is not None
        row = self._db.execute(
            f"SELECT pg_try_advisory_lock({SERVER_LOCK_KEY}, hashtext(?))", (node,)
        ).fetchone()
        return bool(row[0])

    def _check_writable(self) -> None:
        """A write that changes nothing, rolled back: fails on a read-only file or folder."""
        with self.lock:
            self._db.execute(self._begin)
            try:
                self._db.execute("UPDATE schema_version SET version = version")
            finally:
                self._db.execute("ROLLBACK")

    @contextmanager
    def _write(self) -> Iterator[Database]:
        """One write transaction: on SQLite taken at once, so concurrent writers wait, not
        fail; on PostgreSQL SERIALIZABLE, so one of two conflicting writers fails and its
        method runs again (``retry_conflicts``)."""
        self._db.execute(self._begin)
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- accounts ---------------------------------------------------------------

    def create_account(self, name: str, password_hash: str) -> Account:
        """A new player account; ``NameTaken`` if the name is in use (any case) or
        looks like one in use (the same ``name_skeleton``)."""
        return self._insert_account(name, AccountKind.PLAYER, password_hash)

    def create_guest(self, name: str) -> Account:
        """A guest account: no password, resumable only through its session token;
        ``NameTaken`` as for ``create_account``."""
        return self._insert_account(name, AccountKind.GUEST, None)

    @retry_conflicts
    def _insert_account(self, name: str, kind: AccountKind, password_hash: str | None) -> Account:
        try:
            with self._write() as db:
                cur = db.execute(
                    "INSERT INTO account (name, skeleton, kind, password_hash, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, name_skeleton(name), kind.value, password_hash, time.time()),
                )
                account_id = cur.lastrowid
                assert account_id is not None  # an INSERT's row id
                if kind is AccountKind.PLAYER:  # guests hold no coins
                    self._open_wallet(db, account_id)
        except (sqlite3.IntegrityError, PgIntegrityError) as exc:
            raise NameTaken(name) from exc
        account = self.account_by_id(account_id)
        assert account is not None
        return account

    def account_by_name(self, name: str) -> Account | None:
        row = self._db.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM account WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else _account(row)

    def account_by_id(self, account_id: int) -> Account | None:
        row = self._db.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM account WHERE id = ?", (account_id,)
        ).fetchone()
        return None if row is None else _account(row)

    def list_accounts(self, *, include_guests: bool = False) -> list[Account]:
        where = "" if include_guests else "WHERE kind = 'player'"
        rows = self._db.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM account {where} ORDER BY name"
        ).fetchall()
        return [_account(r) for r in rows]

    @retry_conflicts
    def set_password_hash(self, name: str, password_hash: str) -> Account:
        """Replace a player's password hash and end all its sessions."""
        with self._write() as db:
            row = db.execute(
                "SELECT id FROM account WHERE name = ? AND kind = 'player'", (name,)
            ).fetchone()
            if row is None:
                raise StorageError(f"no player account named {name!r}")
            db.execute("UPDATE account SET password_hash = ? WHERE id = ?", (password_hash, row[0]))
            db.execute("DELETE FROM session WHERE account_id = ?", (row[0],))
        account = self.account_by_id(row[0])
        assert account is not None
        return account

    @retry_conflicts
    def set_banned(self, name: str, banned: bool) -> Account:
        """Ban (ending all sessions) or unban an account."""
        with self._write() as db:
            row = db.execute("SELECT id FROM account WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise StorageError(f"no account named {name!r}")
            db.execute("UPDATE account SET banned = ? WHERE id = ?", (int(banned), row[0]))
            if banned:
                db.execute("DELETE FROM session WHERE account_id = ?", (row[0],))
        account = self.account_by_id(row[0])
        assert account is not None
        return account

    @retry_conflicts
    def note_login(self, account_id: int) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE account SET last_login_at = ? WHERE id = ?", (time.time(), account_id)
            )

    # -- sessions ---------------------------------------------------------------

    @retry_conflicts
    def create_session(
        self, account_id: int, ttl: float = SESSION_TTL, *, only: bool = False
    ) -> str:
        """A fresh random session token for the account (only its hash is stored);
        ``only``: every older token of the account stops working (a new sign-in)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self._write() as db:
            db.execute("DELETE FROM session WHERE expires_at < ?", (now,))
            if only:
                db.execute("DELETE FROM session WHERE account_id = ?", (account_id,))
            db.execute(
                "INSERT INTO session (token_hash, account_id, created_at, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (_token_hash(token), account_id, now, now + ttl),
            )
        return token

    def resolve_session(self, token: str) -> Account | None:
        """The account a live session token belongs to, or None (unknown or expired)."""
        row = self._db.execute(
            f"SELECT {', '.join('a.' + c.strip() for c in _ACCOUNT_COLUMNS.split(','))} "
            "FROM session s JOIN account a ON a.id = s.account_id "
            "WHERE s.token_hash = ? AND s.expires_at >= ?",
            (_token_hash(token), time.time()),
        ).fetchone()
        return None if row is None else _account(row)

    @retry_conflicts
    def delete_session(self, token: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM session WHERE token_hash = ?", (_token_hash(token),))

    @retry_conflicts
    def purge_guests(self, seen_before: float, keep: Collection[int] = ()) -> int:
        """Delete the guests last signed in before ``seen_before`` (a ``time.time()``),
        but not those of ``keep`` (online or seated) nor a running match's players;
        their sessions and mutes go with them, their finished matches keep their names.
        How many went."""
        with self._write() as db:
            cur = db.execute(
                "DELETE FROM account WHERE kind = 'guest' "
                "AND coalesce(last_login_at, created_at) < ? "
                "AND id NOT IN (SELECT value FROM json_each(?)) "
                "AND id NOT IN (SELECT p.account_id FROM match_player p "
                "JOIN match m ON m.id = p.match_id "
                "WHERE m.ended_at IS NULL AND p.account_id IS NOT NULL)",
                (seen_before, json.dumps(sorted(keep))),
            )
            return cur.rowcount

    # -- match and hand history ----------------------------------------------------

    @staticmethod
    def _insert_hand(
        db: Database,
        match_id: int,
        number: int,
        round_: int,
        hand_number: int,
        result: dict[str, Any],
        event_log: bytes,
    ) -> int:
        """The hand's row, inside the caller's transaction; its id."""
        cur = db.execute(
            "INSERT INTO hand (match_id, number, round, hand_number, result, event_log, "
            "played_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                match_id,
                number,
                round_,
                hand_number,
                json.dumps(result, sort_keys=True),
                event_log,
                time.time(),
            ),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def match(self, match_id: int) -> MatchRecord | None:
        row = self._db.execute(
            "SELECT id, table_name, settings, started_at, ended_at, end_reason, standings "
            "FROM match WHERE id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        return MatchRecord(
            id=row[0],
            table_name=row[1],
            settings=json.loads(row[2]),
            started_at=row[3],
            ended_at=row[4],
            end_reason=row[5],
            standings=None if row[6] is None else json.loads(row[6]),
            players=self.players_of(match_id),
        )

    def match_ids(self) -> list[int]:
        return [r[0] for r in self._db.execute("SELECT id FROM match ORDER BY id")]

    def hands(self, match_id: int) -> list[StoredHand]:
        rows = self._db.execute(
            "SELECT id, match_id, number, round, hand_number, result, event_log FROM hand "
            "WHERE match_id = ? ORDER BY number",
            (match_id,),
        ).fetchall()
        return [
            StoredHand(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), bytes(r[6])) for r in rows
        ]
