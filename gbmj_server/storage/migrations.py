"""The database schema as an ordered list of migrations, applied at start.

``schema_version`` holds one row: the number of migrations applied. Migration ``n``
(1-based) moves the schema from version ``n - 1`` to ``n``; each runs in one transaction
together with the version bump, so a crash leaves the schema at a whole version.
Never edit a released migration: append a new one.

Where the next issue goes: coins and items are a new migration appended here, adding
``coin_transfer`` (double-entry rows: from account, to account, amount, reason, hand id;
the house is a reserved account row) and ``inventory_item`` (account, slot, item kind,
count). ``account.id`` is the key both will reference.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: accounts, sessions, match and hand history.
    """
    CREATE TABLE account (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind          TEXT NOT NULL CHECK (kind IN ('player', 'guest')),
        password_hash TEXT,
        banned        INTEGER NOT NULL DEFAULT 0,
        created_at    REAL NOT NULL,
        last_login_at REAL,
        CHECK ((kind = 'player') = (password_hash IS NOT NULL))
    );
    CREATE TABLE session (
        token_hash   BLOB PRIMARY KEY,
        account_id   INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        created_at   REAL NOT NULL,
        expires_at   REAL NOT NULL
    );
    CREATE INDEX session_account ON session(account_id);
    CREATE TABLE match (
        id          INTEGER PRIMARY KEY,
        table_name  TEXT NOT NULL,
        settings    TEXT NOT NULL,
        started_at  REAL NOT NULL,
        ended_at    REAL,
        end_reason  TEXT,
        standings   TEXT
    );
    CREATE TABLE match_seat (
        match_id    INTEGER NOT NULL REFERENCES match(id) ON DELETE CASCADE,
        seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
        account_id  INTEGER REFERENCES account(id) ON DELETE SET NULL,
        name        TEXT NOT NULL,
        is_bot      INTEGER NOT NULL,
        PRIMARY KEY (match_id, seat)
    );
    CREATE TABLE hand (
        id          INTEGER PRIMARY KEY,
        match_id    INTEGER NOT NULL REFERENCES match(id) ON DELETE CASCADE,
        number      INTEGER NOT NULL,
        round       INTEGER NOT NULL,
        hand_number INTEGER NOT NULL,
        result      TEXT NOT NULL,
        event_log   BLOB NOT NULL,
        played_at   REAL NOT NULL,
        UNIQUE (match_id, number)
    );
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
