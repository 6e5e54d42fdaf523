"""Nodes of one server on one PostgreSQL, each ``gbmj-server`` in a process of its own
(to be killed, or driven by the real client)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from processes import start_logged

from gbmj_tui.local_server import LISTENING, game_port

LEASE = 3.0  # seconds: short, so a takeover comes soon in a test


TLS = re.compile(r"tls: certificate (SHA256:\S+)")


def start_node_process(
    url: str, name: str, folder: Path, bot_delay: float = 0.0
) -> tuple[subprocess.Popen[str], int]:
    """``gbmj-server`` as node ``name`` on the database ``url``, plain TCP on a free
    loopback port, its bots thinking ``bot_delay`` seconds: the process and its port."""
    proc, lines = _start(url, name, folder, ["--insecure"], "", LISTENING.pattern, bot_delay)
    return proc, game_port(lines)


def start_tls_node(
    url: str, name: str, folder: Path, settings: str = "", until: str = TLS.pattern
) -> tuple[subprocess.Popen[str], int, str, list[str]]:
    """The same over TLS (its certificate and keys in ``folder``), with more lines of
    settings, its log (info) in ``folder/NAME.log``: the process, its port, its
    certificate's fingerprint and what it printed, up to a line matching ``until``."""
    proc, lines = _start(url, name, folder, [], settings, until)
    found = next(found for line in lines if (found := TLS.match(line)))
    return proc, game_port(lines), found[1], lines


def _start(
    url: str,
    name: str,
    folder: Path,
    flags: list[str],
    settings: str,
    until: str,
    bot_delay: float = 0.0,
) -> tuple[subprocess.Popen[str], list[str]]:
    config = folder / f"{name}.toml"
    level = "info" if settings else "warning"
    config.write_text(
        f'node = "{name}"\nlease_time = {LEASE}\nbot_delay = {bot_delay}\nhand_pause = 0\n'
        f'log_level = "{level}"\n{settings}'
        "[limits]\nrequest_rate = 100000.0\nrequest_burst = 100000\n"
    )
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", url, *flags, "--trusted", "127.0.0.1", "--config", str(config)]
    data = folder / f"{name}-data"  # its certificate, keys and admin socket
    data.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    return start_logged(command, folder / f"{name}.log", until, 30, env)


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
