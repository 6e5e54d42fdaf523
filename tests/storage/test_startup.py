"""The server's start with its database: private files, and a one-line error with exit
status 2 (no traceback, no half-working server) for a path it cannot use, a read-only
file or folder, or a second server on the same file."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gbmj_server.storage import Storage, StorageError, hold_for_server

START_TIMEOUT = 30.0


def serve(db: Path, timeout: float = START_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``gbmj-server`` on this database, expected to refuse to start."""
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", str(db)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def assert_refused(result: subprocess.CompletedProcess[str], why: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith("gbmj-server: ") and why in lines[0], lines[0]
    assert "listening on" not in result.stdout


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` read-only even for root: the immutable attribute where it can be set
    (root ignores file modes), else the file mode; skips when neither holds."""
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", str(path)]).returncode != 0:
            pytest.skip("running as root, and this file system has no immutable attribute")
        try:
            yield
        finally:
            subprocess.run([chattr, "-i", str(path)], check=True)
        return
    mode = path.stat().st_mode
    path.chmod(0o500 if path.is_dir() else 0o400)
    try:
        yield
    finally:
        path.chmod(mode)


def test_the_database_and_its_folders_are_made_private(tmp_path: Path) -> None:
    db = tmp_path / "new" / "state" / "gbmj.sqlite3"
    with hold_for_server(db), Storage(db) as store:
        store.create_guest("guest-000001")
    for folder in (tmp_path / "new", db.parent):
        assert folder.stat().st_mode & 0o777 == 0o700
    for file in db.parent.iterdir():  # the database, its -wal and -shm, the lock
        assert file.stat().st_mode & 0o777 == 0o600, file


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda d: (d / "plain").write_text("x") and d / "plain" / "db", "is not a folder"),
        (lambda d: d, "is a folder, not a file"),
        (lambda d: (d / "junk").write_text("no database") and d / "junk", "not a database"),
    ],
    ids=["parent is a file", "a folder", "not a database"],
)
@pytest.mark.slow
def test_a_path_the_server_cannot_use_is_one_clear_line(tmp_path: Path, make, why: str) -> None:
    assert_refused(serve(make(tmp_path)), why)


@pytest.mark.slow
def test_a_read_only_database_file_is_refused_at_start(tmp_path: Path) -> None:
    db = tmp_path / "gbmj.sqlite3"
    Storage(db).close()
    with read_only(db):
        assert_refused(serve(db), "read")  # "readonly database" or "read-only"


@pytest.mark.slow
def test_a_read_only_database_folder_is_refused_at_start(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    Storage(folder / "gbmj.sqlite3").close()
    with read_only(folder):
        assert_refused(serve(folder / "gbmj.sqlite3"), "read-only")


@pytest.mark.slow
def test_a_second_server_on_the_same_file_is_refused_and_admin_still_works(
    tmp_path: Path,
) -> None:
    db = tmp_path / "gbmj.sqlite3"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", str(db)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert first.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        while not first.stdout.readline().startswith("listening on"):
            assert time.monotonic() < deadline and first.poll() is None
        assert_refused(serve(db), "another gbmj-server is using")
        admin = [sys.executable, "-m", "gbmj_server", "admin", "--db", str(db), "users"]
        assert subprocess.run(admin, capture_output=True, timeout=START_TIMEOUT).returncode == 0
    finally:
        first.terminate()
        first.wait(30)
    # The first one gone, its lock went with it; one holder at a time in a process too.
    with (
        hold_for_server(db),
        pytest.raises(StorageError, match="another gbmj-server"),
        hold_for_server(db),
    ):
        pass
