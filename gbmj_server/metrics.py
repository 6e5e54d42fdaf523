"""The server's Prometheus metrics and health check, served over HTTP for the host.

The metrics are module-level objects in one registry of their own (``REGISTRY``); the
server moves them through the small functions below (``hand_played()``,
``error_sent(code)``, ``with db_call("record_hand"): ...``). Moving one is a few
nanoseconds under a lock and does no I/O, so trio code calls them directly.

``serve_metrics`` (a task for ``nursery.start``, with ``metrics_port`` set) serves, from
a thread of its own:

- ``/metrics``: every metric in Prometheus' text format, the process's memory, CPU and
  open files (``process_*``) included;
- ``/healthz``: ``200 ok`` while the server's trio loop beats (``heartbeat``, once a
  second, from the same task), ``503`` once it has not beaten for ``STALL_AFTER``
  seconds (a loop stuck in a blocking call) or before the first beat.

It listens on loopback unless ``metrics_host`` says otherwise: the figures are for the
host, not for players.
"""

from __future__ import annotations

import importlib.metadata
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import trio
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    ProcessCollector,
    make_wsgi_app,
)

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


def wsgi_app(heartbeat: Heartbeat = HEARTBEAT) -> Callable[..., Iterable[bytes]]:
    """``/metrics`` and ``/healthz``; anything else is 404."""
    metrics = make_wsgi_app(REGISTRY)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return _text(start_response, "405 Method Not Allowed", "GET only")
        if path == "/metrics":
            body: Iterable[bytes] = metrics(environ, start_response)
            return body
        if path == "/healthz":
            healthy, line = heartbeat.status()
            return _text(start_response, "200 OK" if healthy else "503 Service Unavailable", line)
        return _text(start_response, "404 Not Found", "not found: /metrics or /healthz")

    return app


def _text(start_response: Callable[..., Any], status: str, line: str) -> list[bytes]:
    body = (line + "\n").encode()
    start_response(
        status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    )
    return [body]


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """A scrape every few seconds is not worth a log line."""


class Endpoint:
    """The HTTP server in its daemon thread; ``stop()`` closes it."""

    def __init__(self, host: str, port: int, heartbeat: Heartbeat = HEARTBEAT) -> None:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]

        class Server(ThreadingMixIn, WSGIServer):
            address_family = family
            daemon_threads = True  # a slow scraper does not hold up the stop

        self._httpd = make_server(host, port, wsgi_app(heartbeat), Server, _Quiet)
        self.host = host
        self.port: int = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="gbmj-metrics", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


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
