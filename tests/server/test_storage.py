"""The SQLite store: migrations, accounts, sessions, history, on a real file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from gbmj_server.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    AccountKind,
    NameTaken,
    SeatRecord,
    Storage,
    StorageError,
    hash_password,
    verify_password,
)


@pytest.fixture
def store(tmp_path: Path):
    with Storage(tmp_path / "gbmj.sqlite3") as s:
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
    with pytest.raises(sqlite3.IntegrityError):
        store.create_session(account_id=999, ttl=60)


def test_accounts_store_a_hash_never_the_password(store: Storage, tmp_path: Path) -> None:
    account = store.create_account("Alice", hash_password("correct horse"))
    assert account.kind is AccountKind.PLAYER and not account.banned
    assert account.password_hash and account.password_hash.startswith("$argon2id$")
    assert verify_password(account.password_hash, "correct horse")
    assert not verify_password(account.password_hash, "wrong")
    assert b"correct horse" not in (tmp_path / "gbmj.sqlite3").read_bytes()


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


def test_sessions_resolve_expire_and_end(store: Storage, tmp_path: Path) -> None:
    alice = store.create_account("alice", hash_password("a"))
    token = store.create_session(alice.id)
    assert store.resolve_session(token).id == alice.id
    assert store.resolve_session(token + "x") is None
    assert token.encode() not in (tmp_path / "gbmj.sqlite3").read_bytes()
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


def test_match_and_hand_history_round_trip(store: Storage) -> None:
    alice = store.create_account("alice", hash_password("a"))
    seats = [
        SeatRecord(0, alice.id, "alice", False),
        SeatRecord(1, None, "bot 1", True),
        SeatRecord(2, None, "bot 2", True),
        SeatRecord(3, None, "bot 3", True),
    ]
    match_id = store.start_match("t1", {"rounds": 1, "stake": 0}, seats)
    log = bytes(range(256)) * 4
    store.record_hand(match_id, 1, 1, 1, {"winner": 2, "points": [-9, -9, 27, -9]}, log)
    store.record_hand(match_id, 2, 1, 2, {"winner": None, "points": [0, 0, 0, 0]}, b"")
    with pytest.raises(sqlite3.IntegrityError):  # a hand number is recorded once
        store.record_hand(match_id, 2, 1, 2, {}, b"")
    store.set_seat(match_id, SeatRecord(0, None, "bot 0", True))
    store.end_match(match_id, "finished", [-9, -9, 27, -9])
    record = store.match(match_id)
    assert record.settings == {"rounds": 1, "stake": 0}
    assert record.end_reason == "finished" and record.standings == [-9, -9, 27, -9]
    assert record.ended_at is not None and record.ended_at >= record.started_at
    assert record.seats[0] == SeatRecord(0, None, "bot 0", True)
    hands = store.hands(match_id)
    assert [h.number for h in hands] == [1, 2]
    assert hands[0].event_log == log and hands[0].result["winner"] == 2


def test_a_failed_write_leaves_nothing_behind(store: Storage) -> None:
    match_id = store.start_match("t", {}, [SeatRecord(0, None, "bot", True)])
    # Seat 9 violates a CHECK: the whole match insert must roll back.
    with pytest.raises(sqlite3.IntegrityError):
        store.start_match(
            "bad", {}, [SeatRecord(0, None, "a", True), SeatRecord(9, None, "b", True)]
        )
    assert store.match_ids() == [match_id]
    assert time.time() >= store.match(match_id).started_at
