"""Client figures: time from start to the lobby and to the first prompt (solo against a
local server), the client's memory, and the time to redraw the table after an event.

    uv run python bench/client.py [--events 300]

Prints one figure a line (``start to lobby ms: N``, ``client rss MiB: N``, ``redraw ms
p50: N``...); asserts nothing. Runs the real app headless (Textual's pilot) at 100x32.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from gbmj_tui.app import GbmjApp
from gbmj_tui.local_server import start_local_server
from gbmj_tui.model import apply_event
from protocol.tiles import Tile


def rss_mib() -> float:
    """Resident memory of this process now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(port: int, events: int) -> None:
    before = rss_mib()
    t0 = time.perf_counter()
    app = GbmjApp(solo=("127.0.0.1", port), config_path=Path(tempfile.mkdtemp()) / "c.json")
    async with app.run_test(size=(100, 32)) as pilot:
        while app.lobby_at is None:
            await pilot.pause(0.005)
        lobby = time.perf_counter() - t0
        while app.view is None or app.view.prompt is None:
            await pilot.pause(0.005)
        prompt = time.perf_counter() - t0
        screen = app.table_screen
        assert screen is not None
        view = replace(app.view, prompt=None)
        others = [s for s in range(4) if s != view.me]
        times, shows = [], []
        for i in range(events):
            seat = others[i % 3]
            view = apply_event(view, "discard", seat=seat, tile=Tile(i % 34))
            pool = view.seats[seat].discards
            if len(pool) > 24:  # a real pool holds at most about two dozen tiles
                view = view.with_seat(seat, discards=pool[-12:])
            start = time.perf_counter()
            screen.show(view)
            shown = time.perf_counter()
            await pilot.pause()  # the message queue drains and the screen repaints
            times.append(time.perf_counter() - start)
            shows.append(shown - start)
        idle = []
        for _ in range(events // 3):  # the same wait with nothing to redraw: the baseline
            start = time.perf_counter()
            await pilot.pause()
            idle.append(time.perf_counter() - start)
        rss = rss_mib()
    times.sort()
    shows.sort()
    print(f"start to lobby ms: {lobby * 1000:.0f}")
    print(f"start to first prompt ms: {prompt * 1000:.0f}")
    print(f"client rss MiB: {rss:.0f}")
    print(f"rss before the app MiB: {before:.0f}")
    print(f"redraw ms p50: {statistics.median(times) * 1000:.1f}")
    print(f"redraw ms p95: {times[int(len(times) * 0.95)] * 1000:.1f}")
    print(f"widget update ms p50: {statistics.median(shows) * 1000:.1f}")
    print(f"idle wait ms p50: {statistics.median(idle) * 1000:.1f}")
    print(f"events: {events}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    where = Path(tempfile.mkdtemp(prefix="gbmj-bench-"))
    config = where / "server.toml"
    config.write_text("bot_delay = 0.5\nhand_pause = 5.0\n")  # the defaults, stated
    proc, port = start_local_server(where / "gbmj.db", config)
    try:
        asyncio.run(run(port, args.events))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
