"""The server's Prometheus metrics and health check, served over HTTP for the host.

The metrics are module-level objects in one registry of their own (``REGISTRY``); the
server moves them through the small functions below (``hand_played()``,
``error_sent(code)``, ``with db_call("record_hand"): ...``). Moving one is a few
nanoseconds under a lock and does no I/O, so trio code calls them directly.

``serve_metrics`` (a task for ``nursery.start``, with ``metrics_port`` set) serves, from
a thread of its own running a trio loop of its own (so that a stuck server loop still
gets its ``503``):

- ``/metrics``: every metric in Prometheus' text format, the process's memory, CPU and
  open files (``process_*``) included;
- ``/healthz``: ``200 ok`` while the server's trio loop beats (``heartbeat``, once a
  second, from the same task), ``503`` once it has not beaten for ``STALL_AFTER``
  seconds (a loop stuck in a blocking call) or before the first beat.

It listens on loopback unless ``metrics_host`` says otherwise: the figures are for the
host, not for players. Whoever can reach it costs little: at most ``MAX_CLIENTS``
requests are read at once (a newcomer pushes out the one that has been sending its
request longest), each must arrive whole within ``READ_TIMEOUT`` seconds and at most
``MAX_REQUEST`` bytes long, and the answer must be taken within the same time.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import h11
import trio
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder

from protocol.errors import ErrorCode
from protocol.vocabulary import TableStatus

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)  # process_resident_memory_bytes and the like

BUILD = Info("gbmj_build", "The running gbmj", registry=REGISTRY)
BUILD.info({"version": importlib.metadata.version("gbmj")})
CONNECTIONS = Gauge("gbmj_connections", "Open client connections", registry=REGISTRY)
SIGNED_IN = Gauge("gbmj_signed_in_players", "Players signed in, guests included", registry=REGISTRY)
TABLES = Gauge("gbmj_tables", "Tables by state", ["state"], registry=REGISTRY)
HANDS = Counter("gbmj_hands_played", "Hands played to their end", registry=REGISTRY)
ACTION_EVENT = Histogram(
    "gbmj_action_event_seconds",
    "From a player's action arriving to its event going out",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
OUTBOX_DROPS = Counter(
    "gbmj_outbox_drops",
    "Clients disconnected because their outbox was full (too slow to read)",
    registry=REGISTRY,
)
ERRORS = Counter("gbmj_errors", "error replies sent, by code", ["code"], registry=REGISTRY)
DB_CALL = Histogram(
    "gbmj_db_call_seconds",
    "Database calls, by call, the wait for the database thread included",
    ["call"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
    registry=REGISTRY,
)
for _status in TableStatus:  # every state shows, 0 until a table is in it
    TABLES.labels(state=_status.value)

BEAT_EVERY = 1.0  # seconds between heartbeats
STALL_AFTER = 10.0  # seconds without a heartbeat before /healthz answers 503
MAX_CLIENTS = 16  # requests read at once
READ_TIMEOUT = 5.0  # seconds to send a whole request, and to take the answer
MAX_REQUEST = 8192  # bytes of a request's line and headers


# -- what the server calls -------------------------------------------------------------


@contextmanager
def connection() -> Iterator[None]:
    """Counts a client connection for as long as the block runs."""
    CONNECTIONS.inc()
    try:
        yield
    finally:
        CONNECTIONS.dec()


def set_signed_in(count: int) -> None:
    """How many players are signed in now."""
    SIGNED_IN.set(_count(count))


def set_tables(counts: Mapping[TableStatus, int]) -> None:
    """How many tables are in each state now (a state left out: none)."""
    for status in TableStatus:
        TABLES.labels(state=status.value).set(_count(counts.get(status, 0)))


def hand_played() -> None:
    """A hand ended (a win or a draw) and was recorded."""
    HANDS.inc()


def action_answered(seconds: float) -> None:
    """A player's action took ``seconds`` from arriving to its event going out."""
    ACTION_EVENT.observe(seconds)


def outbox_dropped() -> None:
    """A client was disconnected because its outbox was full."""
    OUTBOX_DROPS.inc()


def error_sent(code: ErrorCode | str) -> None:
    """An ``error`` reply went out (``ValueError`` for a code that is not one)."""
    ERRORS.labels(code=ErrorCode(code).value).inc()


def db_call(call: str) -> AbstractContextManager[Any]:
    """Times the block as one database call named ``call`` (the storage method)."""
    return DB_CALL.labels(call=call).time()


def _count(value: int) -> int:
    if value < 0:
        raise ValueError(f"a count cannot be negative: {value}")
    return value


# -- health ------------------------------------------------------------------------------


class Heartbeat:
    """When the trio loop last beat; healthy while that is recent."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last: float | None = None  # written by the loop, read by the HTTP thread

    def beat(self) -> None:
        self.last = self.clock()

    def status(self) -> tuple[bool, str]:
        """(healthy, the line /healthz answers)."""
        if self.last is None:
            return False, "starting"
        quiet = self.clock() - self.last
        if quiet > STALL_AFTER:
            return False, f"stalled: no heartbeat for {quiet:.1f} s"
        return True, "ok"


HEARTBEAT = Heartbeat()


# -- the HTTP endpoint -------------------------------------------------------------------


def answer(method: str, path: str, accept: str, heartbeat: Heartbeat) -> tuple[int, str, bytes]:
    """(status, content type, body) for a request: ``/metrics`` (in the format the
    scraper accepts), ``/healthz``; anything else is 404."""
    if method not in ("GET", "HEAD"):
        return _text(405, "GET only")
    if path == "/metrics":
        encoder, content_type = choose_encoder(accept)
        return 200, content_type, encoder(REGISTRY)
    if path == "/healthz":
        healthy, line = heartbeat.status()
        return _text(200 if healthy else 503, line)
    return _text(404, "not found: /metrics or /healthz")


def _text(status: int, line: str) -> tuple[int, str, bytes]:
    return status, "text/plain; charset=utf-8", (line + "\n").encode()


class Endpoint:
    """The HTTP server: a trio loop in a daemon thread of its own; ``stop()`` ends it.
    The port is bound at once (an ``OSError`` if it cannot be had)."""

    def __init__(
        self,
        host: str,
        port: int,
        heartbeat: Heartbeat = HEARTBEAT,
        *,
        read_timeout: float = READ_TIMEOUT,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(64)
        except OSError:
            sock.close()
            raise
        self.host = host
        self.port: int = sock.getsockname()[1]
        self.heartbeat = heartbeat
        self.read_timeout = read_timeout
        self.max_clients = max_clients
        self._sock = sock
        self._reading: dict[trio.CancelScope, None] = {}  # oldest first
        self._scope = trio.CancelScope()
        self._token: trio.lowlevel.TrioToken | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._serve,), daemon=True)
        self._thread.name = "gbmj-metrics"
        self._thread.start()
        self._ready.wait()

    async def _serve(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        listener = trio.SocketListener(trio.socket.from_stdlib_socket(self._sock))
        with self._scope:
            self._ready.set()
            await trio.serve_listeners(self._handle, [listener])

    def stop(self) -> None:
        if self._token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join()

    async def _handle(self, stream: trio.SocketStream) -> None:
        try:
            if len(self._reading) >= self.max_clients:  # the slowest sender goes
                oldest = next(iter(self._reading))
                del self._reading[oldest]
                oldest.cancel()
            request = None
            conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_REQUEST)
            with trio.CancelScope(deadline=trio.current_time() + self.read_timeout) as reading:
                self._reading[reading] = None
                try:
                    request = await _read_request(stream, conn)
                finally:
                    self._reading.pop(reading, None)
            if request is None:
                return
            method = request.method.decode("ascii", "replace")
            path = request.target.decode("ascii", "replace").split("?", 1)[0]
            accept = ", ".join(v.decode("latin-1") for k, v in request.headers if k == b"accept")
            status, content_type, body = answer(method, path, accept, self.heartbeat)
            headers = [
                ("Content-Type", content_type),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ]
            with trio.move_on_after(self.read_timeout):
                await stream.send_all(conn.send(h11.Response(status_code=status, headers=headers)))
                if method != "HEAD":
                    await stream.send_all(conn.send(h11.Data(data=body)))
                await stream.send_all(conn.send(h11.EndOfMessage()))
        except (trio.BrokenResourceError, trio.ClosedResourceError, h11.ProtocolError):
            pass  # a client that broke off or did not speak HTTP: nothing to answer
        finally:
            await trio.aclose_forcefully(stream)


async def _read_request(stream: trio.SocketStream, conn: h11.Connection) -> h11.Request | None:
    """The request's line and headers (None: the client closed first)."""
    while True:
        event = conn.next_event()
        if isinstance(event, h11.Request):
            return event
        if event is h11.NEED_DATA:
            conn.receive_data(await stream.receive_some(4096))
        else:  # the connection closed
            return None


async def serve_metrics(
    host: str, port: int, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve ``/metrics`` and ``/healthz`` on ``host:port`` until cancelled, beating the
    heartbeat; ``task_status.started`` with the port listened on (for port 0). An
    ``OSError`` if the port cannot be had."""
    endpoint = Endpoint(host, port)
    try:
        HEARTBEAT.beat()
        task_status.started(endpoint.port)
        while True:
            await trio.sleep(BEAT_EVERY)
            HEARTBEAT.beat()
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(endpoint.stop)
