"""Migration 4 and the look-alike rule in the store: one account per name skeleton."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gbmj_server.names import name_skeleton
from gbmj_server.storage import MIGRATIONS, NameTaken, Storage, hash_password


def version_3_database(path: Path, names: list[str]) -> None:
    """A database as the server before migration 4 left it, with these players."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for script in MIGRATIONS[:3]:
        db.executescript(script)
    db.execute("INSERT INTO schema_version VALUES (3)")
    for n, name in enumerate(names):
        db.execute(
            "INSERT INTO account (name, kind, password_hash, created_at) "
            "VALUES (?, 'player', 'x', ?)",
            (name, float(n)),
        )
    db.close()


def test_migration_4_fills_the_skeletons_and_keeps_old_look_alikes(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    # Made before the rule: "aIice" (capital i) passes for "alice" and both exist.
    version_3_database(path, ["alice", "bob", "aIice"])
    with Storage(path) as store:
        assert store.schema_version() >= 4
        rows = dict(store._db.execute("SELECT name, skeleton FROM account").fetchall())
        assert rows == {"alice": "alice", "bob": "bob", "aIice": None}  # the oldest keeps it
        assert store.account_by_name("aIice") is not None  # nobody loses an account
        with pytest.raises(NameTaken):
            store.create_account("аlice", hash_password("pw-pw-pw"))  # Cyrillic а


@pytest.mark.slow
def test_a_new_name_that_looks_like_a_taken_one_is_refused(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        store.create_account("alice", hash_password("pw-alice"))
        for look_alike in ("аlice", "ａlice", "AIice", "a1ice"):
            with pytest.raises(NameTaken):
                store.create_account(look_alike, hash_password("pw-other"))
        with pytest.raises(NameTaken):
            store.create_guest("aIice")
        assert [a.name for a in store.list_accounts(include_guests=True)] == ["alice"]
        assert store.create_account("alicia", hash_password("pw-alicia")).name == "alicia"


def test_the_stored_skeleton_is_the_names(db_target: str | Path) -> None:
    with Storage(db_target) as store:
        store.create_account("Ｄave", hash_password("pw-dave"))
        store.create_guest("guest-a1b2c3")
        rows = store._db.execute("SELECT name, skeleton FROM account ORDER BY id").fetchall()
    assert rows == [("Ｄave", name_skeleton("Ｄave")), ("guest-a1b2c3", "guest-alb2c3")]
