"""The SQLite store: migrations, accounts, sessions, history, on a real file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import psycopg
import pytest

from gbmj_server.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    AccountKind,
    NameTaken,
    Storage,
    StorageError,
    hash_password,
    verify_password,
)
from gbmj_server.storage.logs import write_log
from gbmj_server.storage.matches import ActionRow, PlayerJoined, PlayerLeft

# What a refused constraint raises, by engine.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, psycopg.errors.IntegrityError)


def stored_bytes(store: Storage) -> bytes:
    """Everything the store holds, as bytes: the SQLite file, or PostgreSQL's dump of the
    tables that could hold a secret."""
    if store.path is not None:
        return store.path.read_bytes()
    rows = store._db.execute("SELECT password_hash FROM account").fetchall()
    rows += store._db.execute("SELECT token_hash FROM session").fetchall()
    return repr(rows).encode()


@pytest.fixture
def store(db_target: str | Path):
    with Storage(db_target) as s:
        yield s


def test_migrations_apply_once_and_set_the_version(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Storage(path) as s:
        assert s.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
        s.create_account("alice", hash_password("pw-alice"))
    # Reopening applies nothing again and keeps the data.
    with Storage(path) as s:
        assert s.schema_version() == SCHEMA_VERSION
        assert s.account_by_name("alice") is not None
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    Storage(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="newer"):
        Storage(path)


def test_foreign_keys_are_enforced(store: Storage) -> None:
    with pytest.raises(INTEGRITY_ERRORS):
        store.create_session(account_id=999, ttl=60)


def test_accounts_store_a_hash_never_the_password(store: Storage) -> None:
    account = store.create_account("Alice", hash_password("correct horse"))
    assert account.kind is AccountKind.PLAYER and not account.banned
    assert account.password_hash and account.password_hash.startswith("$argon2id$")
    assert verify_password(account.password_hash, "correct horse")
    assert not verify_password(account.password_hash, "wrong")
    assert b"correct horse" not in stored_bytes(store)


def test_names_are_unique_ignoring_case(store: Storage) -> None:
    store.create_account("Alice", hash_password("x"))
    with pytest.raises(NameTaken):
        store.create_account("alice", hash_password("y"))
    with pytest.raises(NameTaken):
        store.create_guest("ALICE")
    assert store.account_by_name("aLiCe").name == "Alice"


def test_guests_have_no_password_and_are_not_listed_by_default(store: Storage) -> None:
    guest = store.create_guest("guest-1")
    assert guest.is_guest and guest.password_hash is None
    store.create_account("bob", hash_password("b"))
    assert [a.name for a in store.list_accounts()] == ["bob"]
    assert {a.name for a in store.list_accounts(include_guests=True)} == {"bob", "guest-1"}


def test_sessions_resolve_expire_and_end(store: Storage) -> None:
    alice = store.create_account("alice", hash_password("a"))
    token = store.create_session(alice.id)
    assert store.resolve_session(token).id == alice.id
    assert store.resolve_session(token + "x") is None
    assert token.encode() not in stored_bytes(store)
    store.delete_session(token)
    assert store.resolve_session(token) is None
    short = store.create_session(alice.id, ttl=-1)
    assert store.resolve_session(short) is None


def test_password_reset_and_ban_end_sessions(store: Storage) -> None:
    alice = store.create_account("alice", hash_password("old"))
    token = store.create_session(alice.id)
    store.set_password_hash("alice", hash_password("new"))
    assert store.resolve_session(token) is None
    assert verify_password(store.account_by_name("alice").password_hash, "new")
    token = store.create_session(alice.id)
    assert store.set_banned("alice", True).banned
    assert store.resolve_session(token) is None
    assert not store.set_banned("alice", False).banned
    with pytest.raises(StorageError):
        store.set_banned("nobody", True)
    with pytest.raises(StorageError):
        store.set_password_hash("nobody", hash_password("x"))


def new_match(store: Storage, players: list[PlayerJoined] | None = None) -> int:
    """A match record as a table starts one (a seed, four participants)."""
    if players is None:
        players = [PlayerJoined(0, n, n, None, f"bot-{n + 1}", bot_level="easy") for n in range(4)]
    return store.start_match(3, "t1", {"rounds": 1}, b"\x01" * 32, "alice", True, "", players)


def test_a_running_match_is_written_ahead_and_read_back_whole(store: Storage) -> None:
    alice = store.create_account("alice", hash_password("a"))
    players = [PlayerJoined(0, 0, 0, alice.id, "alice")] + [
        PlayerJoined(0, n, n, None, f"bot-{n + 1}", bot_level="easy") for n in (1, 2, 3)
    ]
    match_id = new_match(store, players)
    store.journal(
        [
            ActionRow(match_id, 1, 0, 0, "deal", None, 0, 12),
            ActionRow(match_id, 1, 1, 0, "discard", 5, 4_200, 13),
        ]
    )
    store.journal(  # alice escapes; a bot takes her seat
        [
            ActionRow(match_id, 1, 2, 0, "escape", None, 9_000, 15),
            PlayerLeft(match_id, 0, "left"),
            PlayerJoined(match_id, 4, 0, None, "bot-1", bot_level="hard"),
        ]
    )
    (running,) = store.running_matches()
    assert (running.id, running.table_id, running.seed, running.public) == (
        match_id,
        3,
        b"\x01" * 32,
        True,
    )
    assert [a.kind for a in running.actions] == ["deal", "discard", "escape"]
    assert running.last_seq == 15 and running.hand_logs == ()
    assert [(p.n, p.slot, p.left_reason) for p in running.players] == [
        (0, 0, "left"),
        (1, 1, None),
        (2, 2, None),
        (3, 3, None),
        (4, 0, None),
    ]
    # Settling the hand records its log and the participants' totals, and clears the
    # actions written ahead: the hand row holds them now.
    log = write_log(
        {"log": [[0, {"kind": "discard", "tile": 5}], [0, {"kind": "escape"}]]},
        [4_200, 9_000],
        ["alice", "bot-2", "bot-3", "bot-4"],
    )
    store.settle_hand(
        match_id, 1, 1, 1, {"points": [-80, 0, 0, 0], "seq": 16}, log, points=[(0, -80)]
    )
    (running,) = store.running_matches()
    assert running.actions == () and running.last_seq == 16
    assert running.hand_logs[0]["times"] == [4_200, 9_000]
    assert running.players[0].points == -80
    store.end_match(match_id, "finished", [{"name": "bot-2", "rank": 1}])
    assert store.running_matches() == []
    record = store.match(match_id)
    assert record.end_reason == "finished" and record.standings == [{"name": "bot-2", "rank": 1}]
    assert record.ended_at is not None and record.ended_at >= record.started_at
    assert [p.name for p in record.players] == ["alice", "bot-2", "bot-3", "bot-4", "bot-1"]
    assert store.settle_hand(match_id, 1, 1, 1, {}, b"").already  # a hand is settled once


def test_a_failed_write_leaves_nothing_behind(store: Storage) -> None:
    match_id = new_match(store)
    # Seat 9 violates a CHECK: the whole match insert must roll back.
    with pytest.raises(INTEGRITY_ERRORS):
        new_match(
            store,
            [
                PlayerJoined(0, 0, 0, None, "a", bot_level="easy"),
                PlayerJoined(0, 1, 9, None, "b", bot_level="easy"),
            ],
        )
    assert store.match_ids() == [match_id]
    assert time.time() >= store.match(match_id).started_at


def test_old_guests_are_purged_but_not_the_kept_the_seated_or_players(store: Storage) -> None:
    old, kept, seated = (store.create_guest(f"guest-{n}") for n in range(3))
    alice = store.create_account("alice", hash_password("a"))
    store.set_mute(alice.id, old.id, True)
    store.set_mute(alice.id, old.id, True)  # twice: still one mute
    assert store.mutes_of(alice.id) == {old.id}
    new_match(store, [PlayerJoined(0, 0, 0, seated.id, "guest-2", guest=True)])
    assert store.purge_guests(time.time() + 1, keep=[kept.id]) == 1
    assert store.account_by_id(old.id) is None and store.mutes_of(alice.id) == set()
    assert all(store.account_by_id(a.id) for a in (kept, seated, alice))
    assert store.purge_guests(time.time() + 1, keep=[kept.id]) == 0
