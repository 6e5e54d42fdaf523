"""Load figures for the lobby server: N tables of four client bots over TCP.

    uv run python bench/load.py --tables 25 [--seconds 20]

Starts ``gbmj-server`` in its own process (a fresh database in a temporary folder, timers
off, no pauses), connects ``4 × N`` guest clients that each sit at a table and answer
every prompt with a simple legal choice, plays for a while, and prints one figure a line:

    hands/s: hands finished per second over all tables
    latency ms p50 / p99: from a client sending a discard to that discard's event
        reaching each of the other three clients of its table
    server rss MiB: the server process's resident memory at the end
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbmj_server.net.wire import ProtocolError, WireDecoder, encode  # noqa: E402
from gbmj_tui.local_server import start_local_server  # noqa: E402

SETTINGS = {
    "name": "bench",
    "stake": 0,
    "rounds": 4,
    "bots_allowed": True,
    "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
}


class Stats:
    def __init__(self) -> None:
        self.hands = 0
        self.sent: dict[tuple[int, int], tuple[float, int]] = {}  # (table, seq) -> (t, seat)
        self.latencies: list[float] = []
        self.measuring = False


class BotClient:
    def __init__(self, stream: trio.SocketStream, stats: Stats) -> None:
        self.stream = stream
        self.decoder = WireDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.stats = stats
        self.ids = itertools.count(1)
        self.seat = -1
        self.table_id = 0

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(encode(message))

    async def _fill(self) -> None:
        data = await self.stream.receive_some(65536)
        if not data:
            raise EOFError("server closed the connection")
        for item in self.decoder.feed(data):
            if isinstance(item, ProtocolError):
                raise item
            self.inbox.append(item)

    async def next(self) -> dict[str, Any]:
        while not self.inbox:
            await self._fill()
        return self.inbox.pop(0)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request; its reply (other messages stay queued, in order)."""
        request_id = next(self.ids)
        await self.send({"type": kind, "id": request_id, **fields})
        while True:
            for index, message in enumerate(self.inbox):
                if message.get("id") == request_id:
                    del self.inbox[index]
                    if message["type"] == "error":
                        raise RuntimeError(message)
                    return message
            await self._fill()

    async def play(self) -> None:
        stats = self.stats
        while True:
            message = await self.next()
            kind = message["type"]
            if kind == "prompt":
                choice = _choose(message["actions"])
                if choice["kind"] == "discard" and stats.measuring:
                    stats.sent[(self.table_id, message["seq"] + 1)] = (
                        time.perf_counter(),
                        self.seat,
                    )
                await self.send(
                    {"type": "action", "table_id": self.table_id, "seq": message["seq"], **choice}
                )
            elif kind == "event":
                sent = stats.sent.get((self.table_id, message["seq"]))
                if sent is not None and sent[1] != self.seat and stats.measuring:
                    stats.latencies.append(time.perf_counter() - sent[0])
            elif kind == "hand_result" and self.seat == 0 and stats.measuring:
                stats.hands += 1
            elif kind == "match_result":
                # seq starts again with the next match: a discard whose event never came
                # (the hand ended first) must not pair with a later match's event.
                for key in [k for k in stats.sent if k[0] == self.table_id]:
                    del stats.sent[key]
                await self.send({"type": "ready", "table_id": self.table_id, "ready": True})


def _choose(actions: list[dict[str, Any]]) -> dict[str, Any]:
    for wanted in ("win", "pass", "discard"):
        for action in actions:
            if action["kind"] == wanted:
                return dict(action)
    return dict(actions[0])


async def connect(port: int, stats: Stats) -> BotClient:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    client = BotClient(stream, stats)
    await client.send({"type": "hello", "version": 1, "client": "bench/1"})
    assert (await client.next())["type"] == "welcome"
    await client.request("guest")
    return client


async def table(port: int, stats: Stats, ready: trio.Event, nursery: trio.Nursery) -> None:
    clients = [await connect(port, stats) for _ in range(4)]
    snapshot = await clients[0].request("create_table", settings=SETTINGS)
    table_id = snapshot["table"]["table_id"]
    for seat, client in enumerate(clients):
        client.table_id, client.seat = table_id, seat
        if seat:
            await client.request("join_table", table_id=table_id)
        await client.request("sit", table_id=table_id, seat=seat)
    await ready.wait()
    for client in clients:
        await client.request("ready", table_id=table_id, ready=True)
    for client in clients:
        nursery.start_soon(client.play)


async def main(tables: int, seconds: float, warmup: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "bench.toml"
        config.write_text('bot_delay = 0\nhand_pause = 0\nlog_level = "warning"\n')
        errors = open(Path(tmp) / "server.log", "w+")  # noqa: SIM115
        server, port = start_local_server(Path(tmp) / "bench.sqlite3", config, stderr=errors)
        try:
            stats = Stats()
            async with trio.open_nursery() as nursery:
                ready = trio.Event()
                async with trio.open_nursery() as setup:
                    for _ in range(tables):
                        setup.start_soon(table, port, stats, ready, nursery)
                    ready.set()
                await trio.sleep(warmup)
                stats.measuring = True
                start = time.perf_counter()
                await trio.sleep(seconds)
                stats.measuring = False
                elapsed = time.perf_counter() - start
                rss = _rss_mib(server.pid)
                nursery.cancel_scope.cancel()
        finally:
            server.terminate()
            if server.wait(timeout=10) != 0:
                errors.seek(0)
                print(errors.read(), file=sys.stderr)
            errors.close()
    lat = sorted(stats.latencies) or [0.0]
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"tables: {tables}")
    print(f"hands/s: {stats.hands / elapsed:.1f}")
    print(f"latency ms p50: {statistics.median(lat) * 1000:.2f}")
    print(f"latency ms p99: {p99 * 1000:.2f}")
    print(f"server rss MiB: {rss:.1f}")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured play time")
    parser.add_argument("--warmup", type=float, default=3.0, help="play before measuring")
    args = parser.parse_args()
    trio.run(main, args.tables, args.seconds, args.warmup)
