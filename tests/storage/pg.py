"""A real PostgreSQL for the tests, started by the tests themselves.

One server for the session, on a Unix socket in a temporary folder, as an unprivileged
user (``initdb`` refuses root): Debian's ``postgres`` user, or one made for the purpose.
``initdb -A trust --no-sync`` and ``fsync=off``: nothing here needs to survive a crash of
the machine. Each test gets a database of its own (``pg_url``).

Where PostgreSQL is not installed these tests skip, saying so, except in CI (``CI`` or
``GBMJ_REQUIRE_POSTGRES`` set), where ``.ci/run`` installs it and a missing server is a
failure.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

TEST_USER = "gbmj-pg-test"  # made when the machine has no ``postgres`` user


def _bindir() -> Path | None:
    found = shutil.which("pg_config")
    if found:
        out = subprocess.run([found, "--bindir"], capture_output=True, text=True).stdout.strip()
        if out and (Path(out) / "initdb").exists():
            return Path(out)
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    return Path(dirs[-1]) if dirs and (Path(dirs[-1]) / "initdb").exists() else None


def _as_user() -> tuple[list[str], str | None]:
    """The prefix that runs a command as an unprivileged user, and that user's name."""
    if os.geteuid() != 0:
        return [], None
    user = "postgres"
    if subprocess.run(["id", "-u", user], capture_output=True).returncode != 0:
        user = TEST_USER
        if subprocess.run(["id", "-u", user], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "--system", "--no-create-home", user], check=True)
    return ["runuser", "-u", user, "--"], user


class PgServer:
    def __init__(self, socket_dir: Path) -> None:
        self.socket_dir = socket_dir
        self._names = itertools.count(1)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql:///{dbname}?host={self.socket_dir}&user=postgres"

    def new_database(self) -> str:
        name = f"gbmj_test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.split("///", 1)[1].split("?", 1)[0]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())


class PgMissing(Exception):
    """PostgreSQL is not installed on this machine."""


@contextmanager
def local_postgres() -> Iterator[PgServer]:
    """A PostgreSQL server of its own, in a temporary folder, until the block ends
    (the tests' and the benchmarks')."""
    bindir = _bindir()
    if bindir is None:
        raise PgMissing("PostgreSQL is not installed (apt-get install postgresql)")
    prefix, user = _as_user()
    folder = Path(tempfile.mkdtemp(prefix="gbmj-pg-"))
    folder.chmod(0o755)
    if user is not None:
        shutil.chown(folder, user)
    data = folder / "data"
    run = [*prefix]
    subprocess.run(
        [
            *run,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "--no-sync",
            "-U",
            "postgres",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
    )
    options = f"-k {folder} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
    subprocess.run(
        [
            *run,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(folder / "log"),
            "-w",
            "-o",
            options,
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield PgServer(folder)
    finally:
        subprocess.run(
            [*run, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        with local_postgres() as server:
            yield server
    except PgMissing as exc:
        if os.environ.get("CI") or os.environ.get("GBMJ_REQUIRE_POSTGRES"):
            pytest.fail(f"{exc} (.ci/run installs it)")
        pytest.skip(str(exc))


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh, empty database of its own for one test."""
    url = pg_server.new_database()
    try:
        yield url
    finally:
        pg_server.drop_database(url)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a store opens, once per engine: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "gbmj.sqlite3"
    url: str = request.getfixturevalue("pg_url")
    return url
