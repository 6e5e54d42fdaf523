"""What the drives under scripts/ share: their command line (``arguments``), a server
on free ports with a fresh database and the client in a detached tmux session around a
drive (``served``, ``driving``: a wait that fails is a failure, and everything stops
after), the session's keys, its screen read back and waited on (``wait_for``,
``until``), the words every screen says in each language (``WORDS``), the steps many
drives take the same way (registering, the deal, playing by keys, closing results to
the standings), the host's admin commands and the tournament bench's bots in a thread,
and the checks with their captures and the closing report.

A drive drives one tmux session (``start``); the functions here act on it. Each drive
keeps its own steps and checks; this module only holds what two or more did the same
way.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gbmj_tui.local_server import start_local_server  # noqa: E402

HAND = r"(?:####|〓〓)x1[0-4]"  # the other seats' hidden hands: a hand is in play
SESSION = "gbmj-drive"  # the tmux session driven (``start`` names it)
PASSWORD = "pw-of-drv"  # the driven player's, ``drv``
# What the screens say, read by more than one drive; a drive adds its own words.
WORDS = {
    "en": {
        "lobby": "New table",  # the lobby's key bar
        "turn": "Your turn",
        "result": r"Total|Draw \(wall|escaped",  # a hand's result, of a win, draw or escape
        "standings": "Final standings",
        "auto": "auto-play",
        "owner": "owner drv",
        "fill": "Fill with bots",
        "discarded": "discarded",  # the action line's word for a discard
    },
    "zh": {
        "lobby": "新建牌桌",
        "turn": "轮到你出牌",
        "result": r"合计|荒庄|逃跑",
        "standings": "终局排名",
        "auto": "托管",
        "owner": "桌主 drv",
        "fill": "空位全加机器人",
        "discarded": "打出",
    },
}


def arguments(
    doc: str | None, size: str | None = "100x32", lang: bool = True
) -> argparse.ArgumentParser:
    """A drive's command line (``doc`` its help): ``--lang zh|en`` (unless ``lang`` is
    False: the drive says its own), ``--size`` (unless None: no terminal), ``--captures
    DIR``; the drive adds its own."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=doc, formatter_class=formatter)
    if lang:
        parser.add_argument("--lang", choices=("zh", "en"), default="en")
    if size is not None:
        parser.add_argument("--size", default=size)
    parser.add_argument("--captures", type=Path)
    return parser


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


def until(condition: Callable[[], object], timeout: float, every: float = 0.2) -> bool:
    """Whether ``condition()`` came true (asked every ``every`` s) within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)


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


def solo(flags: str) -> str:
    """The shell command of ``gbmj solo`` with ``flags`` (its language), relaxed timers
    and a fresh database of its own."""
    db = Path(tempfile.mkdtemp(prefix="gbmj-solo-")) / "solo.db"
    return f"uv run python -m gbmj_tui solo {flags} --timers relaxed --db {shlex.quote(str(db))}"


def connect_screen() -> None:
    """Wait for the connect screen, ready for keys."""
    wait_for("Chinese Official Mahjong|国标麻将", 30)  # the title: not the shell's echo
    time.sleep(1.5)  # the screen takes its keys once mounted


def register(name: str, password: str, lobby: str | None = None) -> str:
    """On a first start's connect screen (the name field focused): the name, the
    password, and the Register button; with ``lobby`` (its words), the lobby's screen
    once it shows."""
    connect_screen()
    text(name, pause=0.0)
    wait_for(re.escape(name), 5)
    keys("Tab")
    text(password)
    keys("Tab", "Tab", "Enter")  # to the Register button, press it
    return wait_for(lobby, 20) if lobby else ""


@dataclass(frozen=True)
class Served:
    """A drive's server: its game port, its folder (``gbmj.db``, server.toml) and the
    client's command for it."""

    port: int
    where: Path
    command: str

    @property
    def db(self) -> Path:
        return self.where / "gbmj.db"


@contextmanager
def driving(
    check: Check, session: str, size: tuple[int, int], command: str, *, keep_dead: bool = False
) -> Iterator[None]:
    """The tmux session ``session`` running ``command`` around a drive: a wait that
    times out (or a refusal, RuntimeError) is a failure with its screen saved; the
    session ends after."""
    start(session, size, command, keep_dead=keep_dead)
    try:
        yield
    except (TimeoutError, RuntimeError) as exc:
        check.timed_out(exc, capture())
    finally:
        stop()


@contextmanager
def served(
    check: Check,
    session: str,
    size: tuple[int, int],
    lang: str,
    prefix: str,
    config: str,
    *,
    tls: bool = False,
    insecure: bool = False,
    cd: bool = False,
    shell: bool = False,
) -> Iterator[Served]:
    """``gbmj-server`` (``server``) and the client on it in tmux (``driving``; ``shell``:
    a shell instead, where the drive types the client's command) around a drive; the
    server stops after."""
    proc, port, where = server(prefix, config, tls=tls)
    command = client(port, lang, where, insecure=insecure, cd=cd)
    try:
        with driving(check, session, size, "bash" if shell else command):
            yield Served(port, where, command)
    finally:
        stop_server(proc)


# -- steps of play ----------------------------------------------------------------------
def deal(words: dict[str, str], timeout: float = 60) -> str:
    """The screen once the hand is dealt: the player's turn or a claim bar."""
    return wait_for(words["turn"] + "|" + re.escape("[Space]"), timeout)


def new_table(words: dict[str, str]) -> str:
    """A table of the player's with the settings' defaults (``n``, Enter): the screen
    once it names its owner."""
    keys("n")
    keys("Enter", pause=1.0)  # the settings dialog: Enter creates the table
    return wait_for(words["owner"], 10)


def fill_with_bots(words: dict[str, str]) -> None:
    """The seats (``b``) filled with bots (``f``); the seats dialog left open."""
    keys("b")
    wait_for(words["fill"], 5)
    keys("f", pause=1.0)


def play_until(words: dict[str, str], pattern: str, timeout: float) -> str:
    """Discard the drawn tile on each turn and pass each claim until ``pattern`` shows."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = capture()
        if re.search(pattern, screen):
            return screen
        if "[Space]" in screen:
            keys("Space", pause=0.5)
        elif words["turn"] in screen:
            keys("Enter", pause=0.5)
        else:
            time.sleep(0.3)
    raise TimeoutError(f"not on screen after {timeout}s: {pattern!r}\n{capture()}")


def finish_match(words: dict[str, str], timeout: float) -> tuple[int, str]:
    """Close each hand's result with a key until the match's standings show; the number
    of results closed, and the standings' screen."""
    deadline = time.monotonic() + timeout
    results = 0
    while time.monotonic() < deadline:
        screen = capture()
        if words["standings"] in screen:
            return results, screen
        if re.search(words["result"], screen):
            results += 1
            keys("Enter", pause=1.0)
        else:
            time.sleep(0.5)
    raise TimeoutError(f"no standings after {timeout}s\n{capture()}")


def leave_seat(*places: str) -> str:
    """Leave the table (Esc twice: leaving a seat asks), once more when none of
    ``places`` (their words) shows yet; the screen."""
    keys("Escape", "Escape", pause=0.8)
    screen = capture()
    if not any(place in screen for place in places):
        keys("Escape", pause=0.8)
    return screen


# -- the host and the tournament bench's bots ------------------------------------------
ADMIN = ("uv", "run", "--project", str(ROOT), "gbmj-server", "admin")  # as a host types it


def admin(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A host's ``gbmj-server admin`` command on ``db``, as typed at a shell."""
    command = [*ADMIN, "--db", str(db), *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def host(db: Path, *command: str) -> str:
    """A host's ``gbmj-server admin tournament`` command; its output (a refusal raises)."""
    done = admin(db, "tournament", *command)
    if done.returncode != 0:
        raise RuntimeError(f"admin tournament {' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def standings_rows(text: str) -> list[list[str]]:
    """``admin tournament standings``' CSV, its heading left out."""
    return list(csv.reader(io.StringIO(text)))[1:]


def counted(
    db: Path, tournament_id: int, session: int, timeout: float, every: float = 1.0
) -> tuple[list[list[str]], str]:
    """The host's standings (``admin tournament standings``) once every player of the
    two tables has ``session`` sessions counted, or as they are at ``timeout``: the
    rows and the text."""
    deadline = time.monotonic() + timeout
    while True:
        table = host(db, "standings", str(tournament_id))
        rows = standings_rows(table)
        done = len(rows) == 8 and all(row[9] == str(session) for row in rows)
        if done or time.monotonic() >= deadline:
            return rows, table
        time.sleep(every)


class Reachable:
    """Where the bots find the server (what the tournament bench's ``Bot`` asks of its
    server): up from the start, never restarted here."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.up = trio.Event()
        self.up.set()


@contextmanager
def bots_playing(
    made: Callable[[], list[Any]],
    tournament_id: int,
    tick: Callable[[list[Any]], None] = lambda bots: None,
) -> Iterator[threading.Event]:
    """The tournament bench's bots (``made``) in a thread of their own around a drive
    (``run_bots``): the event set once all have entered the tournament. They stop
    after, before the server does."""
    entered, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=run_bots, args=(made, tournament_id, entered, stop, tick))
    thread.start()
    try:
        yield entered
    finally:
        stop.set()
        thread.join(10)


def run_bots(
    made: Callable[[], list[Any]],
    tournament_id: int,
    entered: threading.Event,
    stop: threading.Event,
    tick: Callable[[list[Any]], None],
) -> None:
    """The bots (``made``), in the calling thread: each registers and enters the
    tournament, then all answer every prompt until ``stop``; ``tick`` looks at them
    every 0.2 s meanwhile."""

    async def main() -> None:
        bots = made()
        for bot in bots:
            await bot.connect()
            assert bot.client is not None
            await bot.client.ok("enter_tournament", tournament_id=tournament_id)
        entered.set()
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.play, done)
            while not stop.is_set():
                tick(bots)
                await trio.sleep(0.2)
            done.set()
            nursery.cancel_scope.cancel()

    trio.run(main)


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
