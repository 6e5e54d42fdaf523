"""The database schema as an ordered list of migrations, applied at start.

``schema_version`` holds one row: the number of migrations applied. Migration ``n``
(1-based) moves the schema from version ``n - 1`` to ``n``; each runs in one transaction
together with the version bump, so a crash leaves the schema at a whole version.
Never edit a released migration: append a new one.

The migrations are written for SQLite and run on PostgreSQL too: types, SQLite's row-id
keys and the few functions that differ are translated in one place
(``gbmj_server.storage.postgres.schema_sql``). A new migration that uses only standard
SQL and these types needs nothing more; the storage tests run every migration on both.

Migration 2 holds the coins and items (docs/rules.md §2.5-2.7): ``wallet`` (one per player
account, and wallet 1, the house, with no account), ``coin_transfer`` (double-entry rows:
from wallet, to wallet, amount > 0, reason, hand or match), ``inventory_item`` (account,
slot, item, count) and ``account.rating``. Players that existed before it get their
10,000 starting coins from the house in the same migration.

Migration 3 holds the SSH public keys players add to their accounts (``ssh_key``).
Migration 5 writes running matches ahead, for a restarted server to resume them
(``match_player``, ``match_action``; ``gbmj_server.storage.matches``), and holds the
mutes: the host's (``account.muted``) and each player's own (``mute``).

Migration 4 adds ``account.skeleton``, the look-alike key of the name
(``gbmj_server.names.name_skeleton``, given to SQLite as the function ``name_skeleton``),
unique, so no new name can pass for an existing one. Accounts that already shared a
skeleton keep their names: the oldest holds the key, the later ones none (a unique index
allows many NULLs), so only new names are refused.

Migration 6 gives the matches of the first format (before migration 5) their
participants, copied from ``match_seat`` (each seat's last holder, points from the
standings, coins from the hands' ledger rows), so the history reads every match from
``match_player`` (``gbmj_server.storage.history``).

Migration 9 holds the hands saved with a recorder (``saved_hand``: who saved which hand,
when); a pruned hand keeps its row (its result, its ledger rows) with an empty log.

Migration 11 lets several server nodes share one PostgreSQL database: ``table_lease``
(a table's node and lease, with its lobby entry for the other nodes), ``node`` (each
node's public address and players signed in), the redirect tickets' key
(``node_secret``) and the tickets used (``ticket_used``, each good once);
``gbmj_server.storage.nodes``. Migration 13 adds each node's TLS certificate
(``node.fingerprint``, named in its redirects) and the leases of the roles one node at a
time holds (``role_lease``: the tournament runner).
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
    # 2: coins (a double-entry ledger with a house wallet), items, ratings.
    """
    ALTER TABLE account ADD COLUMN rating INTEGER NOT NULL DEFAULT 0 CHECK (rating >= 0);
    CREATE TABLE wallet (
        id          INTEGER PRIMARY KEY,
        account_id  INTEGER UNIQUE REFERENCES account(id) ON DELETE RESTRICT,
        balance     INTEGER NOT NULL,
        CHECK ((id = 1) = (account_id IS NULL)),
        CHECK (id = 1 OR balance >= 0)
    );
    INSERT INTO wallet (id, account_id, balance) VALUES (1, NULL, 0);
    CREATE TABLE coin_transfer (
        id          INTEGER PRIMARY KEY,
        from_wallet INTEGER NOT NULL REFERENCES wallet(id),
        to_wallet   INTEGER NOT NULL REFERENCES wallet(id),
        amount      INTEGER NOT NULL CHECK (amount > 0),
        reason      TEXT NOT NULL,
        hand_id     INTEGER REFERENCES hand(id),
        match_id    INTEGER REFERENCES match(id),
        created_at  REAL NOT NULL,
        CHECK (from_wallet != to_wallet)
    );
    CREATE INDEX coin_transfer_from ON coin_transfer(from_wallet);
    CREATE INDEX coin_transfer_to ON coin_transfer(to_wallet);
    CREATE INDEX coin_transfer_hand ON coin_transfer(hand_id);
    CREATE TABLE inventory_item (
        account_id  INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        slot        INTEGER NOT NULL CHECK (slot BETWEEN 0 AND 29),
        item        TEXT NOT NULL,
        count       INTEGER NOT NULL CHECK (count BETWEEN 1 AND 99),
        PRIMARY KEY (account_id, slot)
    );
    INSERT INTO wallet (account_id, balance) SELECT id, 0 FROM account WHERE kind = 'player';
    INSERT INTO coin_transfer (from_wallet, to_wallet, amount, reason, created_at)
        SELECT 1, id, 10000, 'welcome', CAST(strftime('%s', 'now') AS REAL)
        FROM wallet WHERE id != 1;
    UPDATE wallet SET balance = 10000 WHERE id != 1;
    UPDATE wallet SET balance = -10000 * (SELECT count(*) - 1 FROM wallet) WHERE id = 1;
    """,
    # 3: SSH public keys a player added to sign in over SSH (gbmj_server.ssh.keys).
    """
    CREATE TABLE ssh_key (
        account_id  INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        fingerprint TEXT NOT NULL,
        public_key  TEXT NOT NULL,
        comment     TEXT NOT NULL DEFAULT '',
        added_at    REAL NOT NULL,
        PRIMARY KEY (account_id, fingerprint)
    );
    """,
    # 4: the names' look-alike keys (gbmj_server.names), one account per key.
    """
    ALTER TABLE account ADD COLUMN skeleton TEXT;
    UPDATE account SET skeleton = name_skeleton(name)
        WHERE id IN (SELECT min(id) FROM account GROUP BY name_skeleton(name));
    CREATE UNIQUE INDEX account_skeleton ON account(skeleton);
    """,
    # 5: running matches written ahead (gbmj_server.storage.matches): a match knows its
    # table, seed and participants, and the actions of its hand in play are on disk
    # before anyone hears of them, so a restarted server resumes it.
    """
    ALTER TABLE match ADD COLUMN table_id INTEGER;
    ALTER TABLE match ADD COLUMN seed TEXT;
    ALTER TABLE match ADD COLUMN owner TEXT;
    ALTER TABLE match ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE match ADD COLUMN password_digest TEXT NOT NULL DEFAULT '';
    CREATE INDEX match_running ON match(id) WHERE ended_at IS NULL;
    CREATE TABLE match_player (
        match_id    INTEGER NOT NULL REFERENCES match(id) ON DELETE CASCADE,
        n           INTEGER NOT NULL,
        slot        INTEGER NOT NULL CHECK (slot BETWEEN 0 AND 3),
        account_id  INTEGER REFERENCES account(id) ON DELETE SET NULL,
        name        TEXT NOT NULL,
        guest       INTEGER NOT NULL DEFAULT 0,
        bot_level   TEXT,
        points      INTEGER NOT NULL DEFAULT 0,
        coins       INTEGER NOT NULL DEFAULT 0,
        left_reason TEXT,
        PRIMARY KEY (match_id, n)
    );
    CREATE INDEX match_player_account ON match_player(account_id, match_id);
    CREATE TABLE match_action (
        match_id    INTEGER NOT NULL REFERENCES match(id) ON DELETE CASCADE,
        hand        INTEGER NOT NULL,
        idx         INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        tile        INTEGER,
        ms          INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        PRIMARY KEY (match_id, hand, idx)
    ) WITHOUT ROWID;
    ALTER TABLE account ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE mute (
        account_id  INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        muted_id    INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, muted_id)
    ) WITHOUT ROWID;
    """,
    # 6: the history reads every match's participants from match_player: matches of the
    # first format get theirs from match_seat.
    """
    INSERT INTO match_player (match_id, n, slot, account_id, name, guest, bot_level, points,
                              coins)
    SELECT s.match_id, s.seat, s.seat, s.account_id, s.name, coalesce(a.kind = 'guest', 0),
           CASE WHEN s.is_bot THEN 'normal' END,
           coalesce(json_extract(m.standings, '$[' || s.seat || ']'), 0),
           coalesce((SELECT sum(CASE WHEN t.to_wallet = w.id THEN t.amount ELSE -t.amount END)
                     FROM wallet w
                     JOIN coin_transfer t ON t.from_wallet = w.id OR t.to_wallet = w.id
                     JOIN hand h ON h.id = t.hand_id
                     WHERE w.account_id = s.account_id AND h.match_id = s.match_id), 0)
    FROM match_seat s
    JOIN match m ON m.id = s.match_id
    LEFT JOIN account a ON a.id = s.account_id
    WHERE NOT EXISTS (SELECT 1 FROM match_player p WHERE p.match_id = s.match_id);
    """,
    # 7: club tournaments (docs/rules.md §2.12): the tournament (its organiser the host, or
    # a player the host allows: tournament_organiser), its entrants (``n`` is the entry
    # order), its sessions, each session's tables (the players by place, East first;
    # negative: a bot filling the field) and each entrant's result of each session.
    """
    CREATE TABLE tournament (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL,
        organiser     TEXT NOT NULL,
        organiser_id  INTEGER REFERENCES account(id) ON DELETE SET NULL,
        state         TEXT NOT NULL CHECK (state IN ('open', 'closed', 'running', 'finished')),
        sessions      INTEGER NOT NULL CHECK (sessions BETWEEN 1 AND 16),
        hands         INTEGER NOT NULL CHECK (hands BETWEEN 1 AND 16),
        minutes       INTEGER NOT NULL CHECK (minutes BETWEEN 1 AND 600),
        drawn         INTEGER NOT NULL DEFAULT 1,
        seed          INTEGER NOT NULL,
        leaders_last  INTEGER NOT NULL DEFAULT 0,
        absent_counts INTEGER NOT NULL DEFAULT 0,
        spectators    INTEGER NOT NULL DEFAULT 0,
        turn_seconds  INTEGER NOT NULL DEFAULT 15,
        grace_seconds INTEGER NOT NULL DEFAULT 60,
        pause_seconds INTEGER NOT NULL DEFAULT 60,
        current       INTEGER NOT NULL DEFAULT 0,
        created_at    REAL NOT NULL
    );
    CREATE TABLE tournament_organiser (
        account_id    INTEGER PRIMARY KEY REFERENCES account(id) ON DELETE CASCADE
    );
    CREATE TABLE tournament_entrant (
        tournament_id INTEGER NOT NULL REFERENCES tournament(id) ON DELETE CASCADE,
        n             INTEGER NOT NULL,
        account_id    INTEGER REFERENCES account(id) ON DELETE SET NULL,
        name          TEXT NOT NULL,
        dropped       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, n),
        UNIQUE (tournament_id, account_id)
    );
    CREATE TABLE tournament_session (
        tournament_id INTEGER NOT NULL REFERENCES tournament(id) ON DELETE CASCADE,
        number        INTEGER NOT NULL,
        started_at    REAL NOT NULL,
        ends_at       REAL NOT NULL,
        finished_at   REAL,
        PRIMARY KEY (tournament_id, number)
    );
    CREATE TABLE tournament_table (
        tournament_id INTEGER NOT NULL,
        session       INTEGER NOT NULL,
        number        INTEGER NOT NULL,
        players       TEXT NOT NULL,
        absent        TEXT NOT NULL DEFAULT '[]',
        seed          TEXT NOT NULL,
        table_id      INTEGER,
        match_id      INTEGER REFERENCES match(id),
        PRIMARY KEY (tournament_id, session, number),
        FOREIGN KEY (tournament_id, session)
            REFERENCES tournament_session(tournament_id, number) ON DELETE CASCADE
    );
    CREATE TABLE tournament_result (
        tournament_id INTEGER NOT NULL,
        session       INTEGER NOT NULL,
        n             INTEGER NOT NULL,
        table_number  INTEGER NOT NULL,
        score         INTEGER NOT NULL,
        table_points  INTEGER NOT NULL,
        place         INTEGER NOT NULL CHECK (place BETWEEN 1 AND 4),
        absent        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, session, n),
        FOREIGN KEY (tournament_id, n)
            REFERENCES tournament_entrant(tournament_id, n) ON DELETE CASCADE
    );
    """,
    # 8: the host sets the inventory's slots (up to 120, protocol.messages
    # MAX_INVENTORY_SLOTS): the slot's check widened.
    """
    CREATE TABLE inventory_item_new (
        account_id  INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        slot        INTEGER NOT NULL CHECK (slot BETWEEN 0 AND 119),
        item        TEXT NOT NULL,
        count       INTEGER NOT NULL CHECK (count BETWEEN 1 AND 99),
        PRIMARY KEY (account_id, slot)
    );
    INSERT INTO inventory_item_new SELECT account_id, slot, item, count FROM inventory_item;
    DROP TABLE inventory_item;
    ALTER TABLE inventory_item_new RENAME TO inventory_item;
    """,
    # 9: duplicate tournaments (docs/rules.md §2.14): every table of a session plays the
    # same deals.
    """
    ALTER TABLE tournament ADD COLUMN duplicate INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: the hands players keep with a recorder (docs/rules.md §2.6), each in its saver's
    # list; the hands' logs older than the host's hand_log_days are pruned, not these
    # (hand_log_kept: the logs not pruned yet, by age, so a pruning skips the pruned).
    """
    CREATE TABLE saved_hand (
        account_id  INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
        hand_id     INTEGER NOT NULL REFERENCES hand(id) ON DELETE CASCADE,
        saved_at    REAL NOT NULL,
        PRIMARY KEY (account_id, hand_id)
    );
    CREATE INDEX saved_hand_hand ON saved_hand(hand_id);
    CREATE INDEX hand_log_kept ON hand(played_at) WHERE length(event_log) > 0;
    """,
    # 11: a duplicate tournament's scale (docs/rules.md §2.14): 'steps' (the default step
    # scale), 'raw' (the comparison itself is the score) or the organiser's thresholds.
    """
    ALTER TABLE tournament ADD COLUMN scale TEXT NOT NULL DEFAULT 'steps';
    """,
    # 12: several nodes on one database (gbmj_server.storage.nodes): each table's lease
    # (the node that runs it, until when, and its lobby entry for the other nodes), and
    # each node's public address for redirects.
    """
    CREATE TABLE table_lease (
        table_id    INTEGER PRIMARY KEY,
        node        TEXT NOT NULL,
        expires_at  REAL NOT NULL,
        info        BLOB
    );
    CREATE INDEX table_lease_node ON table_lease(node);
    CREATE INDEX match_table ON match(table_id);
    CREATE TABLE node (
        name        TEXT PRIMARY KEY,
        address     TEXT,
        players     INTEGER NOT NULL DEFAULT 0,
        seen_at     REAL NOT NULL
    );
    CREATE TABLE node_secret (
        name        TEXT PRIMARY KEY,
        secret      BLOB NOT NULL
    );
    CREATE TABLE ticket_used (
        nonce       TEXT PRIMARY KEY,
        expires_at  REAL NOT NULL
    );
    """,
    # 13: each node's TLS certificate (a redirect names it, so that a client the node's
    # doors started, which pins nothing, checks the node it is sent to), and the roles
    # one node at a time holds (the tournament runner), leased as tables are.
    """
    ALTER TABLE node ADD COLUMN fingerprint TEXT;
    CREATE TABLE role_lease (
        role        TEXT PRIMARY KEY,
        node        TEXT NOT NULL,
        expires_at  REAL NOT NULL
    );
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
