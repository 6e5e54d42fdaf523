"""Start a ``gbmj-server`` on a free loopback port in a separate process.

``gbmj solo`` plays on one; the client's tests, the benchmarks and the crash test start
theirs the same way. It runs the server as its own process (the client never imports the
server) and reads the port from the line the server prints.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from subprocess import DEVNULL
from typing import IO


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
    command += ["--db", str(db), "--log-level", "warning"]
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
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("listening on "):
            return proc, int(line.rsplit(":", 1)[1])
    proc.kill()
    raise SystemExit("gbmj: the local server did not start")
