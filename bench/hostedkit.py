"""What bench/web.py and bench/ssh.py share: a server with a front door on loopback,
the memory of its processes as players feel it (PSS from /proc/PID/smaps_rollup: each
shared page split among the processes sharing it), and the figures printed; where the
kernel's same-page merging is on (``/sys/kernel/mm/ksm/run``), the same figures again
once it has merged what it finds (``merged``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gbmj_tui.local_server import read_until

START_TIMEOUT = 120.0
KSM = Path("/sys/kernel/mm/ksm")
MERGE_SCANS = 4  # full scans of KSM to wait for: a page merges once unchanged over two
MERGE_TIMEOUT = 600.0  # seconds to wait for them at most


def memory_kib(pid: int, field: str = "Pss") -> int:
    """A field of /proc/PID/smaps_rollup (Pss, Rss...), in KiB (0: the process is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (user and system), in seconds (0: gone): to the
    nanosecond from the scheduler's own count where the kernel keeps it (a session's
    start takes a few clock ticks: /proc/PID/stat counts whole ticks, 10 ms here)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        threads = list(Path(f"/proc/{pid}/task").glob("*/schedstat"))  # its live threads
        if threads:
            return sum(int(stat.read_text().split()[0]) for stat in threads) / 1e9
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


def runs(pid: int, module: str) -> bool:
    with contextlib.suppress(OSError):
        return module.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return False


@dataclass
class Host:
    proc: subprocess.Popen[str]
    door_port: int
    lines: list[str]

    def launcher(self) -> int:
        (pid,) = [p for p in children(self.proc.pid) if runs(p, "gbmj_server.launcher")]
        return pid

    def sessions(self) -> list[int]:
        """The clients: the launcher's children, one a session."""
        return children(self.launcher())

    def newest_session_cpu(self, seen: set[int]) -> float:
        """The CPU time of the session started last (its client not in ``seen``, which
        it joins): what its start cost, whatever else the machine runs."""
        new = [pid for pid in self.sessions() if pid not in seen]
        seen.update(new)
        return sum(cpu_seconds(pid) for pid in new)

    def tree(self) -> list[int]:
        """Every process of the host: the server, its children, the launcher's."""
        direct = children(self.proc.pid)
        return [self.proc.pid, *direct, *(c for p in direct for c in children(p))]


@contextlib.contextmanager
def host(tmp: Path, door: str, sessions: int, extra: str = "") -> Iterator[Host]:
    """``gbmj-server`` with the ``door`` ("web" or "ssh") on a free port for
    ``sessions`` sessions, each player at an address of its own."""
    config = tmp / "server.toml"
    config.write_text(
        f'log_level = "warning"\n{door}_port = 0\n{door}_max_sessions = {sessions}\n{extra}'
    )
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--insecure", "--db", str(tmp / "gbmj.sqlite3"), "--config", str(config)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        lines = read_until(proc, rf"{door}: listening on ", START_TIMEOUT)
        if lines is None:
            raise SystemExit("the server did not start")
        port = int(lines[-1].split(" on ")[1].split(",")[0].rstrip("/").rsplit(":", 1)[1])
        yield Host(proc, port, lines)
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def source(i: int) -> str:
    """The loopback address of the ``i``-th player (Linux routes all of 127/8)."""
    return f"127.0.{3 + i // 250}.{1 + i % 250}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def report(door: str, count: int, to_lobby: list[float], cpu: list[float], server: Host) -> None:
    """Print the figures, one a line; assert nothing."""
    clients = server.sessions()
    pss = [memory_kib(pid) / 1024 for pid in clients]
    total = sum(memory_kib(pid) for pid in server.tree()) / 1024
    launcher = memory_kib(server.launcher()) / 1024
    ms = [t * 1000 for t in to_lobby]
    print(f"{door} sessions: {count} (client processes seen: {len(clients)})")
    print(f"to the lobby ms first: {ms[0]:.0f}")
    print(f"to the lobby ms p50: {statistics.median(ms):.0f}")
    print(f"to the lobby ms p99: {percentile(ms, 0.99):.0f}")
    cpu_ms = [c * 1000 for c in cpu]
    print(
        f"client cpu to the lobby ms p50: {statistics.median(cpu_ms):.0f} (first {cpu_ms[0]:.0f})"
    )
    load = os.getloadavg()[0]
    print(f"load average: {load:.1f} on {os.cpu_count()} cores (a busy machine is slower)")
    print(f"pss per session MiB p50: {statistics.median(pss):.1f}")
    print(f"pss per session MiB max: {max(pss):.1f}")
    print(f"pss launcher MiB: {launcher:.1f}")
    print(f"pss host total MiB: {total:.0f} (server, launcher, bot worker, sessions)")
    print(f"pss host per session MiB: {total / count:.1f}")


def settle(server: Host, count: int, timeout: float = 30.0) -> None:
    """Until ``count`` clients run (the last one's process is up)."""
    deadline = time.monotonic() + timeout
    while len(server.sessions()) < count and time.monotonic() < deadline:
        time.sleep(0.1)


def _ksm(name: str) -> int:
    return int((KSM / name).read_text())


def _ksmd_cpu() -> float:
    """The CPU time of the kernel's merging thread (ksmd) so far, in seconds."""
    for stat in Path("/proc").glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):
            if stat.read_text().strip() == "ksmd":
                return cpu_seconds(int(stat.parent.name))
    return 0.0


async def merged(server: Host, count: int) -> None:
    """With same-page merging on: wait for ``MERGE_SCANS`` full scans, then print the
    memory again, and what the scanning cost. Prints why not otherwise. (Asynchronous:
    the sessions' connections are served meanwhile, their keepalives answered.)"""
    try:
        on = _ksm("run") == 1
    except OSError:
        on = False
    if not on:
        print("ksm: off (docs/hosting.md: 'Sessions and memory'): no merged figures")
        return
    start, cpu, began = _ksm("full_scans"), _ksmd_cpu(), time.monotonic()
    while _ksm("full_scans") < start + MERGE_SCANS:
        if time.monotonic() - began > MERGE_TIMEOUT:
            print(f"ksm: {MERGE_SCANS} full scans not done in {MERGE_TIMEOUT:.0f} s")
            return
        await asyncio.sleep(1)
    took, spent = time.monotonic() - began, _ksmd_cpu() - cpu
    pss = [memory_kib(pid) / 1024 for pid in server.sessions()]
    total = sum(memory_kib(pid) for pid in server.tree()) / 1024
    scan = _ksm("pages_to_scan")
    print(f"ksm: {MERGE_SCANS} full scans in {took:.0f} s ({scan} pages a wake-up)")
    print(f"ksm: ksmd cpu s: {spent:.1f} ({100 * spent / took:.0f}% of a core)")
    print(f"merged pss per session MiB p50: {statistics.median(pss):.1f}")
    print(f"merged pss per session MiB max: {max(pss):.1f}")
    print(f"merged pss host total MiB: {total:.0f}")
    print(f"merged pss host per session MiB: {total / count:.1f}")
