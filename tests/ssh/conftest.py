"""Fixtures: a real ``gbmj-server --ssh-port 0`` process on loopback with a real SQLite
file, and ``Terminal``, an asyncssh client with a pty that collects what it shows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest
from processes import start_logged

from gbmj_server.storage import Storage, hash_password
from gbmj_tui.local_server import game_port

START_TIMEOUT = 20.0
DOOR = re.compile(r"ssh: listening on .*:(\d+), host key (SHA256:\S+)")
WAIT = 15.0  # seconds to wait for something to show on the terminal
CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


@dataclass
class Host:
    proc: subprocess.Popen[str]
    db: Path
    log: Path
    game_port: int
    ssh_port: int
    fingerprint: str

    def log_text(self) -> str:
        return self.log.read_text("utf-8", errors="replace")


def start_host(
    tmp: Path,
    accounts: dict[str, str],
    listen: str = "127.0.0.1",
    *,
    tls: bool = False,
    limits: dict[str, object] | None = None,
    **settings: object,
) -> Host:
    """A server listening on ``listen`` with these accounts (name -> password), ``ssh_*``
    settings and game port ``limits``; its game port plain TCP unless ``tls``."""
    db = tmp / "gbmj.sqlite3"
    with Storage(db) as store:
        for name, password in accounts.items():
            store.create_account(name, hash_password(password))
    config = tmp / "server.toml"
    lines = [f"ssh_{k} = {v!r}\n" for k, v in settings.items()]
    lines += ["[limits]\n", *(f"{k} = {json.dumps(v)}\n" for k, v in (limits or {}).items())]
    config.write_text("".join(lines), "utf-8")
    log = tmp / "server.log"
    command = [sys.executable, "-m", "gbmj_server", "--host", listen, "--port", "0"]
    command += ["--ssh-port", "0", "--db", str(db), "--config", str(config)]
    command += [] if tls else ["--insecure"]
    proc, lines = start_logged(command, log, DOOR.pattern, START_TIMEOUT)
    match = DOOR.match(lines[-1])
    assert match is not None
    return Host(proc, db, log, game_port(lines), int(match[1]), match[2])


async def until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def launcher_pids(host: Host) -> list[int]:
    """The server's launcher process (gbmj_server.launcher): one while it runs."""
    return [pid for pid in children(host.proc.pid) if _runs(pid, "gbmj_server.launcher")]


def client_pids(host: Host) -> list[int]:
    """The launcher's children: one client for each running SSH session."""
    launchers = launcher_pids(host)
    return children(launchers[0]) if launchers else []


def stop_host(host: Host) -> None:
    host.proc.terminate()
    try:
        host.proc.wait(15)
    except subprocess.TimeoutExpired:
        host.proc.kill()
        raise


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    """alice (password) and bob; two SSH sessions at most; 3 failed passwords a minute."""
    tmp = tmp_path_factory.mktemp("ssh")
    server = start_host(
        tmp, {"alice": "alice-pw", "bob": "bob-pw"}, max_sessions=2, failed_logins=3
    )
    yield server
    stop_host(server)


class Terminal(asyncssh.SSHClientSession):
    """What the SSH session shows, as raw bytes."""

    def __init__(self) -> None:
        self.raw = bytearray()
        self.changed = asyncio.Event()
        self.chan: asyncssh.SSHClientChannel | None = None

    def connection_made(self, chan: asyncssh.SSHClientChannel) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self.raw.extend(data)
        self.changed.set()

    def text(self, since: int = 0) -> str:
        """The output from byte ``since`` with escape sequences taken out."""
        return CSI.sub(b"", bytes(self.raw[since:])).decode("utf-8", errors="replace")

    async def wait_for(self, what: str | bytes, since: int = 0, timeout: float = WAIT) -> None:
        """Until ``what`` shows (text without escapes; bytes: the raw stream)."""

        def seen() -> bool:
            if isinstance(what, bytes):
                return what in self.raw[since:]
            return what in self.text(since)

        async with asyncio.timeout(timeout):
            while not seen():
                self.changed.clear()
                await self.changed.wait()

    async def settle(self, since: int, quiet: float = 0.3) -> None:
        """Until the screen changed after byte ``since`` and then stayed still a moment
        (the client took a key in before the next one)."""
        async with asyncio.timeout(WAIT):
            while len(self.raw) == since:
                self.changed.clear()
                await self.changed.wait()
            while True:
                size = len(self.raw)
                await asyncio.sleep(quiet)
                if len(self.raw) == size:
                    return

    def send(self, data: bytes) -> None:
        assert self.chan is not None
        self.chan.write(data)


async def open_terminal(
    host: Host,
    username: str,
    size: tuple[int, int] = (100, 30),
    source: str = "127.0.0.1",
    **auth: object,
) -> tuple[asyncssh.SSHClientConnection, Terminal]:
    """An SSH session with a pty, from ``source`` (any 127.x.y.z address is this machine:
    another source is another player's address)."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        host.ssh_port,
        local_addr=(source, 0),
        username=username,
        known_hosts=None,
        client_keys=auth.pop("client_keys", ()),  # () : not the keys in ~/.ssh
        agent_path=None,
        encoding=None,
        **auth,
    )
    _, terminal = await conn.create_session(Terminal, term_type="xterm-256color", term_size=size)
    return conn, terminal


def children(pid: int) -> list[int]:
    """The child processes of ``pid``."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _runs(pid: int, module: str) -> bool:
    """Whether ``pid`` was started as ``python -m module``."""
    with contextlib.suppress(OSError):
        return module.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return False
