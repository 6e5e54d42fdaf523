"""Fixtures: a real ``gbmj-server --web-port 0`` process on loopback with a real SQLite
file, and ``WebTerminal``, a browserless WebSocket session of the page's own protocol."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from processes import start_logged

from gbmj_tui.local_server import game_port
from web.browser import Screen

START_TIMEOUT = 30.0
DOOR = re.compile(r"web: listening on http://.*:(\d+)/")
WAIT = 60.0  # seconds to wait for something to show
CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
MARKER = "GBMJ_TEST_SERVER_ONLY"  # in the server's environment, never a client's


@dataclass
class WebHost:
    proc: subprocess.Popen[str]
    db: Path
    log: Path
    game_port: int
    web_port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}/"

    def log_text(self) -> str:
        return self.log.read_text("utf-8", errors="replace")

    def launcher_pid(self) -> int | None:
        """The server's launcher process (gbmj_server.launcher), if it runs."""
        found = [pid for pid in children(self.proc.pid) if _runs(pid, "gbmj_server.launcher")]
        return found[0] if found else None

    def client_pids(self) -> list[int]:
        """The launcher's children: one client for each running web session."""
        launcher = self.launcher_pid()
        return [] if launcher is None else children(launcher)


def start_web_host(
    tmp: Path, limits: dict[str, object] | None = None, **settings: object
) -> WebHost:
    """A server with a web page, these ``web_*`` settings and game port ``limits``; bots
    act at once."""
    db = tmp / "gbmj.sqlite3"
    config = tmp / "server.toml"
    lines = ["bot_delay = 0.0\n", "hand_pause = 5.0\n"]
    lines += [f"web_{k} = {json.dumps(v)}\n" for k, v in settings.items()]
    lines += ["[limits]\n", *(f"{k} = {json.dumps(v)}\n" for k, v in (limits or {}).items())]
    config.write_text("".join(lines), "utf-8")
    log = tmp / "server.log"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--web-port", "0", "--insecure"]
    command += ["--db", str(db), "--config", str(config)]
    env = {**os.environ, MARKER: "1"}
    proc, lines = start_logged(command, log, DOOR.pattern, START_TIMEOUT, env)
    match = DOOR.match(lines[-1])
    assert match is not None
    return WebHost(proc, db, log, game_port(lines), int(match[1]))


def stop_web_host(host: WebHost) -> None:
    host.proc.terminate()
    try:
        host.proc.wait(30)
    except subprocess.TimeoutExpired:
        host.proc.kill()
        raise


@pytest.fixture(scope="module")
def web_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebHost]:
    """One server for a module's tests; its players all come from 127.0.0.1, which the
    game port counts as one address: a table with bots for each test."""
    limits = {"tables_per_address": 20, "bot_tables_per_address": 20}
    host = start_web_host(tmp_path_factory.mktemp("web"), limits)
    yield host
    stop_web_host(host)


async def until(condition, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


class WebTerminal:
    """One session over the page's WebSocket, without a browser: what the page would
    draw (raw bytes) and keys sent as the page sends them."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse, size: tuple[int, int]) -> None:
        self.socket = socket
        self.size = size
        self.raw = bytearray()
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.focused = False
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw.extend(message.data)
                self.changed.set()
        self.closed.set()
        self.changed.set()

    def text(self, since: int = 0) -> str:
        return CSI.sub(b"", bytes(self.raw[since:])).decode("utf-8", errors="replace")

    def screen(self) -> str:
        """The screen as a terminal would show it now."""
        screen = Screen(self.size[0], self.size[1])
        screen.feed(bytes(self.raw))
        return screen.text()

    async def wait_for(
        self, what: str, since: int = 0, timeout: float = WAIT, regex: bool = False
    ) -> None:
        """Until ``what`` shows after byte ``since`` (with ``regex``: a match of it)."""

        def seen() -> bool:
            text = self.text(since)
            return re.search(what, text) is not None if regex else what in text

        try:
            async with asyncio.timeout(timeout):
                while not seen():
                    assert not self.closed.is_set(), f"closed before {what!r}"
                    self.changed.clear()
                    await self.changed.wait()
        except (TimeoutError, AssertionError):
            raise AssertionError(f"no {what!r} on the screen:\n{self.screen()}") from None

    async def settle(self, quiet: float = 0.3) -> None:
        """Until the screen stays still a moment (the client has drawn, and is ready for
        the next keys)."""
        async with asyncio.timeout(WAIT):
            while True:
                size = len(self.raw)
                await asyncio.sleep(quiet)
                if len(self.raw) == size:
                    return

    async def send(self, *keys: str) -> None:
        """Each key in its own message, as the page sends a key press; a text of several
        characters is typed one by one."""
        if not self.focused:  # as the page says when it gets the keyboard (the app is up)
            await self.socket.send_json(["focus", None])
            self.focused = True
        for key in keys:
            for press in [key] if key.startswith("\x1b") else list(key):
                await self.socket.send_json(["stdin", press])
                await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def web_terminal(host: WebHost, path: str = "ws", source: str = "127.0.0.1", **headers: str):
    """A session of the page from ``source`` (any 127.x.y.z is this machine: another
    source is another player's address)."""
    query = headers.pop("query", "width=100&height=30")
    async with (
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0))) as http,
        http.ws_connect(f"{host.url}{path}?{query}", headers=headers) as socket,
    ):
        sizes = dict(part.split("=") for part in query.split("&"))
        terminal = WebTerminal(socket, (int(sizes["width"]), int(sizes["height"])))
        try:
            yield terminal
        finally:
            await socket.close()


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
