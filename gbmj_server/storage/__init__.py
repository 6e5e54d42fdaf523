"""Persistence for the lobby server: accounts, sessions, match and hand history, and the
coin ledger, inventories and ratings (``ledger``).

A small synchronous interface (``Storage``) over one SQLite connection, or one
PostgreSQL connection (psycopg 3; ``gbmj_server.storage.postgres`` holds what differs);
the trio side calls it through ``trio.to_thread.run_sync`` with a ``CapacityLimiter(1)``
(``gbmj_server.storage.threads.AsyncStorage``).
"""

from gbmj_server.storage.db import (
    Account,
    AccountKind,
    MatchRecord,
    NameTaken,
    Storage,
    StorageError,
    StoredHand,
    default_db_path,
    hold_for_server,
)
from gbmj_server.storage.ledger import (
    HOUSE_WALLET,
    START_COINS,
    InventoryFull,
    LeaderRow,
    LedgerError,
    NoSuchItem,
    NotEnoughCoins,
    NoWallet,
    Payment,
    Settlement,
    Slot,
    Transfer,
)
from gbmj_server.storage.migrations import MIGRATIONS, SCHEMA_VERSION
from gbmj_server.storage.passwords import hash_password, needs_rehash, verify_password

__all__ = [
    "HOUSE_WALLET",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "START_COINS",
    "Account",
    "AccountKind",
    "InventoryFull",
    "LeaderRow",
    "LedgerError",
    "MatchRecord",
    "NameTaken",
    "NoSuchItem",
    "NoWallet",
    "NotEnoughCoins",
    "Payment",
    "Settlement",
    "Slot",
    "Storage",
    "StorageError",
    "StoredHand",
    "Transfer",
    "default_db_path",
    "hash_password",
    "hold_for_server",
    "needs_rehash",
    "verify_password",
]
