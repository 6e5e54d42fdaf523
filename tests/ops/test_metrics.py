"""The metrics endpoint over real HTTP: scraped and parsed, the metrics the server moves
change, ``/healthz`` answers from the trio loop's heartbeat, and whoever connects costs
no thread and is cut at the read deadline."""

from __future__ import annotations

import importlib.metadata
import socket
import threading
import urllib.error
import urllib.request

import pytest
import trio
from prometheus_client.parser import text_string_to_metric_families

from gbmj_server import metrics
from gbmj_server.config import ServerConfig
from protocol.errors import ErrorCode
from protocol.vocabulary import TableStatus


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics: (name, labels) -> value."""
    status, text = _get(port, "/metrics")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def _scrape_async(port: int) -> dict:
    return await trio.to_thread.run_sync(_scrape, port)


@pytest.mark.trio
async def test_scraped_metrics_move_with_the_server() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(metrics.serve_metrics, "127.0.0.1", 0)
        before = await _scrape_async(port)
        metrics.hand_played()
        metrics.hand_played()
        metrics.error_sent(ErrorCode.RATE_LIMITED)
        metrics.error_sent("not_your_turn")
        metrics.outbox_dropped()
        metrics.action_answered(0.003)
        metrics.set_signed_in(7)
        metrics.set_tables({TableStatus.WAITING: 3, TableStatus.PLAYING: 2})
        with metrics.db_call("record_hand"):
            pass
        with metrics.connection():
            during = await _scrape_async(port)
        after = await _scrape_async(port)
        nursery.cancel_scope.cancel()

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after[key] - before.get(key, 0.0)

    assert moved("gbmj_hands_played_total") == 2
    assert moved("gbmj_errors_total", code="rate_limited") == 1
    assert moved("gbmj_errors_total", code="not_your_turn") == 1
    assert moved("gbmj_outbox_drops_total") == 1
    assert moved("gbmj_action_event_seconds_count") == 1
    assert moved("gbmj_action_event_seconds_bucket", le="0.005") == 1
    assert moved("gbmj_action_event_seconds_bucket", le="0.0025") == 0
    assert moved("gbmj_db_call_seconds_count", call="record_hand") == 1
    assert after[("gbmj_signed_in_players", ())] == 7
    assert after[("gbmj_tables", (("state", "waiting"),))] == 3
    assert after[("gbmj_tables", (("state", "playing"),))] == 2
    assert during[("gbmj_connections", ())] == after[("gbmj_connections", ())] + 1
    assert after[("process_resident_memory_bytes", ())] > 0
    assert ("gbmj_build_info", (("version", importlib.metadata.version("gbmj")),)) in after


@pytest.mark.trio
async def test_healthz_answers_while_the_loop_beats_and_unknown_paths_are_404() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(metrics.serve_metrics, "127.0.0.1", 0)
        assert await trio.to_thread.run_sync(_get, port, "/healthz") == (200, "ok\n")
        status, text = await trio.to_thread.run_sync(_get, port, "/nothing")
        assert status == 404 and "/metrics" in text
        nursery.cancel_scope.cancel()
    with pytest.raises(urllib.error.URLError):  # stopped with the task: nothing listens
        _get(port, "/healthz")


def test_health_is_503_before_the_first_beat_and_once_the_loop_stalls() -> None:
    now = [100.0]
    heartbeat = metrics.Heartbeat(clock=lambda: now[0])
    endpoint = metrics.Endpoint("127.0.0.1", 0, heartbeat)
    try:
        assert _get(endpoint.port, "/healthz") == (503, "starting\n")
        heartbeat.beat()
        now[0] += metrics.STALL_AFTER - 1
        assert _get(endpoint.port, "/healthz") == (200, "ok\n")
        now[0] += 2  # the loop stopped beating: stuck in a blocking call
        status, text = _get(endpoint.port, "/healthz")
        assert status == 503 and text.startswith("stalled: no heartbeat for 11.0 s")
    finally:
        endpoint.stop()


def test_bad_figures_are_refused_and_metrics_stay_on_loopback() -> None:
    with pytest.raises(ValueError):
        metrics.error_sent("no_such_code")
    with pytest.raises(ValueError):
        metrics.set_signed_in(-1)
    assert ServerConfig().metrics_host == "127.0.0.1" and ServerConfig().metrics_port is None


@pytest.mark.slow
def test_half_sent_requests_cost_no_thread_and_are_cut_at_the_read_deadline() -> None:
    endpoint = metrics.Endpoint("127.0.0.1", 0, read_timeout=1.0, max_clients=4)
    threads = threading.active_count()
    slow = []
    try:
        for _ in range(40):  # each sends part of a request and stops
            sock = socket.create_connection(("127.0.0.1", endpoint.port), timeout=10)
            sock.sendall(b"GET /metr")
            slow.append(sock)
        assert threading.active_count() == threads  # no thread per connection
        # A scrape gets its answer: the slowest senders make room.
        status, text = _get(endpoint.port, "/metrics")
        assert status == 200 and "gbmj_connections" in text
        # Every half-sent request is closed: pushed out, or at its read deadline.
        assert all(cut(sock) for sock in slow)
    finally:
        for sock in slow:
            sock.close()
        endpoint.stop()


def test_requests_that_are_not_http_or_too_long_are_closed() -> None:
    endpoint = metrics.Endpoint("127.0.0.1", 0, metrics.Heartbeat(), read_timeout=5.0)
    try:
        with socket.create_connection(("127.0.0.1", endpoint.port), timeout=10) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nX: " + b"a" * (metrics.MAX_REQUEST + 100))
            assert cut(sock)
        with socket.create_connection(("127.0.0.1", endpoint.port), timeout=10) as sock:
            sock.sendall(b"\x16\x03\x01 not http\r\n\r\n")
            assert cut(sock)
        assert _get(endpoint.port, "/healthz")[0] == 503  # and it serves on
        status, _ = _get(endpoint.port, "/metrics")
        assert status == 200
    finally:
        endpoint.stop()


def cut(sock: socket.socket) -> bool:
    """The server closes ``sock`` without an answer (a reset if it left bytes unread)."""
    try:
        return sock.recv(100) == b""
    except ConnectionResetError:
        return True
