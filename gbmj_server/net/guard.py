"""The game port's limits policy (docs/hosting.md, "Limits"), on ``gbmj_server.limits``.

One object holds every counter the port keeps: connections (in all and per address),
the bytes their buffers hold, requests per connection, and the throttles of accounts,
guests, passwords and tables. Addresses are counted by ``address_key`` (an IPv6 /64 is
one address): the player's own address, also behind the server's front doors and a
proxy the host names (``gbmj_server.net.peers``). Only addresses the host lists in
``Limits.trusted`` skip the per-address caps; none by default.

Two rules keep a crowd of connections from locking anyone out or filling the memory:

- **A full server makes room.** At ``max_connections`` (kept below the open-file
  limit), a new connection pushes out the oldest connection that has not signed in;
  only when every one has signed in is it refused (``server_busy``). Sockets that never
  sign in cannot keep a player out, and each is closed by its deadline anyway.
- **One memory budget.** What connections hold in buffers — a frame still arriving
  (and over TLS a record still arriving), and what a client has left unread beyond
  ``connection.FREE_OUTBOX`` — counts against ``buffers_total``; over it, the
  connection that has held bytes the longest is dropped. A client that reads at a
  normal pace holds nothing for long, so it is never the one.

TLS handshakes are what a connection costs the CPU most: an address may start
``handshakes_per_second`` of them (``handshake_burst`` saved up), counted when it
connects, before any TLS work; beyond, the socket is closed at once. Those admitted
take turns: ``handshakes_in_flight`` under way at once (``handshakes_in_flight_per_address``
of one address), each done within ``handshake_timeout`` of its turn.
"""

from __future__ import annotations

import logging
import resource
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import trio

from gbmj_server.config import Limits
from gbmj_server.hosted import DoorPasses, SignedPasses
from gbmj_server.limits import MAX_KEYS, Backoff, Counter, TokenBucket, address_key
from gbmj_server.net.budget import Buffers
from gbmj_server.net.connection import Connection
from gbmj_server.storage.threads import HASH_THREADS

log = logging.getLogger(__name__)

FILES_SPARE = 64  # open files kept for the database, logs and the host's own needs
CLOSING_MAX = 32  # connections pushed out and not yet gone; beyond, a full server refuses

T = TypeVar("T")


def file_limit() -> int:
    """The open-file limit, raised to the hard limit where the system allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class Guard:
    def __init__(self, limits: Limits, door_secret: str | None = None) -> None:
        self.limits = limits
        self.trusted = frozenset(address_key(a) for a in limits.trusted)
        self.proxies = frozenset(address_key(a) for a in limits.proxies)
        self.doors = DoorPasses()  # the front doors' sessions: who each player is
        # The doors on other machines: their passes, signed with the host's secret.
        self.remote_doors = None if door_secret is None else SignedPasses(door_secret)
        self.max_connections = max(1, min(limits.max_connections, file_limit() - FILES_SPARE))
        self.connections = Counter(limits.connections_per_address)
        self.buffers = Buffers(limits.buffers_total)
        # connection -> the address key its slot is counted under (None: uncounted)
        self._open: dict[Connection, str | None] = {}
        self._unsigned: dict[Connection, None] = {}  # oldest first (signed-in ones skipped)
        self._closing: set[Connection] = set()  # pushed out, not yet gone
        self.released = 0  # connections gone since the start
        # One bucket per open connection: the table must hold them all.
        keys = max(MAX_KEYS, 2 * self.max_connections)
        self.requests = TokenBucket(limits.request_rate, limits.request_burst, max_keys=keys)
        # Wrong passwords per (name, address): an attacker slows down, the owner elsewhere
        # does not; and per address, looser, for one address guessing many names.
        self.passwords = Backoff(free=5, base=1.0, cap=300.0, forget=3600.0)
        self.password_addresses = Backoff(free=30, base=1.0, cap=300.0, forget=3600.0)
        self.tokens = Backoff(free=10, base=1.0, cap=60.0, forget=600.0)  # bad resume tokens
        self.registrations = _allowance(limits.registrations_per_hour, 3600.0)
        self.guests = _allowance(limits.guests_per_hour, 3600.0)
        self.chat = _allowance(limits.chat_lines, 10.0)
        self._hashing: dict[str, _Turn] = {}  # addresses with password checks under way
        self._hash_gate = _HashGate(HASH_THREADS)
        self.handshakes = (
            TokenBucket(limits.handshakes_per_second, max(1, limits.handshake_burst))
            if limits.handshakes_per_second > 0
            else None
        )
        self._in_flight = trio.Semaphore(limits.handshakes_in_flight)
        self._in_flight_of: dict[str, trio.Semaphore] = {}

    def key(self, address: str) -> str:
        return address_key(address)

    def is_trusted(self, address: str) -> bool:
        return address_key(address) in self.trusted

    @property
    def open(self) -> int:
        return len(self._open)

    # -- connections -------------------------------------------------------------------
    def admit(self, conn: Connection) -> str | None:
        """Give ``conn`` a connection slot; the reason it is refused, or None."""
        key = address_key(conn.address)
        # A door's connection is counted under its player's address once its hello
        # names the player (``readdress``); until then under none.
        counted = key not in self.trusted and not conn.door
        if counted and self.connections.held(key) >= self.connections.cap:
            return "too many connections from your address"
        if len(self._open) >= self.max_connections and not self._make_room():
            return "the server is full: try again later"
        if counted:
            self.connections.acquire(key)
        self._open[conn] = key if counted else None
        self._unsigned[conn] = None
        conn.buffers = self.buffers
        return None

    def _make_room(self) -> bool:
        """Push out the oldest connection that has not signed in (False: none to push)."""
        if len(self._closing) >= CLOSING_MAX:
            return False
        while self._unsigned:
            oldest = next(iter(self._unsigned))
            del self._unsigned[oldest]
            if oldest.session.account is None and not oldest.closed:
                self.release(oldest)
                self._closing.add(oldest)
                log.info("%r: the server is full, pushed out (not signed in)", oldest)
                oldest.close("pushed out: the server is full")
                return True
        return False

    def release(self, conn: Connection) -> None:
        """``conn`` is gone (or going): its slot is free. Safe to call twice."""
        self._closing.discard(conn)
        self._unsigned.pop(conn, None)
        self.buffers.forget(conn)
        was_open = conn in self._open
        key = self._open.pop(conn, None)  # None: counted under no address
        if key is not None:
            self.connections.release(key)
        if was_open:
            self.released += 1
            self.requests.forget(str(conn.id))

    # -- TLS handshakes ----------------------------------------------------------------
    def handshake(self, address: str, now: float) -> bool:
        """One more TLS handshake from ``address``, within its rate (asked when it
        connects, before any TLS work)."""
        return self.per_address(self.handshakes, address, now)

    @property
    def handshakes_under_way(self) -> int:
        """TLS handshakes that have their turn now."""
        return self.limits.handshakes_in_flight - self._in_flight.value

    @asynccontextmanager
    async def handshake_turn(self, address: str) -> AsyncIterator[None]:
        """A turn to do a TLS handshake: one of ``handshakes_in_flight`` in all and of
        ``handshakes_in_flight_per_address`` of the address (the host's own addresses
        take only the first), waited for in order."""
        key = address_key(address)
        own: trio.Semaphore | None = None
        if key not in self.trusted:
            own = self._in_flight_of.get(key)
            if own is None:
                own = self._in_flight_of[key] = trio.Semaphore(
                    self.limits.handshakes_in_flight_per_address
                )
        try:
            if own is not None:
                await own.acquire()
            try:
                async with self._in_flight:
                    yield
            finally:
                if own is not None:
                    own.release()
        finally:
            if (
                own is not None
                and own.value == self.limits.handshakes_in_flight_per_address
                and not _waiting(own)
            ):
                del self._in_flight_of[key]

    def readdress(self, conn: Connection, address: str) -> str | None:
        """A door's connection names its player (``hello``): from now on it is counted
        and known by the player's ``address``. The reason it is refused, or None."""
        key = address_key(address)
        if conn not in self._open or (conn.door and self._open[conn] is not None):
            return "only a door's connection names its player"  # it started uncounted
        if key not in self.trusted and not self.connections.acquire(key):
            return "too many connections from your address"
        counted = self._open[conn]  # a remote door's: its machine's, given back
        if counted is not None:
            self.connections.release(counted)
        self._open[conn] = None if key in self.trusted else key
        conn.address = address
        return None

    # -- requests ----------------------------------------------------------------------
    def request(self, connection_id: int, now: float, cost: int = 1) -> bool:
        """One more request of a connection (costing ``cost`` tokens), within its rate."""
        return self.requests.allow(str(connection_id), now, min(cost, self.requests.burst))

    def per_address(self, bucket: TokenBucket | None, address: str, now: float) -> bool:
        """One more of a per-address allowance (the host's own addresses have no cap)."""
        key = address_key(address)
        return key in self.trusted or (bucket is not None and bucket.allow(key, now))

    async def hash_in_turn(
        self, address: str, check: Callable[[], Awaitable[T]], *, new_account: bool = False
    ) -> T:
        """Run a password check (``check``: a slow hash) once the checks of the same
        address before it are done, and once a hashing thread is free: the sign-ins of
        addresses with no recent wrong password go first, new accounts and the other
        addresses' checks after them. The threads are few: no crowd of guesses or new
        accounts queues in front of a player's sign-in."""
        key = address_key(address)
        if key in self.trusted:
            return await check()
        later = new_account or self.password_addresses.failures(key, trio.current_time()) > 0
        turn = self._hashing.get(key)
        if turn is None:
            turn = self._hashing[key] = _Turn()
        turn.waiting += 1
        try:
            async with turn.lock, self._hash_gate.slot(later):
                return await check()
        finally:
            turn.waiting -= 1
            if not turn.waiting:
                del self._hashing[key]


class _HashGate:
    """At most ``slots`` password checks at once; those waiting in the first queue go
    before those in the second."""

    def __init__(self, slots: int) -> None:
        self.free = slots
        self.queues: tuple[deque[trio.Event], deque[trio.Event]] = (deque(), deque())

    @asynccontextmanager
    async def slot(self, later: bool) -> AsyncIterator[None]:
        if self.free:  # free slots mean nobody waits
            self.free -= 1
        else:
            turn = trio.Event()
            queue = self.queues[later]
            queue.append(turn)
            try:
                await turn.wait()
            except BaseException:
                if turn.is_set():  # handed the slot as it was cancelled: pass it on
                    self._release()
                else:
                    queue.remove(turn)
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        for queue in self.queues:
            if queue:
                queue.popleft().set()  # the slot goes straight to the next in line
                return
        self.free += 1


def _waiting(semaphore: trio.Semaphore) -> int:
    return semaphore.statistics().tasks_waiting


def _allowance(count: int, seconds: float) -> TokenBucket | None:
    """``count`` in every ``seconds``, all of them at once if saved up (None: none)."""
    return TokenBucket(count / seconds, count) if count > 0 else None


class _Turn:
    """The password checks of one address, one at a time."""

    def __init__(self) -> None:
        self.lock = trio.Lock()
        self.waiting = 0
