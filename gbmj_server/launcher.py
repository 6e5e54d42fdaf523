"""The launcher: one process that has imported the client, forking a child per session.

A hosted session (SSH, the web page) used to start a Python process of its own and
import Textual, the client's screens and its catalogs again: 44 MiB and half a second
each. The launcher imports them once (``PRELOAD``), freezes what it holds out of the
garbage collector's way, and forks a child for each session. The children share those
pages copy-on-write; each then runs exactly what ``python -m gbmj_tui`` runs, in a
process of its own: a session of its own (``setsid``), the terminal or pipes the door
handed over as its standard input, output and error, its own environment, its data
size limit, no core files. A crash or ``sys.exit`` in one ends that process only.

``Launcher`` is the doors' side (any thread, any asyncio loop): it starts the launcher
process, restarts it whenever it ends while the server runs, and ``spawn`` asks it for
a child over a Unix socket in a private folder, the child's three file descriptors
passed along (``SCM_RIGHTS``). The launcher answers ``pid N``, and ``exit CODE`` when
the child ends; children of a launcher that died live on, and their end is seen with a
``pidfd``. The launcher ends when the server does (its standard input closes).

What the children share: each session copies about 17 MiB of the launcher's pages by
running the client (CPython 3.11 writes every object it touches, its reference count),
most of them the same in every session or the launcher's own unchanged (a count taken
and given back). The launcher offers its memory, and so its children's, to the kernel's
same-page merging (``offer_pages_to_merge``); where the host has it on
(``/sys/kernel/mm/ksm/run``, docs/hosting.md) those pages are shared again.

Run as ``python -m gbmj_server.launcher SOCKET`` it is the launcher process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import importlib
import io
import json
import logging
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

log = logging.getLogger(__name__)

# What every session imports: Textual, both of its drivers, the client and all its
# screens (``preload`` adds the catalogs).
PRELOAD = (
    "textual.app",
    "textual.drivers.linux_driver",
    "textual.drivers.web_driver",
    "gbmj_server.web.driver",  # the web door's clients' driver
    "gbmj_tui.cli",
    "gbmj_tui.app",
    "gbmj_tui.screens.chat",
    "gbmj_tui.screens.connect",
    "gbmj_tui.screens.dialogs",
    "gbmj_tui.screens.help",
    "gbmj_tui.screens.history",
    "gbmj_tui.screens.lobby",
    "gbmj_tui.screens.moderation",
    "gbmj_tui.screens.replay",
    "gbmj_tui.screens.result",
    "gbmj_tui.screens.seats",
    "gbmj_tui.screens.shop",
    "gbmj_tui.screens.ssh_keys",
    "gbmj_tui.screens.table",
    "textual.widgets._button",
    "textual.widgets._checkbox",
    "textual.widgets._data_table",
    "textual.widgets._input",
    "textual.widgets._label",
    "textual.widgets._rich_log",
    "textual.widgets._select",
    "textual.widgets._static",
)
READY = "ready"
MAX_REQUEST = 64 * 1024  # bytes of one request (the client's options and environment)
START_TIMEOUT = 60.0  # seconds the launcher may take to import everything
RESTART_PAUSE = 0.5  # seconds between a launcher's end and the next start (no busy loop)
RESTART_PAUSE_MAX = 30.0  # ... at most, for a launcher that keeps failing to start
DRAIN = 8.0  # seconds a stopping launcher waits for its children to be ended
STOP_GRACE = DRAIN + 2.0  # seconds a stopping launcher gets before it is killed
PR_SET_MEMORY_MERGE = 67  # prctl (Linux 6.4): every mapping of a process and its children
MADV_MERGEABLE = 12  # madvise: one mapping (older kernels)
OBJECT_MAP = "GBMJ_LAUNCHER_OBJECT_MAP"  # a file for ``write_object_map`` (bench/pages.py)


class LaunchError(Exception):
    """No child could be started (the reason is for the host's log)."""


@dataclass(frozen=True, slots=True)
class Request:
    """One session's client: its command-line options and whole environment, its data
    size in MB, whether its standard input is a terminal to make its own."""

    args: tuple[str, ...]
    env: Mapping[str, str]
    memory_mb: int
    terminal: bool = False

    def encode(self) -> bytes:
        data = {
            "args": list(self.args),
            "env": dict(self.env),
            "memory_mb": self.memory_mb,
            "terminal": self.terminal,
        }
        return json.dumps(data).encode() + b"\n"

    @classmethod
    def decode(cls, data: bytes) -> Request:
        value = json.loads(data)
        args, env = value["args"], value["env"]
        if not (
            isinstance(args, list)
            and all(isinstance(a, str) for a in args)
            and isinstance(env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            and isinstance(value["memory_mb"], int)
            and isinstance(value["terminal"], bool)
        ):
            raise ValueError("a malformed request")
        return cls(tuple(args), env, value["memory_mb"], value["terminal"])


# -- the doors' side -------------------------------------------------------------------------


class Child:
    """A session's client process, as the door sees it: its pid, and its end."""

    def __init__(self, pid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.pid = pid
        self.returncode: int | None = None
        self._reader = reader
        self._writer = writer
        self._ended = asyncio.get_running_loop().create_task(self._watch())

    async def wait(self) -> int:
        """The exit code (negative: the signal that ended it; -1: unknown, its launcher
        died before it)."""
        return await asyncio.shield(self._ended)

    async def _watch(self) -> int:
        try:
            line = await self._reader.readline()
        except OSError:
            line = b""
        finally:
            self._writer.close()
        if line.startswith(b"exit "):
            self.returncode = int(line.split()[1])
        else:  # the launcher is gone: wait for the process itself
            await _process_end(self.pid)
            self.returncode = -1
        return self.returncode


async def _process_end(pid: int) -> None:
    """Until ``pid`` (no child of ours) has ended."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ended
    finally:
        loop.remove_reader(fd)
        os.close(fd)


class Launcher:
    """The launcher process, kept running while the server runs (restarted whenever it
    ends), and asked for a child per session (``spawn``). Thread-safe: both doors'
    threads share one."""

    def __init__(self) -> None:
        self._folder = tempfile.mkdtemp(prefix="gbmj-launcher-")  # 0700: ours alone
        self.path = os.path.join(self._folder, "socket")
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._closing = False
        self._keeper: threading.Thread | None = None
        self.starts = 0  # launcher processes started so far

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return None if proc is None or proc.poll() is not None else proc.pid

    def start(self) -> None:
        """Start the launcher (it imports in the background; ``spawn`` waits for it)."""
        self._keeper = threading.Thread(target=self._keep, name="gbmj-launcher", daemon=True)
        self._keeper.start()

    def wait_ready(self, timeout: float = START_TIMEOUT) -> bool:
        """Until the launcher has imported the client and takes requests (blocking)."""
        return self._ready.wait(timeout)

    def close(self) -> None:
        """Stop the launcher (its children are the doors' to end) and remove its folder."""
        with self._lock:
            self._closing = True
            proc = self._proc
        if proc is not None:
            _stop(proc)
        if self._keeper is not None:
            self._keeper.join(STOP_GRACE + 2)
        shutil.rmtree(self._folder, ignore_errors=True)

    def _keep(self) -> None:
        """Start the launcher, and again whenever it ends, until ``close``; one that
        ends before it is ready (it cannot import the client) waits longer each time."""
        pause = RESTART_PAUSE
        while True:
            with self._lock:
                if self._closing:
                    return
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)
                proc = self._proc = subprocess.Popen(
                    [sys.executable, "-m", "gbmj_server.launcher", self.path],
                    stdin=subprocess.PIPE,  # its end is the server's end
                    stdout=subprocess.PIPE,
                    env=_launcher_environment(self._folder),
                    start_new_session=True,  # no terminal's Ctrl-C reaches it
                    close_fds=True,
                )
                self.starts += 1
            assert proc.stdout is not None
            ready = proc.stdout.readline().decode().strip() == READY
            if ready:
                self._ready.set()
                pause = RESTART_PAUSE
            code = proc.wait()
            self._ready.clear()
            if not self._closing:
                log.warning("the launcher ended (exit %s): starting it again", code)
                time.sleep(pause)
                if not ready:
                    pause = min(pause * 2, RESTART_PAUSE_MAX)

    async def spawn(self, request: Request, fds: Sequence[int]) -> Child:
        """A child for ``request`` with ``fds`` as its standard input, output and error
        (the door keeps its own copies: close them when the child has them)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT
        while True:
            try:
                sock = await loop.run_in_executor(None, self._send, request, fds)
                break
            except (ConnectionError, FileNotFoundError, TimeoutError) as exc:
                if loop.time() > deadline:  # a launcher that never comes up
                    raise LaunchError(f"the launcher does not answer: {exc}") from None
                await asyncio.sleep(0.05)  # it is restarting: the keeper brings it back
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        try:
            line = await asyncio.wait_for(reader.readline(), START_TIMEOUT)
        except (TimeoutError, OSError) as exc:
            writer.close()
            raise LaunchError(f"the launcher did not start the client: {exc!r}") from None
        if not line.startswith(b"pid "):
            writer.close()
            raise LaunchError(f"the launcher refused: {line.decode(errors='replace').strip()}")
        return Child(int(line.split()[1]), reader, writer)

    def _send(self, request: Request, fds: Sequence[int]) -> socket.socket:
        """Connect (once the launcher is ready) and send the request with its fds."""
        if not self._ready.wait(START_TIMEOUT):
            raise TimeoutError("the launcher is not ready")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(5.0)
            sock.connect(self.path)
            socket.send_fds(sock, [request.encode()], list(fds))
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        return sock


def _launcher_environment(home: str) -> dict[str, str]:
    """Nothing of the server's own environment reaches the launcher (and so no child)
    but ``OBJECT_MAP``, for bench/pages.py (the launcher writes it, no child reads it)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8"}
    if OBJECT_MAP in os.environ:
        env[OBJECT_MAP] = os.environ[OBJECT_MAP]
    return env


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()  # the launcher's cue to end
    try:
        proc.wait(STOP_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# -- the launcher process --------------------------------------------------------------------


def preload() -> None:
    """Import what every session imports, load both catalogs, read a command line as a
    session's is read (argparse, the version from the package's metadata), and run the
    client once to its lobby without a terminal (``warm_up``), its CSS parsed for every
    app to come (``share_css_parses``)."""
    for name in PRELOAD:
        importlib.import_module(name)
    share_css_parses()
    importlib.import_module("gbmj_tui.cli").parse_args([])
    i18n = importlib.import_module("gbmj_tui.i18n")
    for lang in ("zh", "en"):
        i18n.tr("Log in", lang)
    asyncio.run(warm_up())


def share_css_parses() -> None:
    """Textual parses an app's CSS (the client's and every widget's defaults) anew for
    each app it makes, a tenth of a session's start. Kept here, by the CSS and the
    theme's variables, the launcher's parses are every child's (shared pages) unparsed.
    Textual itself reuses a parse within an app, never changing what it parsed. So are
    the theme's variables as tokens, which each app's stylesheet makes anew."""
    module: Any = importlib.import_module("textual.css.stylesheet")
    stylesheet = module.Stylesheet
    parse_rules = stylesheet._parse_rules
    if getattr(parse_rules, "shared", False):
        return
    tokenize_values = module.tokenize_values
    tokenized: dict[tuple[tuple[str, str], ...], dict[str, list[Any]]] = {}

    def shared_tokenize_values(values: dict[str, str]) -> dict[str, list[Any]]:
        key = tuple(sorted(values.items()))
        tokens = tokenized.get(key)
        if tokens is None:
            tokens = tokenized[key] = tokenize_values(values)
        return {name: list(value) for name, value in tokens.items()}  # the lists its own

    module.tokenize_values = shared_tokenize_values
    parsed: dict[tuple[object, ...], Any] = {}

    def shared_parse_rules(
        self: Any,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        variables = tuple(sorted(self._variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        rules = parsed.get(key)
        if rules is None:  # a parse that fails raises, and is not kept
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            parsed[key] = rules
        return rules

    shared_parse_rules.shared = True  # type: ignore[attr-defined]
    stylesheet._parse_rules = shared_parse_rules


async def warm_up() -> None:
    """What Textual and the client make on first use (lazy imports, parsers' caches,
    Rich's tables) is then made once here, shared by every child, not made in each."""
    app_module = importlib.import_module("gbmj_tui.app")
    lobby = importlib.import_module("gbmj_tui.screens.lobby")
    for lang in ("zh", "en"):
        app = app_module.GbmjApp(lang=lang, hosted=True, server="127.0.0.1:1", insecure=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            # The lobby is every session's first screen after signing in: its CSS, its
            # widgets' and its code are then parsed, built and warmed once, here.
            await app.push_screen(lobby.LobbyScreen(lang))
            await pilot.pause()


def offer_pages_to_merge() -> int:
    """Offer this process's memory, and its children's, to the kernel's same-page merging
    (KSM): the pages a session copied from the launcher but left the same, or changed
    as every other session did, are then one page again, read-only, copied anew by a
    session that writes to it. Nothing happens unless the host has KSM on. Returns how
    many mappings were offered (-1: all of them, and every one to come, Linux 6.4)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) == 0:
        return -1
    return offer_mappings()


def offer_mappings() -> int:
    """``offer_pages_to_merge`` on a kernel before 6.4: each private writable mapping of
    memory there is now (the heap and Python's arenas); a child inherits the offer."""
    libc = ctypes.CDLL(None, use_errno=True)
    offered = 0
    with open("/proc/self/maps", encoding="ascii") as maps:
        for line in maps:
            words = line.split()
            if words[1] != "rw-p" or (len(words) > 5 and words[5] != "[heap]"):
                continue  # a file's, the stack, or not writable
            low, high = (int(end, 16) for end in words[0].split("-"))
            length = ctypes.c_size_t(high - low)
            if libc.madvise(ctypes.c_void_p(low), length, MADV_MERGEABLE) == 0:
                offered += 1
    return offered


def write_object_map(path: str) -> None:
    """Where the launcher's objects lie, for bench/pages.py to say what a session's copied
    pages hold: one line an object, ``ADDRESS SIZE TRACKED TYPE`` (TRACKED: 1 when the
    collector's 16 bytes of links precede it). Every object the collector knows and all
    they refer to; not the arrays behind dictionaries, lists and sets (no objects)."""
    found: dict[int, object] = {}
    todo: list[object] = [*gc.get_objects(), sys.modules]
    while todo:
        obj = todo.pop()
        if id(obj) not in found:
            found[id(obj)] = obj
            todo.extend(gc.get_referents(obj))
    with open(path, "w", encoding="utf-8") as out:
        for address, obj in found.items():
            kind = type(obj)
            try:
                size = kind.__sizeof__(obj)  # the type's own (a class's is not its own)
            except Exception:  # a class of a library's that cannot say
                size = 16
            tracked = int(gc.is_tracked(obj))
            out.write(f"{address} {size} {tracked} {kind.__module__}.{kind.__qualname__}\n")
    found.clear()


def serve(path: str) -> None:
    """The launcher's loop: fork a child per request, report each child's end; return
    when the server ends (standard input closes)."""
    preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # wakes the select
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    gc.collect()
    if OBJECT_MAP in os.environ:
        write_object_map(os.environ[OBJECT_MAP])
    gc.freeze()  # the imported objects: never scanned, so their pages stay shared
    offer_pages_to_merge()
    print(READY, flush=True)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                with contextlib.suppress(OSError):
                    conn, _ = listener.accept()
                    _start_child(conn, children)
            elif key.fileobj == wake_r:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
                _reap(children)
            elif not os.read(sys.stdin.fileno(), 512):  # the server ends
                _drain(children, selector, wake_r)
                return


def _start_child(conn: socket.socket, children: dict[int, socket.socket]) -> None:
    fds: list[int] = []
    try:
        conn.settimeout(5.0)
        data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        if len(fds) != 3:
            raise ValueError("a request needs three file descriptors")
        request = Request.decode(data)
        pid = os.fork()
        if pid == 0:
            _run_child(request, fds)  # never returns
        children[pid] = conn
        conn.sendall(f"pid {pid}\n".encode())
    except (OSError, ValueError, KeyError) as exc:
        with contextlib.suppress(OSError):
            conn.sendall(f"error {exc}\n".encode())
        conn.close()
    finally:
        for fd in fds:
            os.close(fd)


def _drain(
    children: dict[int, socket.socket], selector: selectors.BaseSelector, wake_r: int
) -> None:
    """Reap the children while the doors end them (so none is left a zombie with no
    parent to reap it); after ``DRAIN`` seconds, end those left."""
    selector.unregister(sys.stdin.fileno())
    deadline = time.monotonic() + DRAIN
    while children and time.monotonic() < deadline:
        selector.select(timeout=max(0.0, deadline - time.monotonic()))
        with contextlib.suppress(BlockingIOError):
            os.read(wake_r, 512)
        _reap(children)
    for pid in list(children):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    for _ in range(500):  # SIGKILL ends them within moments
        _reap(children)
        if not children:
            return
        time.sleep(0.01)


def _reap(children: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
            conn.close()


def _run_child(request: Request, fds: Sequence[int]) -> None:
    """In the forked child: become the session's client process, run it, exit."""
    import resource

    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()  # a session of its own: ended as one process group
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # nothing of the launcher's
        limit = request.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if request.terminal:
            import fcntl
            import termios

            # The pty becomes the controlling terminal: the kernel sends SIGWINCH on a
            # resize and SIGHUP when the SSH side closes it.
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        for name, stream in zip(("stdin", "stdout", "stderr"), _standard_streams(), strict=True):
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)  # what Textual's drivers use
        os.environ.clear()
        os.environ.update(request.env)
        importlib.reload(importlib.import_module("textual.constants"))  # read from the env
        sys.argv = ["gbmj", *request.args]
        cli = importlib.import_module("gbmj_tui.cli")
        cli.main(list(request.args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _standard_streams() -> tuple[IO[str], IO[str], IO[str]]:
    """Python's standard streams on the child's own 0, 1 and 2, as a fresh interpreter
    would open them."""

    def text(fd: int, mode: str, line_buffering: bool) -> IO[str]:
        raw = open(fd, mode, closefd=False)  # noqa: SIM115 (the process's own, kept open)
        return io.TextIOWrapper(raw, encoding="utf-8", line_buffering=line_buffering)

    return text(0, "rb", False), text(1, "wb", os.isatty(1)), text(2, "wb", True)


def main(argv: Sequence[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m gbmj_server.launcher SOCKET")
    serve(argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
