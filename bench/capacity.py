"""Capacity at human pace: N seated players and M lobby clients on one server core.

    uv run python bench/capacity.py --players 2000 --lobby 2000 [--seconds 60]

Starts ``gbmj-server`` with a host's settings (timers on, bots thinking 0.5 s, 5 s
between hands) pinned to one core, the load on the other (when there are two). Players
are guests, four to a table: each answers its prompts after a think time of 0.5-3 s
(claims as the bench's simple player: win, else pass, else the first discard; the
claim window runs as the table's settings say). Tables churn: a table's players break
up after an exponential while (``--table-life`` seconds on average; the first to leave
escapes, the match goes on with a stand-in and is abandoned when the last human goes)
and form a new table, so matches end, new tables open and people leave all the time.
Lobby clients watch a page of the table list (spread over the pages) and read what
comes; now and then one opens a table of its own for a few seconds and comes back.

Prints one figure a line: ``players``, ``lobby clients``, ``tables``, ``latency ms
p50`` / ``p99`` (a discard to its event at the other players of the table),
``server cpu %`` (of the one core), ``server rss MiB``, ``lobby frames per lobby
client per s`` (mean, and the most any client got), ``table changes per s`` (tables
formed and broken up).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import resource
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

from loadkit import (  # noqa: E402
    Pinning,
    Wire,
    client_tls,
    cpu_seconds,
    frame,
    open_stream,
    percentile,
    rss_mib,
    start_process,
)

SETTINGS = {
    "name": "capacity",
    "stake": 0,
    "rounds": 4,
    "bots_allowed": True,
    "timers": {"on": True, "first_discard": 30, "turn": 15, "claim_window": 5},
}
# The rest as a host runs it, but for the wait of an empty table: the churn's lobby
# clients each make a table for a few seconds every 30-120 s and never come back to it,
# a table a second per 75 clients; five minutes each would be thousands of empty tables.
# Every simulated player connects from 127.0.0.1: no per-address caps for it here.
# hand_pause: the figures were taken with 5 s between hands (the bench's clients close no
# result, so the pause always runs out).
CONFIG = (
    'log_level = "warning"\ninsecure = {insecure}\ntable_linger = 0\nhand_pause = 5.0\n'
    '[limits]\ntrusted = ["127.0.0.1"]\n'
)
PAGE = 50  # tables a page of the list (protocol.messages.TABLE_PAGE)


class Stats:
    def __init__(self) -> None:
        self.measuring = False
        self.sent: dict[tuple[int, int], tuple[float, int]] = {}  # (table, seq) -> (t, seat)
        self.latencies: list[float] = []
        self.lobby_frames: dict[int, int] = {}  # lobby client -> frames while measuring
        self.changes = 0  # tables formed and broken up while measuring
        self.errors: dict[str, int] = {}


class Client:
    """One connection: a reader task that routes replies to their requests and hands
    everything else to ``on_message``."""

    def __init__(self, stream: trio.abc.Stream, on_message: Any = None) -> None:
        self.stream = stream
        self.wire = Wire()
        self.ids = itertools.count(1)
        self.waiting: dict[int, list[Any]] = {}
        self.on_message = on_message
        self.lock = trio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.stream.send_all(frame(message))

    async def run(self) -> None:
        while data := await self.stream.receive_some(65536):
            for message in self.wire.feed(data):
                slot = self.waiting.pop(message.get("id", -1), None)
                if slot is not None:
                    slot[1] = message
                    slot[0].set()
                elif self.on_message is not None:
                    self.on_message(message)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        request_id = next(self.ids)
        slot: list[Any] = [trio.Event(), None]
        self.waiting[request_id] = slot
        await self.send({"type": kind, "id": request_id, **fields})
        await slot[0].wait()
        reply: dict[str, Any] = slot[1]
        return reply


TLS: list[ssl.SSLContext | None] = [None]  # the clients' TLS (``--tls``), else plain


async def open_client(port: int, nursery: trio.Nursery, on_message: Any = None) -> Client:
    client = Client(await open_stream(port, TLS[0]), on_message)
    nursery.start_soon(client.run)
    welcome: list[Any] = [trio.Event(), None]
    client.waiting[0] = welcome  # the welcome echoes the hello's id
    await client.send({"type": "hello", "id": 0, "version": 1, "client": "capacity/1"})
    await welcome[0].wait()
    reply = await client.request("guest")
    assert reply["type"] == "session", reply
    return client


# -- players ----------------------------------------------------------------------------


class Player:
    def __init__(self, stats: Stats, rng: random.Random) -> None:
        self.stats = stats
        self.rng = rng
        self.client: Client | None = None
        self.table_id = 0
        self.seat = -1
        self.nursery: trio.Nursery | None = None

    def on_message(self, message: dict[str, Any]) -> None:
        kind, stats = message["type"], self.stats
        if kind == "prompt" and message["table_id"] == self.table_id:
            assert self.nursery is not None
            self.nursery.start_soon(self.answer, message)
        elif kind == "event" and stats.measuring:
            sent = stats.sent.get((message["table_id"], message["seq"]))
            if sent is not None and sent[1] != self.seat:
                stats.latencies.append(time.perf_counter() - sent[0])
        elif kind == "error":
            code = message.get("code", "?")
            stats.errors[code] = stats.errors.get(code, 0) + 1

    async def answer(self, prompt: dict[str, Any]) -> None:
        await trio.sleep(self.rng.uniform(0.5, 3.0))
        if prompt["table_id"] != self.table_id or self.client is None:
            return
        choice = _choose(prompt["actions"])
        table_id, seq = self.table_id, prompt["seq"]
        if choice["kind"] == "discard" and self.stats.measuring:
            self.stats.sent[(table_id, seq + 1)] = (time.perf_counter(), self.seat)
        await self.client.send(
            {"type": "action", "id": 10**6, "table_id": table_id, "seq": seq, **choice}
        )


def _choose(actions: list[dict[str, Any]]) -> dict[str, Any]:
    for wanted in ("win", "pass", "discard"):
        for action in actions:
            if action["kind"] == wanted:
                return dict(action)
    return dict(actions[0])


async def table_group(
    port: int, stats: Stats, life: float, seed: int, ready: list[int], nursery: trio.Nursery
) -> None:
    """Four players who sit down together, play a while, break up, and do it again."""
    rng = random.Random(seed)
    players = [Player(stats, random.Random(rng.random())) for _ in range(4)]
    for p in players:
        p.nursery = nursery
        p.client = await open_client(port, nursery, p.on_message)
    first = True
    while True:
        owner = players[0].client
        assert owner is not None
        snapshot = await owner.request("create_table", settings=SETTINGS)
        if snapshot.get("type") != "snapshot":
            raise RuntimeError(f"create_table refused: {snapshot}")
        table_id = snapshot["table"]["table_id"]
        for seat, p in enumerate(players):
            assert p.client is not None
            if seat:
                await p.client.request("join_table", table_id=table_id)
            await p.client.request("sit", table_id=table_id, seat=seat)
            p.table_id, p.seat = table_id, seat
        for p in players:
            assert p.client is not None
            await p.client.request("ready", table_id=table_id, ready=True)
        if first:
            ready[0] += 1
            first = False
        if stats.measuring:
            stats.changes += 1
        await trio.sleep(rng.expovariate(1 / life))
        for p in rng.sample(players, 4):  # the first to go escapes (a stand-in plays on)
            assert p.client is not None
            await trio.sleep(rng.uniform(0.1, 1.0))
            p.table_id = 0
            await p.client.request("leave_table", table_id=table_id)
        if stats.measuring:
            stats.changes += 1


# -- lobby clients ------------------------------------------------------------------------


async def lobby_client(
    port: int, stats: Stats, index: int, pages: int, ready: list[int], nursery: trio.Nursery
) -> None:
    rng = random.Random(index)

    def on_message(message: dict[str, Any]) -> None:
        if message["type"] in ("lobby_update", "table_list") and stats.measuring:
            stats.lobby_frames[index] = stats.lobby_frames.get(index, 0) + 1

    client = await open_client(port, nursery, on_message)
    offset = PAGE * (index % pages)
    await client.request("watch_lobby", on=True, offset=offset)
    ready[0] += 1
    while True:  # now and then a table of its own for a few seconds, then back
        await trio.sleep(rng.uniform(30, 120))
        snapshot = await client.request("create_table", settings={**SETTINGS, "name": "mine"})
        if snapshot["type"] != "snapshot":
            continue
        table_id = snapshot["table"]["table_id"]
        await client.request("sit", table_id=table_id, seat=0)
        if stats.measuring:
            stats.changes += 1
        await trio.sleep(rng.uniform(1, 5))
        await client.request("leave_table", table_id=table_id)
        await client.request("watch_lobby", on=True, offset=offset)


# -- the run ------------------------------------------------------------------------------


async def run(args: argparse.Namespace, pinning: Pinning, tmp: Path) -> dict[str, float]:
    config = tmp / "capacity.toml"
    config.write_text(CONFIG.format(insecure=str(not args.tls).lower()))
    command = [sys.executable, "-m", "gbmj_server", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", str(tmp / "capacity.sqlite3"), "--config", str(config)]
    errors = open(tmp / "server.log", "w+")  # noqa: SIM115
    server, port = start_process(command, pinning, stderr=errors)
    tables = args.players // 4
    pages = max(1, -(-tables // PAGE))
    stats = Stats()
    try:
        async with trio.open_nursery() as nursery:
            seated, watching = [0], [0]
            t0 = time.perf_counter()
            for t in range(tables):  # a few connections at a time, as people arrive
                nursery.start_soon(table_group, port, stats, args.table_life, t, seated, nursery)
                await trio.sleep(0.004)
            for i in range(args.lobby):
                nursery.start_soon(lobby_client, port, stats, i, pages, watching, nursery)
                await trio.sleep(0.001)
            while seated[0] < tables or watching[0] < args.lobby:
                await trio.sleep(0.5)
            print(f"set up in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            await trio.sleep(args.warmup)
            stats.measuring = True
            cpu0, t0, own0 = cpu_seconds(server.pid), time.perf_counter(), time.process_time()
            await trio.sleep(args.seconds)
            stats.measuring = False
            cpu, elapsed = cpu_seconds(server.pid) - cpu0, time.perf_counter() - t0
            own = time.process_time() - own0
            rss = rss_mib(server.pid)
            nursery.cancel_scope.cancel()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        errors.seek(0)
        logged = errors.read()
        if "Traceback" in logged:
            print(logged[-5000:], file=sys.stderr)
        errors.close()
    frames = [stats.lobby_frames.get(i, 0) for i in range(args.lobby)]
    lat = stats.latencies
    if stats.errors:
        print(f"errors: {stats.errors}", file=sys.stderr)
    return {
        "players": args.players,
        "lobby clients": args.lobby,
        "tables": tables,
        "latency ms p50": percentile(lat, 0.5) * 1000,
        "latency ms p99": percentile(lat, 0.99) * 1000,
        "server cpu %": cpu / elapsed * 100,
        "server rss MiB": rss,
        "load cpu % (this process, all the clients)": own / elapsed * 100,
        "lobby frames per lobby client per s": sum(frames) / max(1, len(frames)) / elapsed,
        "lobby frames per lobby client per s, most": max(frames, default=0) / elapsed,
        "table changes per s": stats.changes / elapsed,
        "discards measured": len(lat),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000, help="seated players (4 a table)")
    parser.add_argument("--lobby", type=int, default=2000, help="lobby clients that watch")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured time")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--table-life", type=float, default=120.0, help="mean s a table lasts")
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--tls", action="store_true", help="TLS on the game port (else plain)")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket per client
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # The clients' own collector is off: its pauses (a few thousand connections' worth
    # of objects to scan) would be counted as the server's latency.
    gc.disable()
    pinning = Pinning(pin=not args.no_pin)
    TLS[0] = client_tls() if args.tls else None
    print(f"cores: {pinning.describe()}")
    print(f"game port: {'TLS' if args.tls else 'plain TCP'}")
    with tempfile.TemporaryDirectory() as tmp:
        figures = trio.run(run, args, pinning, Path(tmp))
    for name, value in figures.items():
        print(f"{name}: {value:.2f}" if isinstance(value, float) else f"{name}: {value}")


if __name__ == "__main__":
    main()
