"""A ``gbmj-server`` (or ``gbmj-server door``) in a process of its own for a test: its
standard error kept in a log file, started once it has printed the line it is waited
for."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gbmj_tui.local_server import read_until


def start_logged(
    command: list[str],
    log: Path,
    pattern: str,
    timeout: float,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[str], list[str]]:
    """Run ``command``, its standard error into ``log``, until it prints a line matching
    ``pattern``: the process and what it printed so far (the last line the one waited
    for). Not within ``timeout`` seconds: it is killed and the test fails with its log."""
    with log.open("w") as err:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    lines = read_until(proc, pattern, timeout)
    if lines is None:
        proc.kill()
        proc.wait()
        raise AssertionError(f"{' '.join(command[2:4])} did not start:\n{log.read_text()}")
    return proc, lines
