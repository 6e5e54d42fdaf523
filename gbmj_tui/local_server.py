"""Start a ``gbmj-server`` on a free loopback port in a separate process.

``gbmj solo`` plays on one; the client's tests, the benchmarks and the crash test start
theirs the same way. It runs the server as its own process (the client never imports the
server) and reads the port from the line the server prints.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from subprocess import DEVNULL
from typing import IO

LISTENING = re.compile(r"listening on \S*:(\d+)$")  # the server's first line: its game port


def read_until(proc: subprocess.Popen[str], pattern: str, timeout: float) -> list[str] | None:
    """The lines a starting server prints, up to the first that ``pattern`` matches at
    its start; None when the server ends or ``timeout`` seconds pass first. One reader
    of the server's start for everything that starts one (solo, tests, benchmarks)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            return None
        lines.append(line.rstrip("\n"))
        if re.match(pattern, lines[-1]):
            return lines
    return None


def game_port(lines: list[str]) -> int:
    """The game port from the lines ``read_until`` returned (0: none said)."""
    for line in lines:
        if found := LISTENING.match(line):
            return int(found[1])
    return 0


def start_local_server(
    db: Path,
    config: Path | None = None,
    timeout: float = 20.0,
    stderr: IO[str] | int = DEVNULL,
    port: int = 0,
    tls: bool = False,
) -> tuple[subprocess.Popen[str], int]:
    """Run ``gbmj-server`` on a loopback port (a free one unless ``port`` is given; a
    separate process: the client never imports the server), with an optional TOML
    config; returns the process and its port. Plain TCP unless ``tls`` (its certificate
    is then made beside the database): on loopback nobody is in between, and a client
    of its own server has no certificate to pin."""
    db.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", str(port)]
    # Its clients are all on this machine (one player, or a test's or a benchmark's
    # crowd): loopback has no per-address caps here, as on no public server.
    command += ["--db", str(db), "--log-level", "warning", "--trusted", "127.0.0.1"]
    if not tls:
        command.append("--insecure")
    if config is not None:
        command += ["--config", str(config)]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=stderr,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines = read_until(proc, LISTENING.pattern, timeout)
    if lines is None:
        proc.kill()
        raise SystemExit("gbmj: the local server did not start")
    return proc, game_port(lines)
