"""What the drives under scripts/ share: a server on free ports with a fresh database,
the client in a detached tmux session (its keys, its screen read back, waiting for
words on it), the client's command line, the connect screen's registration, and the
checks with their captures and the closing report.

A drive drives one tmux session (``start``); the functions here act on it. Each drive
keeps its own steps and checks; this module only holds what they all did the same way.
"""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from subprocess import Popen

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gbmj_tui.local_server import start_local_server  # noqa: E402

HAND = r"(?:####|〓〓)x1[0-4]"  # the other seats' hidden hands: a hand is in play
SESSION = "gbmj-drive"  # the tmux session driven (``start`` names it)


# -- the tmux session -----------------------------------------------------------------
def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def start(session: str, size: tuple[int, int], command: str, *, keep_dead: bool = False) -> None:
    """A new detached tmux session ``session`` of ``size`` running ``command`` (one left
    by an earlier run goes first); ``keep_dead``: a command that ends stays on screen."""
    global SESSION
    SESSION = session
    tmux("kill-session", "-t", session)
    tmux("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), command)
    if keep_dead:
        tmux("set-option", "-t", session, "remain-on-exit", "on")


def stop() -> None:
    tmux("kill-session", "-t", SESSION)


def keys(*names: str, pause: float = 0.4) -> None:
    """Keys by tmux's names (``Enter``, ``Escape``, ``Tab``, ``a``), one at a time."""
    for name in names:
        tmux("send-keys", "-t", SESSION, name)
        time.sleep(pause)


def text(words: str, pause: float = 0.5) -> None:
    """``words`` typed as they are."""
    tmux("send-keys", "-t", SESSION, "-l", words)
    time.sleep(pause)


def capture(colours: bool = False) -> str:
    return tmux("capture-pane", "-t", SESSION, "-p", *(["-e"] if colours else []))


def wait_for(pattern: str, timeout: float) -> str:
    """The screen once ``pattern`` (a regular expression) is on it; TimeoutError else."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if re.search(pattern, screen):
            return screen
        time.sleep(0.2)
    raise TimeoutError(f"not on screen after {timeout}s: {pattern!r}\n{screen}")


def pane_dead() -> bool:
    """The session's command has ended (with ``keep_dead``)."""
    return tmux("display-message", "-p", "-t", SESSION, "#{pane_dead}").strip() == "1"


def pane_pid() -> int:
    return int(tmux("display", "-p", "-t", SESSION, "#{pane_pid}").strip())


def flat(screen: str) -> str:
    """The screen's words, wrapped lines joined (a box's edges are words too)."""
    return " ".join(screen.split())


def toasts(screen: str) -> str:
    """The toasts' words: what stands right of their edge (``▌``), wrapped lines joined
    (on a small terminal a toast covers the lines beside it)."""
    return " ".join(line.rsplit("▌", 1)[1].strip() for line in screen.splitlines() if "▌" in line)


# -- the server and the client ----------------------------------------------------------
def server(prefix: str, config: str, *, tls: bool = False) -> tuple[Popen[str], int, Path]:
    """``gbmj-server`` on a free port with a fresh database in a new folder and
    ``config`` as its server.toml: the process, its game port and the folder."""
    where = Path(tempfile.mkdtemp(prefix=prefix))
    (where / "server.toml").write_text(config)
    proc, port = start_local_server(where / "gbmj.db", where / "server.toml", tls=tls)
    return proc, port, where


def stop_server(proc: Popen[str]) -> None:
    proc.terminate()
    proc.wait(10)


def client(port: int, lang: str, where: Path, *, insecure: bool = False, cd: bool = False) -> str:
    """The shell command that starts the client on the server at ``port``, its settings
    in ``where``/config (a first start: no remembered name); ``cd``: run from ``where``
    (where an exported hand is written)."""
    home = shlex.quote(str(where / "config"))
    command = (
        f"XDG_CONFIG_HOME={home} uv run --project {shlex.quote(str(ROOT))} python -m gbmj_tui "
        f"--lang {lang}{' --insecure' if insecure else ''} --server 127.0.0.1:{port}"
    )
    return f"cd {shlex.quote(str(where))} && {command}" if cd else command


def register(name: str, password: str) -> None:
    """On a first start's connect screen (the name field focused): the name, the
    password, and the Register button."""
    wait_for("Chinese Official Mahjong|国标麻将", 30)  # the title: not the shell's echo
    time.sleep(1.5)  # the screen takes its keys once mounted
    text(name, pause=0.0)
    wait_for(re.escape(name), 5)
    keys("Tab")
    text(password)
    keys("Tab", "Tab", "Enter")  # to the Register button, press it


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def descendants(pid: int) -> list[int]:
    """Every process under ``pid``, children before their own children."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    children = [int(x) for x in out.split()]
    return children + [d for c in children for d in descendants(c)]


# -- checks -----------------------------------------------------------------------------
def size(text: str) -> tuple[int, int]:
    """``100x32`` -> (100, 32)."""
    width, height = (int(x) for x in text.split("x"))
    return width, height


def captures_folder(given: Path | None, prefix: str) -> Path:
    folder = given or Path(tempfile.mkdtemp(prefix=prefix))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Check:
    """The checks of a drive: each one's screen saved in ``captures`` (numbered, ``ok``
    or ``FAIL``), the failures listed."""

    def __init__(self, captures: Path) -> None:
        self.captures = captures
        self.failures: list[str] = []
        self.count = 0

    def save(self, label: str, screen: str) -> None:
        self.count += 1
        (self.captures / f"{self.count:03d}-{label}.txt").write_text(screen, "utf-8")

    def expect(self, ok: bool, what: str, screen: str) -> None:
        self.save("ok" if ok else "FAIL", screen)
        if not ok:
            self.failures.append(what)
            print(f"FAIL: {what}", file=sys.stderr)

    def timed_out(self, exc: Exception, screen: str) -> None:
        """A wait that failed: its first line a failure, the screen saved."""
        self.failures.append(str(exc).splitlines()[0])
        self.save("TIMEOUT", screen)

    def report(self) -> int:
        """Print the failures and the counts; the exit status (0: all on screen)."""
        for failure in self.failures:
            print("FAILED:", failure, file=sys.stderr)
        print(f"checks: {self.count}, failures: {len(self.failures)}, captures: {self.captures}")
        return 1 if self.failures else 0
