"""Web sessions: N browserless sessions of the page's own WebSocket protocol against one
server, each signing in as a guest; time to the lobby and memory per session.

    uv run python bench/web.py [--sessions 10]

Starts a ``gbmj-server --web-port`` on loopback, opens the sessions one after another
(each: connect, set the server address, press Guest, wait until the lobby's key bar is
drawn), then, with every session at the lobby, reads each client process's memory from
/proc. Prints one figure a line (``to the lobby ms p50: N``, ``client rss MiB mean: N``,
``client pss MiB mean: N``, ``server rss MiB: N``...); asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp

from gbmj_tui.local_server import start_local_server

CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
TAB, BACK_TAB, ENTER, BACKSPACE = "\t", "\x1b[Z", "\r", "\x7f"


def memory_kib(pid: int, field: str) -> int:
    """A field of /proc/PID/status or smaps_rollup (Rss, Pss), in KiB."""
    name = "smaps_rollup" if field == "Pss" else "status"
    for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


class Session:
    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.raw = bytearray()
        self.changed = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw.extend(message.data)
                self.changed.set()

    async def wait_for(self, text: str, since: int = 0) -> None:
        async with asyncio.timeout(120):
            while text not in CSI.sub(b"", bytes(self.raw[since:])).decode("utf-8", "replace"):
                self.changed.clear()
                await self.changed.wait()

    async def keys(self, *keys: str) -> None:
        for key in keys:
            for press in [key] if key.startswith("\x1b") else list(key):
                await self.socket.send_json(["stdin", press])
                await asyncio.sleep(0.005)


async def run(http: aiohttp.ClientSession, url: str, game: int, count: int) -> list[float]:
    times: list[float] = []
    sessions = []
    for _ in range(count):
        started = time.perf_counter()
        socket = await http.ws_connect(url + "ws/en?width=100&height=30")
        session = Session(socket)
        sessions.append(session)
        await session.wait_for("Server")
        await socket.send_json(["focus", None])  # as the page does when it gets the keyboard
        await session.keys(BACK_TAB, BACKSPACE * 20, f"127.0.0.1:{game}")
        await session.wait_for(f"127.0.0.1:{game}")
        await session.keys(TAB, TAB, TAB, TAB, TAB)  # name, password, log in, register, guest
        await asyncio.sleep(0.2)
        mark = len(session.raw)
        await session.keys(ENTER)
        await session.wait_for("New table", since=mark)
        times.append(time.perf_counter() - started)
    return times


async def main_async(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "server.toml"
        config.write_text(f"web_port = 0\nweb_max_sessions = {count}\n")
        config.write_text(config.read_text() + f"web_sessions_per_address = {count}\n")
        proc, game = start_local_server(Path(tmp) / "gbmj.db", config)
        try:
            assert proc.stdout is not None
            url = ""
            while not url:
                line = proc.stdout.readline()
                if line.startswith("web: listening on "):
                    url = line.split()[-1]
            server_before = memory_kib(proc.pid, "VmRSS")
            async with aiohttp.ClientSession() as http:
                times = await run(http, url, game, count)
                clients = children(proc.pid)
                rss = [memory_kib(pid, "VmRSS") / 1024 for pid in clients]
                pss = [memory_kib(pid, "Pss") / 1024 for pid in clients]
                server_after = memory_kib(proc.pid, "VmRSS")
        finally:
            proc.terminate()
            proc.wait(30)
    ms = sorted(t * 1000 for t in times)
    print(f"sessions: {count} (client processes seen: {len(rss)})")
    print(f"to the lobby ms p50: {statistics.median(ms):.0f}")
    print(f"to the lobby ms max: {ms[-1]:.0f}")
    print(f"client rss MiB mean: {statistics.mean(rss):.1f}")
    print(f"client pss MiB mean: {statistics.mean(pss):.1f}")
    before = server_before / 1024
    print(f"server rss MiB: {server_after / 1024:.1f} (before the sessions {before:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="browser sessions at once")
    args = parser.parse_args()
    asyncio.run(main_async(args.sessions))


if __name__ == "__main__":
    main()
