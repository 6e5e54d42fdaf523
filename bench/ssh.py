"""SSH sessions: N SSH sessions with a terminal against one server, each a guest from an
address of its own; time to the lobby and memory.

    uv run python bench/ssh.py [--sessions 10]

Starts a ``gbmj-server --ssh-port`` on loopback (unknown names play as guests) and,
once it says it listens, opens the sessions one after another, each kept open: connect,
ask for a terminal, wait until the lobby is drawn (``to the lobby``: from connecting).
Then, with every session at the lobby, reads each process's PSS from
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

import asyncssh

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostedkit

CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


class Terminal(asyncssh.SSHClientSession[bytes]):
    def __init__(self) -> None:
        self.raw = bytearray()
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self.raw.extend(data)
        self.changed.set()

    async def wait_for(self, text: str) -> None:
        async with asyncio.timeout(120):
            while text not in CSI.sub(b"", bytes(self.raw)).decode("utf-8", "replace"):
                self.changed.clear()
                await self.changed.wait()


async def to_lobby(port: int, i: int) -> tuple[asyncssh.SSHClientConnection, float]:
    started = time.perf_counter()
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        local_addr=(hostedkit.source(i), 0),
        username=f"guest{i}",  # an unknown name: a guest, no password
        known_hosts=None,
        client_keys=(),
        agent_path=None,
        encoding=None,
    )
    _, terminal = await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=(100, 30)
    )
    await terminal.wait_for("New table")
    return conn, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="SSH sessions at once")
    args = parser.parse_args()
    extra = 'ssh_unknown_users = "guest"\n'
    with (
        tempfile.TemporaryDirectory() as tmp,
        hostedkit.host(Path(tmp), "ssh", args.sessions, extra) as host,
    ):

        async def measure() -> None:
            connections, times, cpu, seen = [], [], [], set(host.sessions())
            for i in range(args.sessions):
                conn, took = await to_lobby(host.door_port, i)
                connections.append(conn)
                times.append(took)
                cpu.append(host.newest_session_cpu(seen))
            hostedkit.settle(host, args.sessions)
            hostedkit.report("ssh", args.sessions, times, cpu, host)
            await hostedkit.merged(host, args.sessions)
            for conn in connections:
                conn.close()

        asyncio.run(measure())


if __name__ == "__main__":
    main()
