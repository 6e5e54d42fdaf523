"""The SSH server: each SSH session is a pseudo-terminal running the ``gbmj`` client,
connected to this host's game server over loopback and signed in as the SSH user.

Why a thread: asyncssh runs on asyncio and the game server on trio. The SSH server gets
its own thread with its own asyncio loop, started and stopped from the trio side
(``serve_ssh``: start in a worker thread, stop on cancellation). A thread rather than a
subprocess because it shares the process's settings, lifetime and signals (one Ctrl+C or
SIGTERM stops both, nothing to supervise) and needs no second command line; the two
loops share nothing but the SQLite file, which each side opens through its own
connection (WAL lets them read and write side by side). The clients themselves are
processes of their own, one per session, forked by the launcher
(``gbmj_server.launcher``), so a client never runs inside the server.

Sign-in: the SSH user name is the account name. A password is checked with the game
server's own hashing (``verify_password``), a public key against the keys the player
added (``keys``). Then the SSH server makes a session token for the account and hands it
to the client in its environment (never on a command line, which ``ps`` shows); the
client resumes with it. The token is deleted when the SSH session ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import secrets
import struct
import termios
import time
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncssh

from gbmj_server.hosted import (
    FrontDoor,
    GameDoor,
    SessionGate,
    clamp_size,
    client_environment,
    end_client,
    private_home,
    real_input,
    serve_door,
)
from gbmj_server.launcher import Child, Request
from gbmj_server.limits import Backoff, address_key
from gbmj_server.names import Refused, check_password, name_skeleton, normalise_name
from gbmj_server.ssh import keys
from gbmj_server.ssh.config import SshSettings
from gbmj_server.storage import Account, NameTaken, Storage, hash_password, verify_password

log = logging.getLogger(__name__)
T = TypeVar("T")

HOST_KEY_NAME = "ssh_host_ed25519_key"
STOP_GRACE = 3.0  # seconds the sessions get to end when the server stops
READ_SIZE = 65536
# Wrong passwords for one name from one address: three free, then a doubling wait from
# 2 s to 5 min. The owner elsewhere is not slowed; ``failed_logins`` bounds one address
# over all names more loosely.
NAME_FREE, NAME_BASE, NAME_CAP, NAME_FORGET = 3, 2.0, 300.0, 3600.0
ADDRESS_BASE, ADDRESS_CAP, ADDRESS_FORGET = 1.0, 300.0, 600.0
CLIENT_OPTIONS = {"ascii": "--ascii", "en": ("--lang", "en"), "zh": ("--lang", "zh")}


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key in ``path``, made (ed25519, readable by the owner only) if missing."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="gbmj-server")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_private_key())
    return key


class LoginThrottle:
    """Failed logins per (name, address) and per address, on ``time.monotonic`` (this
    runs on the SSH thread, not on trio's clock)."""

    def __init__(self, failed_logins: int) -> None:
        self.by_name = Backoff(NAME_FREE, NAME_BASE, NAME_CAP, NAME_FORGET)
        self.by_address = Backoff(failed_logins, ADDRESS_BASE, ADDRESS_CAP, ADDRESS_FORGET)

    @staticmethod
    def _pair(name: str, address: str) -> str:
        # The skeleton: look-alike spellings of one name share one record.
        return f"{name_skeleton(name[:64])} {address_key(address)}"

    def wait(self, name: str, address: str) -> float:
        now = time.monotonic()
        return max(
            self.by_name.wait(self._pair(name, address), now),
            self.by_address.wait(address_key(address), now),
        )

    def failed(self, name: str, address: str) -> None:
        now = time.monotonic()
        self.by_name.failed(self._pair(name, address), now)
        self.by_address.failed(address_key(address), now)

    def succeeded(self, name: str, address: str) -> None:
        self.by_name.succeeded(self._pair(name, address))


class SshService(FrontDoor):
    """The asyncssh server in its own thread; ``start()`` returns once it listens,
    ``stop()`` closes every session and the listener and joins the thread."""

    thread_name = "gbmj-ssh"

    def __init__(
        self,
        settings: SshSettings,
        host: str,
        game: GameDoor,
        db_path: Path,
        database: Path | str | None = None,  # a PostgreSQL URL; None: the file db_path
    ) -> None:
        super().__init__()
        self.settings = settings
        self.host = host
        self.game = game  # how the clients reach the game server
        self.db_path = db_path
        self.database = db_path if database is None else database
        self.host_key_path = db_path.parent / HOST_KEY_NAME
        self.fingerprint = ""
        self.throttle = LoginThrottle(settings.failed_logins)
        self.gate = SessionGate(settings.limits)
        self.dummy_hash = ""  # verified against for names without a password: equal timing
        self.sessions: set[ClientSession] = set()
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._db_thread = ThreadPoolExecutor(1, thread_name_prefix="gbmj-ssh-db")
        self._hash_threads = ThreadPoolExecutor(2, thread_name_prefix="gbmj-ssh-hash")
        self.storage: Storage | None = None

    # -- the thread ---------------------------------------------------------------------
    def start(self) -> None:
        if not log.isEnabledFor(logging.DEBUG):  # asyncssh logs every channel at info
            logging.getLogger("asyncssh").setLevel(logging.WARNING)
        super().start()

    async def listen(self) -> None:
        self.storage = await self.db(Storage, self.database)
        host_key = await self.db(load_host_key, self.host_key_path)
        self.dummy_hash = await self.hashing(hash_password, secrets.token_hex(16))
        self.fingerprint = host_key.get_fingerprint("sha256")
        acceptor = self._acceptor = await asyncssh.create_server(
            lambda: AuthServer(self),
            self.host,
            self.settings.port or 0,
            server_host_keys=[host_key],
            encoding=None,  # the pty's bytes pass through untouched
            keepalive_interval=30,  # a dropped connection is noticed
            keepalive_count_max=3,
            login_timeout=60,
        )
        self.port = acceptor.sockets[0].getsockname()[1]

    async def close(self) -> None:
        acceptor = self._acceptor
        if acceptor is not None:
            acceptor.close()
        for session in list(self.sessions):
            session.close("the server is shutting down")
        ends = [s.ended.wait() for s in list(self.sessions)]
        if ends:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*ends), STOP_GRACE + 2)
        for conn in list(self.connections):
            conn.close()
        if acceptor is not None:
            await acceptor.wait_closed()
        await self._close_storage()

    async def _close_storage(self) -> None:
        if self.storage is not None:
            await self.db(self.storage.close)
        self._db_thread.shutdown()
        self._hash_threads.shutdown()

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """A blocking database call, in the SSH side's own database thread."""
        return await asyncio.get_running_loop().run_in_executor(self._db_thread, fn, *args)

    async def hashing(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._hash_threads, fn, *args)


class AuthServer(asyncssh.SSHServer):
    """One SSH connection: who it is (password, key, or an unknown name's rule), then a
    ``ClientSession`` for its shell."""

    def __init__(self, service: SshService) -> None:
        self.service = service
        self.address = "?"
        self.conn: asyncssh.SSHServerConnection | None = None
        self.account: Account | None = None
        self.guest = False

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "?"
        self.service.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.conn is not None:
            self.service.connections.discard(self.conn)

    async def begin_auth(self, username: str) -> bool:
        storage = self.service.storage
        assert storage is not None
        # The name as stored: NFKC (``gbmj_server.names``), so ``ａlice`` is ``alice``.
        login = unicodedata.normalize("NFKC", username)
        self.account = await self.service.db(storage.account_by_name, login)
        if self.account is not None and self.account.is_guest:
            self.account = None  # a guest's name signs nobody in
            return True
        guests = self.service.settings.unknown_users == "guest"
        if self.account is None and guests and not self.service.throttle.wait("", self.address):
            self.guest = True
            return False  # no authentication: a guest
        return True

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_password(self, username: str, password: str) -> bool:
        service = self.service
        wait = service.throttle.wait(username, self.address)
        if wait > 0:
            log.warning(
                "ssh: %r from %s waits %.0f s after failed logins", username, self.address, wait
            )
            return False
        account = self.account
        if account is None:
            ok = await self._register(username, password)
        else:
            assert account.password_hash is not None
            # The hash first, the ban after: a banned name answers as slowly as any.
            ok = await service.hashing(verify_password, account.password_hash, password)
            ok = ok and not account.banned
        if ok:
            service.throttle.succeeded(username, self.address)
        else:
            service.throttle.failed(username, self.address)
            log.info("ssh: failed password for %r from %s", username, self.address)
        return ok

    async def _register(self, username: str, password: str) -> bool:
        """An unknown name with a password: a new account, if the host allows it.
        Every way out costs one password hash, as a wrong password for a real account
        does: the answer's timing tells no names."""
        service = self.service
        try:
            if service.settings.unknown_users != "register":
                raise Refused("unknown names are refused here")
            name = normalise_name(username)
            check_password(password)
        except Refused as refused:
            log.info("ssh: no account for %r: %s", username, refused.reason)
            await service.hashing(verify_password, service.dummy_hash, password)
            return False
        password_hash = await service.hashing(hash_password, password)
        assert service.storage is not None
        try:
            self.account = await service.db(service.storage.create_account, name, password_hash)
        except NameTaken:
            return False
        log.info("ssh: registered %r from %s", name, self.address)
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        account = self.account
        if account is None or account.banned or self.service.throttle.wait(username, self.address):
            return False
        assert self.service.storage is not None
        return await self.service.db(keys.has_key, self.service.storage, account.id, key)

    def session_requested(self) -> ClientSession:
        return ClientSession(self)


class ClientSession(asyncssh.SSHServerSession[bytes]):
    """One SSH session: a pty with the ``gbmj`` client in it, bytes passed both ways."""

    def __init__(self, auth: AuthServer) -> None:
        self.auth = auth
        self.service = auth.service
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term: str | None = None
        self.size = (80, 24)
        self.command = ""
        self.options: list[str] = []
        self.master: int | None = None
        self.child: Child | None = None
        self.token: str | None = None
        self.admitted = False
        self.home: contextlib.ExitStack | None = None  # the client's private home
        self.last_input = time.monotonic()
        self.reading = False
        self.ended = asyncio.Event()
        self.closing = False
        self.ending: asyncio.Task[None] | None = None
        self.exit_message = ""

    # -- asyncssh callbacks -------------------------------------------------------------
    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, ...], modes: Any) -> bool:
        self.term = term_type or "xterm-256color"
        if term_size[0] and term_size[1]:
            self.size = clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        """``ssh -t host en`` or ``ssh -t host ascii``: client options, nothing else."""
        for word in command.split():
            option = CLIENT_OPTIONS.get(word)
            if option is None:
                return False
            self.options += [option] if isinstance(option, str) else list(option)
        self.command = " ".join(command.split())
        return True

    def session_started(self) -> None:
        asyncio.get_running_loop().create_task(self._run())

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if real_input(data):
            self.last_input = time.monotonic()
        if self.master is not None:
            with contextlib.suppress(OSError):  # the client is gone: its end comes next
                os.write(self.master, data)

    def eof_received(self) -> bool:
        return True  # keep the channel open for the goodbye (``_finish`` closes it)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if width and height:
            self.size = clamp_size(width, height)
            if self.master is not None:
                _set_size(self.master, self.size)

    def pause_writing(self) -> None:  # a slow SSH client: stop reading the client
        self._read(False)

    def resume_writing(self) -> None:
        self._read(True)

    def connection_lost(self, exc: Exception | None) -> None:
        self.chan = None
        self.close("")

    # -- the client -----------------------------------------------------------------------
    def _needs_terminal(self) -> str:
        """What to type instead: this command with ``-t`` (OpenSSH asks for no pty when a
        command is given, and a server cannot ask the client for one)."""
        conn = self.auth.conn
        sock = conn.get_extra_info("sockname") if conn is not None else None
        host, port = (str(sock[0]), int(sock[1])) if sock else ("HOST", 22)
        host = f"[{host}]" if ":" in host else host
        user = conn.get_extra_info("username") if conn is not None else None
        words = ["ssh -t", *([] if port == 22 else [f"-p {port}"]), f"{user or 'NAME'}@{host}"]
        return f"gbmj needs a terminal: use {' '.join([*words, self.command]).strip()}\r\n"

    async def _run(self) -> None:
        service = self.service
        try:
            if self.term is None:
                self._finish(1, self._needs_terminal())
                return
            refused = service.gate.admit(self.auth.address)
            if refused is not None:
                self._finish(1, refused + "\r\n")
                return
            self.admitted = True
            service.sessions.add(self)
            extra = {"TERM": self.term}
            if self.auth.guest:
                extra["GBMJ_GUEST"] = "1"
            else:
                account = self.auth.account
                assert account is not None and service.storage is not None
                self.token = await service.db(service.storage.create_session, account.id)
                extra["GBMJ_SESSION"] = self.token
            if self.closing:  # closed while the token was made: no client to start
                self._finish(1, self.exit_message)
                return
            self.home = contextlib.ExitStack()
            home = self.home.enter_context(private_home())
            door_pass = self.home.enter_context(service.game.session(self.auth.address))
            child = await self._spawn(client_environment(service.game, home, door_pass, extra))
            idle = asyncio.get_running_loop().create_task(self._watch_idle())
            code = await child.wait()
            idle.cancel()
            self._finish(code, self.exit_message)
        except Exception:
            log.exception("ssh: session failed")
            self._finish(1, "internal error\r\n")
        finally:
            await self._cleanup()

    async def _spawn(self, env: dict[str, str]) -> Child:
        """The client, forked by the launcher on a new pty (its controlling terminal)."""
        master, slave = os.openpty()
        _set_size(slave, self.size)
        memory = self.service.settings.client_memory
        request = Request(tuple(self.options), env, memory, terminal=True)
        try:
            child = self.child = await self.service.game.launcher.spawn(
                request, (slave, slave, slave)
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self.master = master
        self._read(True)
        if self.closing:  # closed while the client was starting: end it now
            self.close("")
        return child

    def _read(self, on: bool) -> None:
        if self.master is None or on == self.reading:
            return
        loop = asyncio.get_running_loop()
        if on:
            loop.add_reader(self.master, self._readable)
        else:
            loop.remove_reader(self.master)
        self.reading = on

    def _readable(self) -> None:
        if self.master is None:  # closed while the loop still held the reader
            return
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # EIO: every process holding the pty has exited
            data = b""
        if not data:
            self._read(False)
            return
        if self.chan is not None:
            try:
                self.chan.write(data)
            except (BrokenPipeError, asyncssh.Error):  # the player's side is closing
                self._read(False)

    async def _watch_idle(self) -> None:
        timeout = self.service.settings.idle_timeout
        while True:
            await asyncio.sleep(min(timeout / 4, 30.0))
            if time.monotonic() - self.last_input > timeout:
                log.info("ssh: closing an idle session of %r", self._who())
                self.close(f"\r\nidle for {timeout:.0f} s: goodbye\r\n")
                return

    def close(self, message: str) -> None:
        """End the client (SIGHUP, SIGTERM, SIGKILL: ``hosted.end_client``); ``_run``
        then closes the channel."""
        if message and not self.exit_message:
            self.exit_message = message
        self.closing = True
        child = self.child
        if child is None:
            if self not in self.service.sessions:
                self.ended.set()
            return
        if self.ending is None:
            self.ending = asyncio.get_running_loop().create_task(
                end_client(child.pid, lambda: child.returncode is not None)
            )

    def _finish(self, code: int, message: str) -> None:
        chan = self.chan
        if chan is None:
            return
        # Drain what the client wrote last (its screen reset) before the goodbye.
        with contextlib.suppress(OSError, asyncssh.Error):  # the channel may be closing
            while self.master is not None and (data := os.read(self.master, READ_SIZE)):
                chan.write(data)
        with contextlib.suppress(OSError, asyncssh.Error):
            if message:
                chan.write(message.encode())
            chan.exit(max(0, min(code, 255)) if code >= 0 else 1)

    async def _cleanup(self) -> None:
        self._read(False)
        if self.master is not None:
            os.close(self.master)
            self.master = None
        if self.token is not None and self.service.storage is not None:
            token, self.token = self.token, None
            with contextlib.suppress(Exception):
                await self.service.db(self.service.storage.delete_session, token)
        if self.admitted:
            self.admitted = False
            self.service.gate.leave(self.auth.address)
        if self.home is not None:
            self.home.close()  # after the client's end (``_run`` waited for it)
            self.home = None
        self.service.sessions.discard(self)
        self.ended.set()

    def _who(self) -> str:
        return self.auth.account.name if self.auth.account else "a guest"


def _set_size(fd: int, size: tuple[int, int]) -> None:
    """Tell the pty its size (columns, rows); the kernel signals the client (SIGWINCH)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))


async def serve_ssh(
    settings: SshSettings,
    host: str,
    game: GameDoor,
    db_path: Path,
    database: Path | str | None = None,
    *,
    task_status: Any,
) -> None:
    """Run the SSH server from trio until cancelled (then stop it and wait for its thread).

    ``task_status.started(service)`` once it listens; ``host`` is where it listens (the
    game server's address), the clients reach the game server through ``game``."""
    service = SshService(settings, host, game, db_path, database)

    def listening() -> str:
        return f"ssh: listening on {host}:{service.port}, host key {service.fingerprint}"

    await serve_door(service, listening, task_status)
