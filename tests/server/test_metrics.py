"""The host's metrics, scraped over real HTTP while a table plays: the hands counter
moves, connections and players are counted, database calls are timed, a refused request
counts under its code."""

from __future__ import annotations

import urllib.request

import pytest
import trio
from prometheus_client.parser import text_string_to_metric_families

from gbmj_server import metrics
from server.wireclient import play, solo_table

pytestmark = pytest.mark.trio


def scrape(port: int) -> dict[str, float]:
    """Every sample of /metrics by name and labels, e.g. ``gbmj_hands_played_total``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            out[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return out


async def test_the_metrics_follow_a_table_as_it_plays(connect, nursery) -> None:
    port = await nursery.start(metrics.serve_metrics, "127.0.0.1", 0)
    before = await trio.to_thread.run_sync(scrape, port)
    human, table_id = await solo_table(connect, "counted")
    await play(human, table_id, until="hand_result")
    refused = await human.request("sit", table_id=table_id + 1000, seat=0)  # no such table
    after = await trio.to_thread.run_sync(scrape, port)
    errors = f"gbmj_errors_total{{code={refused['code']}}}"
    assert refused["type"] == "error"
    assert after[errors] == before.get(errors, 0) + 1
    assert after["gbmj_hands_played_total"] >= before.get("gbmj_hands_played_total", 0) + 1
    assert after["gbmj_connections"] >= 1
    calls = [k for k in after if k.startswith("gbmj_db_call_seconds_count")]
    assert any("settle_hand" in k for k in calls) and any("journal" in k for k in calls)
    actions = after.get("gbmj_action_event_seconds_count", 0)
    assert actions > before.get("gbmj_action_event_seconds_count", 0)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as reply:
        assert reply.status == 200
