"""The floor under the game server: a minimal trio server with gbmj's framing that fans
each frame out to the other three members of a group of four, and bot clients that play
it like a table (each member answers the one before it).

    uv run python bench/anchor.py --groups 100 [--seconds 20]

The server (``serve``) does only what any server of this shape must: read, split frames
(a 4-byte length, then a msgpack map), unpack each, pack the frame it sends once for
the group, queue it for three writers and send it. No game, no database, no checks.
``bench/load.py`` runs it after the game server with the same number of clients, so the
game server's CPU per delivered frame is always compared with this floor in one run.

Prints one figure a line: ``frames/s``, ``latency ms p50`` / ``p99`` (from a member's
frame to its arrival at the other three), ``server cpu us per frame``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import deque
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadkit import (
    Pinning,
    Wire,
    cpu_seconds,
    frame,
    percentile,
    start_process,
)

# -- the server ---------------------------------------------------------------------------


class _Member:
    """One connection: an outbox its writer sends whole."""

    def __init__(self) -> None:
        self.queue: deque[bytes] = deque()
        self.wake = trio.Event()


async def serve(port: int) -> None:
    groups: dict[int, list[_Member | None]] = {}

    async def handle(stream: trio.SocketStream) -> None:
        me = _Member()
        wire = Wire()
        group: list[_Member | None] | None = None

        async def writer() -> None:
            while True:
                await me.wake.wait()
                me.wake = trio.Event()
                data = b"".join(me.queue)
                me.queue.clear()
                await stream.send_all(data)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(writer)
                while data := await stream.receive_some(65536):
                    for message in wire.feed(data):
                        if group is None:  # the first frame says where the member sits
                            group = groups.setdefault(message["group"], [None] * 4)
                            group[message["seat"]] = me
                            continue
                        out = frame(message)  # packed once for the group
                        for other in group:
                            if other is not None and other is not me:
                                other.queue.append(out)
                                other.wake.set()
                nursery.cancel_scope.cancel()
        except trio.BrokenResourceError:
            pass

    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    print(f"listening on 127.0.0.1:{listeners[0].socket.getsockname()[1]}", flush=True)
    await trio.serve_listeners(handle, listeners)


# -- the clients --------------------------------------------------------------------------


class Figures:
    def __init__(self) -> None:
        self.measuring = False
        self.frames = 0
        self.sent: dict[tuple[int, int], float] = {}  # (group, seq) -> when
        self.latencies: list[float] = []


async def member(port: int, group: int, seat: int, figures: Figures, go: trio.Event) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(frame({"type": "join", "group": group, "seat": seat}))
    wire = Wire()
    await go.wait()
    if seat == 0:  # East opens: one frame in flight per group, as at a table
        await stream.send_all(_event(group, 0, 0, figures))
    while data := await stream.receive_some(65536):
        for message in wire.feed(data):
            if figures.measuring:
                figures.frames += 1
                sent = figures.sent.pop((group, message["seq"]), None)
                if sent is not None:
                    figures.latencies.append(time.perf_counter() - sent)
            if (message["event"]["seat"] + 1) % 4 == seat:
                await stream.send_all(_event(group, seat, message["seq"] + 1, figures))


def _event(group: int, seat: int, seq: int, figures: Figures) -> bytes:
    """A frame shaped like a discard event."""
    if figures.measuring:
        figures.sent[(group, seq)] = time.perf_counter()
    body = {"type": "discard", "seat": seat, "tile": 0x11 + seq % 9}
    return frame({"type": "event", "table_id": group, "seq": seq, "event": body})


async def run_anchor(groups: int, seconds: float, warmup: float) -> dict[str, float]:
    """Start the anchor server, play ``groups`` groups of four; the figures."""
    pinning = Pinning()
    server, port = start_process([sys.executable, __file__, "--serve"], pinning)
    try:
        figures = Figures()
        async with trio.open_nursery() as nursery:
            go = trio.Event()
            async with trio.open_nursery() as setup:
                for group, seat in itertools.product(range(groups), range(4)):
                    setup.start_soon(member, port, group, seat, figures, go)
                await trio.sleep(0.5)  # every member joined before the first frame
                go.set()
                nursery.start_soon(trio.sleep_forever)
                await trio.sleep(warmup)
                figures.frames = 0
                figures.measuring = True
                cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()
                await trio.sleep(seconds)
                cpu, elapsed = cpu_seconds(server.pid) - cpu0, time.perf_counter() - t0
                figures.measuring = False
                setup.cancel_scope.cancel()
                nursery.cancel_scope.cancel()
    finally:
        server.terminate()
        server.wait(timeout=10)
    lat = figures.latencies
    return {
        "frames/s": figures.frames / elapsed,
        "latency ms p50": percentile(lat, 0.5) * 1000,
        "latency ms p99": percentile(lat, 0.99) * 1000,
        "server cpu us per frame": cpu / max(1, figures.frames) * 1e6,
        "server cpu %": cpu / elapsed * 100,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        trio.run(serve, args.port)
        return
    print(f"groups: {args.groups} ({4 * args.groups} clients)")
    for name, value in trio.run(run_anchor, args.groups, args.seconds, args.warmup).items():
        print(f"{name}: {value:.1f}")


if __name__ == "__main__":
    main()
