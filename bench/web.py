"""Web sessions: N browserless sessions of the page's own WebSocket protocol against one
server, each a guest from an address of its own; time to the lobby and memory.

    uv run python bench/web.py [--sessions 10] [--by click|keys]

Starts a ``gbmj-server --web-port`` on loopback and, once it says it listens, opens the
sessions one after another, each kept open: connect, wait for the connect screen (``to
the connect screen``), click Guest as a browser player does (``--by keys``: Tab to it
from the Name box and press Enter, five keys), wait until the lobby is drawn (``to the
lobby``: from connecting). Then, with every session at the lobby, reads each process's PSS from
/proc/PID/smaps_rollup (bench/hostedkit.py), and again once the kernel's same-page
merging has merged what it can, if the host has it on. Prints one figure a line;
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import pyte

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostedkit

CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
TAB, ENTER = "\t", "\r"
COLUMNS, ROWS = 100, 30


class Session:
    def __init__(self, http: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse):
        self.http = http
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
            await self.socket.send_json(["stdin", key])

    async def click(self, text: str) -> None:
        """Press and release the left button on ``text`` as the page's terminal sends
        them (SGR mouse reports): where the screen drawn so far shows it."""
        screen = pyte.Screen(COLUMNS, ROWS)
        pyte.ByteStream(screen).feed(bytes(self.raw))
        for row, line in enumerate(screen.display):
            column = line.find(text)
            if column >= 0:
                x, y = column + len(text) // 2 + 1, row + 1  # 1-based, the word's middle
                await self.keys(f"\x1b[<0;{x};{y}M", f"\x1b[<0;{x};{y}m")
                return
        raise SystemExit(f"no {text!r} on the screen")

    async def close(self) -> None:
        await self.socket.close()
        await self.http.close()


async def to_lobby(
    url: str, address: str, host: hostedkit.Host, seen: set[int], by: str = "click"
) -> tuple[Session, float, float, float, list[int]]:
    """A session at the lobby, the time from connecting to the lobby, the part of it
    until the connect screen showed (the rest: the keys to Guest, the sign-in, the
    lobby drawn), the client's CPU until then and its process (not in ``seen``, which
    it joins)."""
    started = time.perf_counter()
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
    session = Session(http, await http.ws_connect(f"{url}ws/en?width={COLUMNS}&height={ROWS}"))
    await session.socket.send_json(["focus", None])  # as the page does
    await session.wait_for("Guest")  # the connect screen, on its Name box
    shown = time.perf_counter() - started
    client = [pid for pid in host.sessions() if pid not in seen]
    seen.update(client)
    cpu = sum(hostedkit.cpu_seconds(pid) for pid in client)
    mark = len(session.raw)
    if by == "keys":
        await session.keys(TAB, TAB, TAB, TAB, ENTER)  # password, log in, register, guest
    else:
        await session.click("Guest")
    await session.wait_for("New table", since=mark)
    return session, time.perf_counter() - started, shown, cpu, client


async def run(
    host: hostedkit.Host, count: int, by: str
) -> tuple[list[Session], list[float], list[float], list[float], list[float]]:
    url = f"http://127.0.0.1:{host.door_port}/"
    sessions, times, shown, cpu, shown_cpu = [], [], [], [], []
    seen = set(host.sessions())
    for i in range(count):
        session, took, screen, screen_cpu, client = await to_lobby(
            url, hostedkit.source(i), host, seen, by
        )
        sessions.append(session)
        times.append(took)
        shown.append(screen)
        shown_cpu.append(screen_cpu)
        cpu.append(sum(hostedkit.cpu_seconds(pid) for pid in client))
    return sessions, times, shown, cpu, shown_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="browser sessions at once")
    parser.add_argument(
        "--by", choices=("click", "keys"), default="click", help="how the player picks Guest"
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        hostedkit.host(Path(tmp), "web", args.sessions) as host,
    ):

        async def measure() -> None:
            sessions, times, shown, cpu, shown_cpu = await run(host, args.sessions, args.by)
            print(f"guest picked by: {args.by}")
            hostedkit.settle(host, args.sessions)
            hostedkit.report("web", args.sessions, times, cpu, host)
            ms = [t * 1000 for t in shown]
            p50 = sorted(ms)[len(ms) // 2]
            print(f"to the connect screen ms p50: {p50:.0f} (first {ms[0]:.0f})")
            cpu_ms = [c * 1000 for c in shown_cpu]
            p50 = sorted(cpu_ms)[len(cpu_ms) // 2]
            print(f"client cpu to the connect screen ms p50: {p50:.0f} (first {cpu_ms[0]:.0f})")
            await hostedkit.merged(host, args.sessions)
            for session in sessions:
                await session.close()

        asyncio.run(measure())


if __name__ == "__main__":
    main()
