"""``gbmj-server admin backup`` and ``restore``: a backup taken while a real server
process plays a table opens and passes ``admin check``; restore waits for the server to
stop, keeps the database it replaces, and refuses files that are not sound backups."""

from __future__ import annotations

import signal
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server.crashing import AutoPlayer, check_books

from gbmj_server.backup import BEFORE_RESTORE_SUFFIX
from gbmj_server.cli import admin
from gbmj_server.storage import Storage, hash_password
from gbmj_tui.local_server import start_local_server


def _hands(db: Path) -> int:
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT count(*) FROM hand").fetchone()[0]


def _admin_check(db: Path) -> subprocess.CompletedProcess[str]:
    """``gbmj-server admin --db DB check`` as the host runs it."""
    return subprocess.run(
        [sys.executable, "-m", "gbmj_server", "admin", "--db", str(db), "check"],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def playing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A server process whose table plays hand after hand (three bots and a player on
    auto-play, at a stake); yields its database."""
    folder = tmp_path_factory.mktemp("playing")
    db = folder / "live.sqlite3"
    config = folder / "server.toml"
    config.write_text('bot_delay = 0\nhand_pause = 0\nlog_level = "warning"\n')
    proc, port = start_local_server(db, config)
    client = AutoPlayer(port, "player")
    try:
        yield db
    finally:
        client.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def _wait_for_more_hands(db: Path, than: int) -> int:
    deadline = time.monotonic() + 60
    while (hands := _hands(db)) <= than:
        assert time.monotonic() < deadline, "the table played no hand"
        time.sleep(0.05)
    return hands


@pytest.mark.slow
def test_backups_taken_while_a_table_plays_open_and_pass_check(
    playing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = 0
    for number in range(3):
        seen = _wait_for_more_hands(playing, seen)  # the server is writing hands now
        copy = tmp_path / f"backup-{number}.sqlite3"
        assert admin(["--db", str(playing), "backup", str(copy)]) == 0
        assert f"written to {copy}" in capsys.readouterr().out
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600  # it holds password hashes
        assert not copy.with_name(copy.name + "-wal").exists()  # one file, whole
        check = _admin_check(copy)
        assert check.returncode == 0 and "ledger balanced" in check.stdout, check
        assert check_books(copy)[0] >= 1  # every hand in the copy is settled, once, wholly
    assert _hands(tmp_path / "backup-2.sqlite3") > _hands(tmp_path / "backup-0.sqlite3")


@pytest.mark.slow
def test_restore_is_refused_while_the_server_runs(
    playing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "b.sqlite3"
    assert admin(["--db", str(playing), "backup", str(copy)]) == 0
    assert admin(["--db", str(playing), "restore", str(copy)]) == 1
    assert "another gbmj-server is using" in capsys.readouterr().err
    assert not playing.with_name(playing.name + BEFORE_RESTORE_SUFFIX).exists()


@pytest.mark.slow
def test_restore_replaces_the_database_and_keeps_the_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "gbmj.sqlite3"
    with Storage(db) as store:
        store.create_account("alice", hash_password("secret-pw"))
    copy = tmp_path / "monday.sqlite3"
    assert admin(["--db", str(db), "backup", str(copy)]) == 0
    with Storage(db) as store:
        store.create_account("bob", hash_password("secret-pw"))
    assert admin(["--db", str(db), "restore", str(copy)]) == 0
    out = capsys.readouterr().out
    before = db.with_name(db.name + BEFORE_RESTORE_SUFFIX)
    assert f"restored from {copy}" in out and str(before) in out
    with Storage(db) as store:
        assert [a.name for a in store.list_accounts()] == ["alice"]
        assert store.ledger_balanced()
    with Storage(before) as store:
        assert [a.name for a in store.list_accounts()] == ["alice", "bob"]
    assert _admin_check(db).returncode == 0


def test_bad_backup_and_restore_requests_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "gbmj.sqlite3"
    with Storage(db) as store:
        store.create_account("alice", hash_password("secret-pw"))
    contents = db.read_bytes()
    missing = tmp_path / "none.sqlite3"
    assert admin(["--db", str(missing), "backup", str(tmp_path / "b")]) == 1
    assert "no database at" in capsys.readouterr().err
    assert not missing.exists() and not (tmp_path / "b").exists()
    for target in (db, db.with_name(db.name + "-wal"), tmp_path):
        assert admin(["--db", str(db), "backup", str(target)]) == 1
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    newer = tmp_path / "newer.sqlite3"
    assert admin(["--db", str(db), "backup", str(newer)]) == 0
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE schema_version SET version = version + 1")
    conn.close()
    capsys.readouterr()
    for source, why in (
        (missing, "no backup file"),
        (junk, "not a gbmj database"),
        (newer, "newer than this server's"),
        (db, "the database itself"),
    ):
        assert admin(["--db", str(db), "restore", str(source)]) == 1
        assert why in capsys.readouterr().err
    assert db.read_bytes() == contents
    assert not db.with_name(db.name + BEFORE_RESTORE_SUFFIX).exists()
