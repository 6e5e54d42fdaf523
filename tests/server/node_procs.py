"""Nodes of one server on one PostgreSQL, each ``gbmj-server`` in a process of its own
(to be killed, or driven by the real client)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gbmj_tui.local_server import LISTENING, game_port, read_until

LEASE = 3.0  # seconds: short, so a takeover comes soon in a test


def start_node_process(url: str, name: str, folder: Path) -> tuple[subprocess.Popen[str], int]:
    """``gbmj-server`` as node ``name`` on the database ``url``, plain TCP on a free
    loopback port: the process and its port."""
    config = folder / f"{name}.toml"
    config.write_text(
        f'node = "{name}"\nlease_time = {LEASE}\nbot_delay = 0\nhand_pause = 0\n'
        'log_level = "warning"\n[limits]\nrequest_rate = 100000.0\nrequest_burst = 100000\n'
    )
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", url, "--insecure", "--trusted", "127.0.0.1", "--config", str(config)]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines = read_until(proc, LISTENING.pattern, 30)
    if lines is None:
        proc.kill()
        raise AssertionError(f"node {name} did not start")
    return proc, game_port(lines)


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
