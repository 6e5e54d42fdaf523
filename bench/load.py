"""Load figures for the game server: N tables of bot clients over TCP, at bot speed.

    uv run python bench/load.py --tables 250 [--seconds 20] [--bots 3] [--no-anchor]

Starts ``gbmj-server`` in its own process (a fresh database in a temporary folder,
timers off, no pauses, the request rate raised for clients that answer at once), pinned
to one core with the load on the other when the machine has two (as ``taskset`` would).
Connects ``4 × N`` guest clients (with ``--bots K``: ``4 - K`` clients and K hard server
bots a table) that sit down and answer every prompt with a simple legal choice, plays
for a while, then runs ``bench/anchor.py``'s fan-out server with the same clients for
the floor. The clients read frames without checking them against the catalog: they cost
the server nothing and themselves little. Prints one figure a line:

    setup s / setup server cpu s: signing in, creating and seating every client
    hands/s: hands ended per second over all tables (each hand's result counted once)
    latency ms p50 / p99: from a client sending a discard to that discard's event
        reaching each of the other clients of its table
    server cpu ms per hand, server cpu %: the server process's CPU over the play
    frames delivered/s, server cpu us per frame: frames the clients received
    anchor ...: the same for the anchor server, and the ratio of the two per frame
    server rss MiB: the server process's resident memory at the end
"""

from __future__ import annotations

import argparse
import itertools
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from anchor import run_anchor  # noqa: E402
from loadkit import (  # noqa: E402
    Pinning,
    Wire,
    client_tls,
    cpu_seconds,
    frame,
    open_stream,
    percentile,
    pin_children,
    rss_mib,
    start_process,
)

SETTINGS = {
    "name": "bench",
    "stake": 0,
    "rounds": 4,
    "bots_allowed": True,
    "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
}
# Bot clients answer every prompt at once: far over a person's request rate; with --bots
# every table has bots, far over the host's default cap on tables that play by themselves.
CONFIG = """\
bot_delay = 0
hand_pause = 0
log_level = "warning"
insecure = {insecure}

[limits]
request_rate = 10000
request_burst = 10000
max_bot_tables = 1000
trusted = ["127.0.0.1"]  # every client of the benchmark connects from here
"""


class Stats:
    def __init__(self) -> None:
        self.measuring = False
        self.hands: set[tuple[int, int]] = set()  # (table, hand id) of the results seen
        self.frames = 0
        self.sent: dict[tuple[int, int], tuple[float, int]] = {}  # (table, seq) -> (t, seat)
        self.latencies: list[float] = []


class BotClient:
    def __init__(self, stream: trio.abc.Stream, stats: Stats) -> None:
        self.stream = stream
        self.wire = Wire()
        self.inbox: list[dict[str, Any]] = []
        self.stats = stats
        self.ids = itertools.count(1)
        self.seat = -1
        self.table_id = 0

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(frame(message))

    async def _fill(self) -> None:
        data = await self.stream.receive_some(65536)
        if not data:
            raise EOFError("server closed the connection")
        self.inbox.extend(self.wire.feed(data))

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
        stats, wire, stream = self.stats, self.wire, self.stream
        pending, self.inbox = self.inbox, []
        while True:
            if not pending:
                data = await stream.receive_some(65536)
                if not data:
                    raise EOFError("server closed the connection")
                pending = wire.feed(data)
            if stats.measuring:
                stats.frames += len(pending)
            for message in pending:
                await self._handle(message)
            pending = []

    async def _handle(self, message: dict[str, Any]) -> None:
        stats = self.stats
        kind = message["type"]
        if kind == "prompt":
            choice = _choose(message["actions"])
            if choice["kind"] == "discard" and stats.measuring:
                stats.sent[(self.table_id, message["seq"] + 1)] = (time.perf_counter(), self.seat)
            await self.send(
                {"type": "action", "table_id": self.table_id, "seq": message["seq"], **choice}
            )
        elif kind == "event":
            sent = stats.sent.get((self.table_id, message["seq"]))
            if sent is not None and sent[1] != self.seat and stats.measuring:
                stats.latencies.append(time.perf_counter() - sent[0])
        elif kind == "hand_result":
            if stats.measuring:
                stats.hands.add((self.table_id, message["hand_id"]))
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


async def connect(port: int, stats: Stats, tls: ssl.SSLContext | None) -> BotClient:
    client = BotClient(await open_stream(port, tls), stats)
    await client.send({"type": "hello", "version": 1, "client": "bench/1"})
    await client._fill()
    assert client.inbox.pop(0)["type"] == "welcome"
    await client.request("guest")
    return client


async def seat_table(
    port: int, stats: Stats, bots: int, tls: ssl.SSLContext | None
) -> list[BotClient]:
    """A table's clients, signed in and seated (the owner in seat 0), bots in the rest."""
    clients = [await connect(port, stats, tls) for _ in range(4 - bots)]
    snapshot = await clients[0].request("create_table", settings=SETTINGS)
    table_id = snapshot["table"]["table_id"]
    for seat, client in enumerate(clients):
        client.table_id, client.seat = table_id, seat
        if seat:
            await client.request("join_table", table_id=table_id)
        await client.request("sit", table_id=table_id, seat=seat)
    for seat in range(4 - bots, 4):
        await clients[0].request("add_bot", table_id=table_id, seat=seat, level="hard")
    return clients


async def start_play(clients: list[BotClient], nursery: trio.Nursery) -> None:
    for client in clients:
        await client.request("ready", table_id=client.table_id, ready=True)
    for client in clients:
        nursery.start_soon(client.play)


async def run_game(
    tables: int,
    seconds: float,
    warmup: float,
    bots: int,
    bot_workers: int,
    tls: bool,
    pinning: Pinning,
    tmp: Path,
) -> dict[str, float]:
    config = tmp / "bench.toml"
    config.write_text(
        f"bot_workers = {bot_workers}\n" + CONFIG.format(insecure=str(not tls).lower())
    )
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", str(tmp / "bench.sqlite3"), "--config", str(config)]
    errors = open(tmp / "server.log", "w+")  # noqa: SIM115
    server, port = start_process(command, pinning, stderr=errors)
    # The server's bot workers think beside the load, off the server's core (as on a
    # host with cores to spare); the server's own event loop keeps its core.
    workers = pin_children(server.pid, pinning.load) if pinning.pinned else 0
    try:
        stats = Stats()
        async with trio.open_nursery() as nursery:
            seated: list[list[BotClient]] = []
            cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()

            async def one() -> None:
                seated.append(await seat_table(port, stats, bots, client_tls() if tls else None))

            async with trio.open_nursery() as setup:
                for _ in range(tables):
                    setup.start_soon(one)
            setup_cpu, setup_s = cpu_seconds(server.pid) - cpu0, time.perf_counter() - t0
            async with trio.open_nursery() as starting:
                for clients in seated:
                    starting.start_soon(start_play, clients, nursery)
            await trio.sleep(warmup)
            stats.measuring = True
            cpu0, t0, own0 = cpu_seconds(server.pid), time.perf_counter(), time.process_time()
            loop0 = cpu_seconds(server.pid, children=False)
            await trio.sleep(seconds)
            stats.measuring = False
            cpu, elapsed = cpu_seconds(server.pid) - cpu0, time.perf_counter() - t0
            loop = cpu_seconds(server.pid, children=False) - loop0
            own = time.process_time() - own0
            rss = rss_mib(server.pid)
            nursery.cancel_scope.cancel()
    finally:
        server.terminate()
        try:
            code = server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            code = server.wait()
        errors.seek(0)
        logged = errors.read()
        if code != 0 or "Traceback" in logged:
            print(logged, file=sys.stderr)
        errors.close()
    hands = len(stats.hands)
    lat = stats.latencies
    return {
        "setup s": setup_s,
        "setup server cpu s": setup_cpu,
        "hands/s": hands / elapsed,
        "latency ms p50": percentile(lat, 0.5) * 1000,
        "latency ms p99": percentile(lat, 0.99) * 1000,
        "bot workers": workers,
        "server cpu ms per hand": cpu / max(1, hands) * 1000,
        "of it in the event loop": loop / max(1, hands) * 1000,
        "of it in bot workers": (cpu - loop) / max(1, hands) * 1000,
        "server cpu %": cpu / elapsed * 100,
        "frames delivered/s": stats.frames / elapsed,
        "server cpu us per frame": cpu / max(1, stats.frames) * 1e6,
        "server rss MiB": rss,
        "load cpu % (this process, all the clients)": own / elapsed * 100,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured play time")
    parser.add_argument("--warmup", type=float, default=3.0, help="play before measuring")
    parser.add_argument("--bots", type=int, default=0, choices=range(4), help="bots a table")
    parser.add_argument(
        "--bot-workers", type=int, default=1, help="processes the bots think in (0: the loop)"
    )
    parser.add_argument("--no-anchor", action="store_true", help="skip the anchor's floor")
    parser.add_argument("--no-pin", action="store_true", help="let the server use any core")
    parser.add_argument("--tls", action="store_true", help="TLS on the game port (else plain)")
    args = parser.parse_args()
    pinning = Pinning(pin=not args.no_pin)
    clients = args.tables * (4 - args.bots)
    print(f"tables: {args.tables} ({clients} clients, {args.bots} bots a table)")
    print(f"cores: {pinning.describe()}")
    print(f"game port: {'TLS' if args.tls else 'plain TCP'}")
    with tempfile.TemporaryDirectory() as tmp:
        game = trio.run(
            run_game,
            args.tables,
            args.seconds,
            args.warmup,
            args.bots,
            args.bot_workers,
            args.tls,
            pinning,
            Path(tmp),
        )
    for name, value in game.items():
        print(f"{name}: {value:.2f}")
    if args.no_anchor:
        return
    groups = -(-clients // 4)
    floor = trio.run(run_anchor, groups, args.seconds, args.warmup)
    for name in ("frames/s", "latency ms p99", "server cpu us per frame"):
        print(f"anchor (plain TCP) {name}: {floor[name]:.2f}")
    ratio = game["server cpu us per frame"] / floor["server cpu us per frame"]
    print(f"server cpu per frame / anchor's: {ratio:.2f}")


if __name__ == "__main__":
    main()
