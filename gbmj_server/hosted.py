"""Hosted client sessions: what the SSH and the web front doors share.

Each hosted session runs one ``gbmj`` client process on the server's machine, for a
player somewhere else, forked by the launcher (``gbmj_server.launcher``) that has the
client imported already. Both front doors admit sessions through a ``SessionGate`` (a cap
in all and a cap per address), clamp the terminal size (a client's screen buffers grow
with it: ``stty rows 16000 cols 16000`` made one client take gigabytes), start the
client with ``GameDoor.launcher`` and ``client_environment`` (a bounded data size,
``GBMJ_HOSTED=1`` so it writes no files, a ``private_home`` of its own, the doors' own
listener of the game server and the session's pass: ``GameDoor``) and end it with
``end_client``. The pass (``DoorPasses``) tells the game server the player's address,
so its limits count every hosted player apart. A door on another machine
(``gbmj_server.door``) signs its passes instead (``SignedPasses``): the game checks them
with the secret it shares with its doors, and nobody without it can name an address.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from gbmj_server.launcher import Launcher
from gbmj_server.limits import Counter, address_key

MAX_COLUMNS, MAX_ROWS = 500, 200  # the largest terminal a hosted client draws
# A client's data size (RLIMIT_DATA). A client at the lobby holds about 50 MB, at
# 100×30 and at 500×200 alike; an unclamped 16000×16000 one stops at the limit.
CLIENT_MEMORY_MB = 256
END_GRACE = 2.0  # seconds a client gets after each signal before the next one
ALL = "*"  # the Counter key that counts every session
PASS_BYTES = 24  # a door pass: 32 characters of URL-safe base64
SIGNED_PREFIX = "gd1"  # a signed pass: gd1.EXPIRES.ADDRESS.MAC (``SignedPasses``)
SIGNED_LIFETIME = 7 * 86_400  # seconds a signed pass names its player (a week of play)
MAC_BYTES = 16  # of HMAC-SHA256: 22 characters of URL-safe base64
MIN_SECRET = 32  # characters of a door secret at least (``secrets.token_urlsafe(32)``: 43)
# What a terminal sends by itself, not the player: NUL, mouse movement (SGR reports
# with the motion bit, codes 32-63) and focus in or out. None of it is input that keeps
# a session from its idle close.
NOT_INPUT = re.compile(rb"\x00|\x1b\[<(?:3[2-9]|[45]\d|6[0-3]);\d+;\d+[Mm]|\x1b\[[IO]")
FULL = "the server is full (too many sessions); try later"
TOO_MANY = "too many sessions from your address; close one first"


def real_input(data: bytes) -> bool:
    """Whether bytes from the player's terminal hold a key or a click (``NOT_INPUT``)."""
    return bool(NOT_INPUT.sub(b"", data))


def clamp_size(columns: int, rows: int) -> tuple[int, int]:
    """A terminal size a hosted client may draw: at least 1×1, at most 500×200."""
    return max(1, min(int(columns), MAX_COLUMNS)), max(1, min(int(rows), MAX_ROWS))


def client_address(listen_host: str, game_port: int) -> str:
    """``host:port`` of the game server for a client on this machine: the loopback form
    of the address the server listens on (every address: loopback). The one place that
    says how hosted clients reach the game."""
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(listen_host, listen_host)
    return f"[{host}]:{game_port}" if ":" in host else f"{host}:{game_port}"


class FrontDoor:
    """A front door's asyncio server in a thread of its own (asyncssh and aiohttp run on
    asyncio, the game server on trio): ``start()`` returns once it listens or raises why
    it cannot, ``stop()`` closes it and joins the thread. A door says how it ``listen``s
    and how it ``close``s (also after a listen that failed part way)."""

    thread_name = "gbmj-door"

    def __init__(self) -> None:
        self.port = 0
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    async def listen(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        """Start the thread and wait until the door listens (or raise why it cannot)."""
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._main(),), name=self.thread_name
        )
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error

    def stop(self) -> None:
        """Close every session and the listener; return when the thread has ended."""
        if self._loop is not None and self._stopping is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        try:
            await self.listen()
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            await self.close()
            return
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            await self.close()


async def serve_door(door: FrontDoor, listening: Callable[[], str], task_status: Any) -> None:
    """Run ``door`` from trio until cancelled (then stop it and wait for its thread):
    print ``listening()`` and ``task_status.started(door)`` once it listens."""
    import trio  # here: the doors' own threads run asyncio and need no trio

    await trio.to_thread.run_sync(door.start)
    print(listening(), flush=True)
    try:
        task_status.started(door)
        await trio.sleep_forever()
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(door.stop)


async def serve_launcher(task_status: Any) -> None:
    """Keep the launcher running from trio until cancelled (then stop it):
    ``task_status.started(launcher)`` once it has imported the client, so that the first
    session is as quick as the next (or after ``START_TIMEOUT``: sessions then wait)."""
    import trio

    launcher = Launcher()
    launcher.start()
    try:
        await trio.to_thread.run_sync(launcher.wait_ready)
        task_status.started(launcher)
        await trio.sleep_forever()
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(launcher.close)


@dataclass(frozen=True, slots=True)
class SessionLimits:
    max_sessions: int = 20  # sessions running a client at once, from everywhere
    per_address: int = 4  # ... from one address (an IPv6 /64 counts as one)
    idle_timeout: float = 1800.0  # seconds without input from the player before closing
    client_memory_mb: int = CLIENT_MEMORY_MB  # each client's data size (RLIMIT_DATA)


class SessionGate:
    """Admits sessions under a cap in all and per address (one event loop's thread)."""

    def __init__(self, limits: SessionLimits) -> None:
        self.limits = limits
        self._all = Counter(limits.max_sessions)
        self._per_address = Counter(limits.per_address)

    def refusal(self, address: str) -> str | None:
        """Why a session from ``address`` would be refused now (None: it would not)."""
        if self._all.held(ALL) >= self._all.cap:
            return FULL
        if self._per_address.held(address_key(address)) >= self._per_address.cap:
            return TOO_MANY
        return None

    def admit(self, address: str) -> str | None:
        """Take a place for a session from ``address``; None if taken, else the reason
        it was refused, to show to the player."""
        if not self._all.acquire(ALL):
            return FULL
        if not self._per_address.acquire(address_key(address)):
            self._all.release(ALL)
            return TOO_MANY
        return None

    def leave(self, address: str) -> None:
        """Give back the place of a session that ``admit`` took."""
        self._per_address.release(address_key(address))
        self._all.release(ALL)

    @property
    def sessions(self) -> int:
        return self._all.held(ALL)


@contextlib.contextmanager
def private_home() -> Iterator[str]:
    """An empty home folder (0700) for one hosted client, removed when its session ends:
    the client reads nobody's settings (not the host's, not another player's), and
    anything it might write goes with it."""
    home = tempfile.mkdtemp(prefix="gbmj-hosted-")
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


class DoorPasses:
    """The passes of the running door sessions: pass -> the player's address. The doors
    (asyncio, in their own threads) issue and revoke them, the game port (trio) looks
    them up; a lock keeps each step whole."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._addresses: dict[str, str] = {}

    def issue(self, address: str) -> str:
        """A new pass for a session of a player at ``address``."""
        door_pass = secrets.token_urlsafe(PASS_BYTES)
        with self._lock:
            self._addresses[door_pass] = address
        return door_pass

    def revoke(self, door_pass: str) -> None:
        """The session ended: its pass names nobody any more."""
        with self._lock:
            self._addresses.pop(door_pass, None)

    def address_of(self, door_pass: str) -> str | None:
        """The player's address a pass names (None: no such pass, or no more)."""
        with self._lock:
            return self._addresses.get(door_pass)

    def __len__(self) -> int:
        with self._lock:
            return len(self._addresses)


class SignedPasses:
    """The passes of a door on another machine (``gbmj_server.door``): each names the
    player's address and its expiry, signed with the secret the door shares with the game
    (HMAC-SHA256), so the game needs no word from the door to check one, on any of its
    nodes, and a player cannot make or change one. Revoking is the expiry's: a pass
    lives as long as a session may (``SIGNED_LIFETIME``), the client reconnecting with it."""

    def __init__(self, secret: str, lifetime: float = SIGNED_LIFETIME) -> None:
        if len(secret) < MIN_SECRET:
            raise ValueError(f"a door secret has {MIN_SECRET} characters at least")
        self._key = secret.encode()
        self.lifetime = lifetime

    def _mac(self, expires: int, address: str) -> str:
        digest = hmac.new(self._key, f"{expires}.{address}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:MAC_BYTES]).rstrip(b"=").decode()

    def issue(self, address: str, now: float | None = None) -> str:
        """A pass naming ``address`` (an IP address) until ``lifetime`` from ``now``."""
        expires = int((time.time() if now is None else now) + self.lifetime)
        return f"{SIGNED_PREFIX}.{expires}.{address}.{self._mac(expires, address)}"

    def revoke(self, door_pass: str) -> None:
        """Nothing to forget: a signed pass ends with its expiry."""

    def address_of(self, door_pass: str, now: float | None = None) -> str | None:
        """The address a pass names, if this secret signed it and it has not expired
        (None otherwise)."""
        prefix, _, rest = door_pass.partition(".")
        expires, _, rest = rest.partition(".")
        address, _, mac = rest.rpartition(".")
        if prefix != SIGNED_PREFIX or not (expires.isascii() and expires.isdigit()):
            return None
        if not address:
            return None
        if not hmac.compare_digest(mac.encode(), self._mac(int(expires), address).encode()):
            return None
        if int(expires) < (time.time() if now is None else now):
            return None
        try:
            return str(ipaddress.ip_address(address))
        except ValueError:
            return None


class Passes(Protocol):
    """What a door needs of its passes: ``DoorPasses`` or ``SignedPasses``."""

    def issue(self, address: str) -> str: ...

    def revoke(self, door_pass: str) -> None: ...


@dataclass(frozen=True, slots=True)
class GameDoor:
    """How a hosted client is started (the launcher) and reaches the game server: for
    the doors inside the server, the doors' own listener (on loopback, plain TCP:
    nothing is in between); for a door on another machine, the game port, over TLS
    with the certificate's ``fingerprint`` (None: plain TCP). The ``passes`` name each
    session's player there (None: no pass, the door's clients are ordinary clients)."""

    address: str
    passes: Passes | None
    launcher: Launcher
    fingerprint: str | None = None

    @contextlib.contextmanager
    def session(self, address: str) -> Iterator[str]:
        """A pass for one session of a player at ``address``, revoked when it ends
        ("": the door gives none)."""
        if self.passes is None:
            yield ""
            return
        passes = self.passes
        door_pass = passes.issue(address)
        try:
            yield door_pass
        finally:
            passes.revoke(door_pass)

    def environment(self, door_pass: str) -> dict[str, str]:
        env = {"GBMJ_SERVER": self.address}
        if self.fingerprint is None:
            env["GBMJ_INSECURE"] = "1"
        else:  # checked by the client, nothing pinned (it keeps no file)
            env["GBMJ_TLS_FINGERPRINT"] = self.fingerprint
        if door_pass:
            env["GBMJ_DOOR"] = door_pass
        return env


def client_environment(
    game: GameDoor, home: str, door_pass: str, extra: Mapping[str, str] = {}
) -> dict[str, str]:
    """The whole environment of a hosted client: nothing of the server's own but the
    program path; its own ``home``, the game server's door and the session's pass,
    ``GBMJ_HOSTED=1``."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "GBMJ_HOSTED": "1",  # the client turns off screenshots and config and file writes
        **game.environment(door_pass),
    }
    env.update(extra)
    return env


async def end_client(pid: int, exited: Callable[[], bool], grace: float = END_GRACE) -> None:
    """End a client's process group: SIGHUP (its terminal is gone), then SIGTERM, then
    SIGKILL, each after ``grace`` seconds without it exiting."""
    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
        if exited():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        if sig == signal.SIGKILL:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while not exited() and loop.time() < deadline:
            await asyncio.sleep(0.05)
