"""What the load benches share: gbmj's framing without the catalog's checks (a bench
client must cost the server's core nothing and its own little), the pinning of server
and load to separate cores, and the server's CPU and memory read from /proc.

``Wire`` splits frames (a 4-byte big-endian length, then one msgpack map) and unpacks
them as they are; ``frame`` packs a map. Both trust the peer: bench only.
"""

from __future__ import annotations

import os
import ssl
import subprocess
from pathlib import Path
from typing import Any, TextIO

import msgpack
import trio

from gbmj_tui.local_server import LISTENING, game_port, read_until

TICK = os.sysconf("SC_CLK_TCK")


class Wire:
    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        buf = self._buffer
        buf += data
        out = []
        pos, have = 0, len(buf)
        while have - pos >= 4:
            end = pos + 4 + int.from_bytes(buf[pos : pos + 4], "big")
            if end > have:
                break
            out.append(msgpack.unpackb(buf[pos + 4 : end]))
            pos = end
        del buf[:pos]
        return out


def frame(wire: dict[str, Any]) -> bytes:
    body = msgpack.packb(wire)
    return len(body).to_bytes(4, "big") + body


def client_tls() -> ssl.SSLContext:
    """TLS as the bench's clients speak it: the server's self-signed certificate is not
    checked (the bench measures what TLS costs, the pinning has tests of its own)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def open_stream(port: int, tls: ssl.SSLContext | None = None) -> trio.abc.Stream:
    """A connection to the server on loopback, in TLS when ``tls`` is given."""
    stream: trio.abc.Stream = await trio.open_tcp_stream("127.0.0.1", port)
    if tls is not None:
        stream = trio.SSLStream(stream, tls, server_hostname="gbmj-server")
        await stream.do_handshake()
    return stream


class Pinning:
    """The server on the first core this process may use, the load on the others (when
    there are two or more; otherwise everything shares what there is)."""

    def __init__(self, pin: bool = True) -> None:
        cpus = sorted(os.sched_getaffinity(0))
        self.all = set(cpus)
        if pin and len(cpus) >= 2:
            self.server, self.load = {cpus[0]}, set(cpus[1:])
        else:
            self.server, self.load = self.all, self.all

    @property
    def pinned(self) -> bool:
        return self.server != self.all

    def describe(self) -> str:
        if not self.pinned:
            return "not pinned (one core)"
        return f"server on core {min(self.server)}, load on {','.join(map(str, self.load))}"


def start_process(
    command: list[str], pinning: Pinning, stderr: TextIO | int = subprocess.DEVNULL
) -> tuple[subprocess.Popen[str], int]:
    """Run a server that prints ``listening on HOST:PORT`` on its pinned cores (what
    ``taskset`` does: the child inherits the affinity it starts with, threads included);
    its process and port."""
    os.sched_setaffinity(0, pinning.server)
    try:
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True
        )
    finally:
        os.sched_setaffinity(0, pinning.load)
    lines = read_until(proc, LISTENING.pattern, 30)
    if lines is None:
        proc.kill()
        raise SystemExit(f"the server did not start: {' '.join(command)}")
    return proc, game_port(lines)


def pin_children(pid: int, cpus: set[int]) -> int:
    """Move ``pid``'s child processes (bot workers) onto ``cpus``; how many there were."""
    children = _family(pid)[1:]
    for child in children:
        os.sched_setaffinity(child, cpus)
    return len(children)


def _family(pid: int) -> list[int]:
    """``pid`` and its child processes (a worker pool's, if any)."""
    pids = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                pids.append(int(entry.name))
    return pids


def cpu_seconds(pid: int, children: bool = True) -> float:
    """User and system CPU of ``pid`` (and its children) so far, every thread included."""
    total = 0
    for p in _family(pid) if children else [pid]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and its children."""
    total = 0
    for p in _family(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]
