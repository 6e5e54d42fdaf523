"""Backups of the database, taken while the server runs, and their restore.

``backup`` uses SQLite's online backup (``sqlite3.Connection.backup``): one read
transaction copies every page, so the copy is the database as of one moment, even while
the server writes (WAL lets a reader and the writer go side by side). The copy is made
aside, checked (``PRAGMA integrity_check``) and only then renamed to the file asked for:
a failed backup leaves no half file. It is one self-contained file (rollback journal,
no ``-wal`` beside it), readable by the owner only, since it holds password hashes.

``restore`` copies a backup back into the database the same way, inside one write
transaction, while holding the database as a server does (``hold_for_server``): it is
refused while a server runs, and a server cannot start in the middle of it. The
database as it was is first backed up beside it (``.before-restore``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from gbmj_server.storage import StorageError, hold_for_server
from gbmj_server.storage.migrations import SCHEMA_VERSION

BEFORE_RESTORE_SUFFIX = ".before-restore"


@dataclass(frozen=True, slots=True)
class Copy:
    """A database file that was written and checked."""

    path: Path
    size: int  # bytes
    schema: int  # its schema version


def backup(db_path: Path, target: Path) -> Copy:
    """A consistent copy of the database at ``db_path`` in ``target`` (replaced if it
    exists); ``StorageError`` with one line if the database or the target cannot be used."""
    if not db_path.is_file():
        raise StorageError(f"no database at {db_path}")
    _refuse_same_file(db_path, target)
    if target.is_dir():
        raise StorageError(f"{target} is a folder: name the backup file")
    with contextlib.closing(_open_read_only(db_path)) as source:
        _check_database(source, db_path)
        return _copy_into_file(source, target)


def restore(source_path: Path, db_path: Path) -> tuple[Copy, Copy | None]:
    """Replace the database at ``db_path`` with the backup at ``source_path``; returns
    the restored database and the copy of the one it replaced (None if there was none).
    Refused while a server holds the database, and for a file that is not a sound gbmj
    database of a schema this server knows; then nothing changes."""
    if not source_path.is_file():
        raise StorageError(f"no backup file at {source_path}")
    _refuse_same_file(db_path, source_path)
    with contextlib.closing(_open_read_only(source_path)) as source:
        schema = _check_database(source, source_path)
        existed = db_path.is_file()
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(hold_for_server(db_path))
            except StorageError as exc:
                raise StorageError(f"restore refused: {exc}") from None
            before = None
            if existed:
                before = backup(db_path, db_path.with_name(db_path.name + BEFORE_RESTORE_SUFFIX))
            with contextlib.closing(_connect(db_path)) as target:
                # One write transaction on the live file: a reader sees the old database or
                # the new one, and a failure part way leaves the old one.
                try:
                    source.backup(target)
                    sound = target.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                except sqlite3.Error as exc:
                    raise StorageError(f"cannot restore into {db_path}: {exc}") from None
                if not sound:
                    raise StorageError(f"the restored database {db_path} fails its check")
    return Copy(db_path, db_path.stat().st_size, schema), before


def _refuse_same_file(db_path: Path, other: Path) -> None:
    live = db_path.resolve()
    beside = {live, *(live.with_name(live.name + s) for s in ("-wal", "-shm", "-journal"))}
    if other.resolve() in beside:
        raise StorageError(f"{other} is the database itself (or its journal): pick another file")


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA busy_timeout = 5000")  # the server's write in progress finishes first
    return db


def _open_read_only(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open {path}: {exc}") from None
    return db


def _check_database(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of a sound gbmj database; ``StorageError`` for anything else."""
    try:
        if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise StorageError(f"{path} is damaged (SQLite's integrity check fails)")
        row = db.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path} is not a gbmj database: {exc}") from None
    if row is None:
        raise StorageError(f"{path} is not a gbmj database: it has no schema version")
    if row[0] > SCHEMA_VERSION:
        raise StorageError(
            f"{path} has schema version {row[0]}, newer than this server's {SCHEMA_VERSION}: "
            "upgrade gbmj"
        )
    return int(row[0])


def _copy_into_file(source: sqlite3.Connection, target: Path) -> Copy:
    """``source`` copied to ``target`` through a checked file beside it."""
    aside = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        aside.unlink(missing_ok=True)  # left by a backup that was stopped
        os.close(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        with contextlib.closing(_connect(aside)) as copy:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one file: nothing in a -wal
            schema = _check_database(copy, target)
        os.replace(aside, target)
    except (OSError, sqlite3.Error) as exc:
        aside.unlink(missing_ok=True)
        reason = getattr(exc, "strerror", None) or exc
        raise StorageError(f"cannot write the backup {target}: {reason}") from None
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    return Copy(target, target.stat().st_size, schema)
