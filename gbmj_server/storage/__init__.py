"""Persistence for the lobby server: accounts, sessions, match and hand history.

A small synchronous interface (``Storage``) over one SQLite connection; the trio side
calls it through ``trio.to_thread.run_sync`` with a ``CapacityLimiter(1)``
(``gbmj_server.net.db.AsyncStorage``). Keeping it synchronous and narrow leaves room for
another backend (PostgreSQL through psycopg 3 in threads) for hosts that outgrow one file.
"""

from gbmj_server.storage.db import (
    Account,
    AccountKind,
    HandRecord,
    MatchRecord,
    NameTaken,
    SeatRecord,
    Storage,
    StorageError,
    default_db_path,
)
from gbmj_server.storage.migrations import MIGRATIONS, SCHEMA_VERSION
from gbmj_server.storage.passwords import hash_password, needs_rehash, verify_password

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Account",
    "AccountKind",
    "HandRecord",
    "MatchRecord",
    "NameTaken",
    "SeatRecord",
    "Storage",
    "StorageError",
    "default_db_path",
    "hash_password",
    "needs_rehash",
    "verify_password",
]
