"""Client figures: time from start to the lobby and to the first prompt (solo against a
local server), the client's memory, the time to redraw the table after an event, and
the lobby's update at 1,000 tables.

    uv run python bench/client.py [--events 300] [--tables 1000] [--size 200x60]

Prints one figure a line (``start to lobby ms: N``, ``client rss MiB: N``, ``redraw ms
p50: N``, ``lobby update ms p50 at 1000 tables: N``...); asserts nothing. Runs the real
app headless (Textual's pilot), the table at ``--size`` (100x32 unless told: 200x60
draws big tiles), the lobby at 100x32. A redraw is what a player waits for after an
event: from the table's ``show`` of a discard to the first frame Textual writes after it
(the screen's update, rendered to the bytes a terminal gets), with the cursor's tile
marked across the table: in the live app (the solo match goes on meanwhile and redraws
the table too), and on a table screen alone (``redraw alone``: a copy of the live view,
no server). The frame is taken where Textual hands it to its driver (``App._display``):
the pilot's ``pause`` would add its idle wait (it sleeps until the process has been idle
for a while), which is no drawing and no player sees; it is printed apart
(``pilot idle wait``) for comparison with older figures.
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
from typing import Any

from rich.console import RenderableType
from textual._compositor import CompositorUpdate
from textual.pilot import Pilot
from textual.screen import Screen

from gbmj_tui.app import GbmjApp
from gbmj_tui.config import Address
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import LobbyChanged
from gbmj_tui.model import TableView
from gbmj_tui.reducers import apply_event
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.solo import Solo
from gbmj_tui.tiles import TileStyle
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile


def rss_mib() -> float:
    """Resident memory of this process now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimedApp(GbmjApp):
    """The app, noting when each frame is written. Headless, Textual renders the
    screen's update but writes nothing: here the update is rendered to the terminal's
    bytes too (what a terminal's driver would write), so a frame costs what it costs."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.frame = asyncio.Event()

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        update: object = renderable  # Textual passes its compositor's updates here
        if isinstance(update, CompositorUpdate):
            update.render_segments(self.console)
            self.frame.set()


async def run(port: int, events: int, tables: int, size: tuple[int, int]) -> None:
    before = rss_mib()
    t0 = time.perf_counter()
    where = Path(tempfile.mkdtemp())
    solo = Solo(Address("127.0.0.1", port), where / "solo-account.json")
    app = TimedApp(solo=solo, config_path=where / "c.json")
    async with app.run_test(size=size) as pilot:
        while app.lobby_at is None:
            await pilot.pause(0.005)
        lobby = time.perf_counter() - t0
        while app.session.view is None or app.session.view.prompt is None:
            await pilot.pause(0.005)
        prompt = time.perf_counter() - t0
        screen = app.table_screen
        assert screen is not None
        live = replace(app.session.view, prompt=None)
        times, cpu, shows, idle = await redraws(pilot, screen, live, events)
        rss = rss_mib()
    alone = await redraws_alone(live, events, size, app.lang, app.tile_style)
    lobby_times, lobby_painted = await lobby_updates(tables)
    print(f"start to lobby ms: {lobby * 1000:.0f}")
    print(f"start to first prompt ms: {prompt * 1000:.0f}")
    print(f"client rss MiB: {rss:.0f}")
    print(f"rss before the app MiB: {before:.0f}")
    print(f"redraw ms p50: {_ms(times, 0.5)}")
    print(f"redraw ms p95: {_ms(times, 0.95)}")
    # CPU time of the same redraws: on a busy machine the wall time counts the waits for
    # a core too (the local server and its bots share the machine).
    print(f"redraw cpu ms p50: {_ms(cpu, 0.5)}")
    print(f"redraw cpu ms p95: {_ms(cpu, 0.95)}")
    print(f"widget update ms p50: {_ms(shows, 0.5)}")
    print(f"pilot idle wait ms p50: {_ms(idle, 0.5)}")
    # The same redraws on a table screen alone (a copy of the live view, no server):
    # nothing but the events redraws it in between.
    times, cpu, _shows, idle = alone
    print(f"redraw alone ms p50: {_ms(times, 0.5)}")
    print(f"redraw alone ms p95: {_ms(times, 0.95)}")
    print(f"redraw alone cpu ms p95: {_ms(cpu, 0.95)}")
    print(f"pilot idle wait alone ms p50: {_ms(idle, 0.5)}")
    print(f"events: {events}")
    print(f"table size: {size[0]}x{size[1]}")
    print(f"lobby update ms p50 at {tables} tables: {statistics.median(lobby_times):.2f}")
    print(f"lobby update ms max at {tables} tables: {max(lobby_times):.2f}")
    print(f"lobby update and repaint ms p50: {statistics.median(lobby_painted):.1f}")


def _ms(seconds: list[float], quantile: float) -> str:
    ordered = sorted(seconds)
    return f"{ordered[min(int(len(ordered) * quantile), len(ordered) - 1)] * 1000:.1f}"


Timings = tuple[list[float], list[float], list[float], list[float]]


async def redraws(pilot: Pilot[None], screen: TableScreen, view: TableView, events: int) -> Timings:
    """``events`` discards by the other seats, each shown and painted: the wall time and
    the CPU time from ``show`` to the next frame written, and the time of ``show`` alone
    of each; then the pilot's idle wait with nothing to redraw (what its ``pause`` adds,
    not counted in a redraw)."""
    app = pilot.app
    assert isinstance(app, TimedApp)
    others = [s for s in range(4) if s != view.me]
    times, cpu, shows = [], [], []
    for i in range(events):
        seat = others[i % 3]
        view = apply_event(view, "discard", seat=seat, tile=Tile(i % 34))
        pool = view.seats[seat].discards
        if len(pool) > 24:  # a real pool holds at most about two dozen tiles
            view = view.with_seat(seat, discards=pool[-12:])
        await pilot.pause()  # nothing left from the event before: not counted
        app.frame.clear()
        start, cpu_start = time.perf_counter(), time.process_time()
        screen.show(view)
        shown = time.perf_counter()
        await asyncio.wait_for(app.frame.wait(), 5)  # the frame with the discard
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
        shows.append(shown - start)
    idle = []
    for _ in range(events // 3):  # the same wait with nothing to redraw: the baseline
        start = time.perf_counter()
        await pilot.pause()
        idle.append(time.perf_counter() - start)
    return times, cpu, shows, idle


async def redraws_alone(
    view: TableView, events: int, size: tuple[int, int], lang: str, style: TileStyle
) -> Timings:
    """``redraws`` on a table screen showing ``view`` in an app with no server."""
    app = TimedApp(config_path=Path(tempfile.mkdtemp()) / "c.json", lang=lang)
    async with app.run_test(size=size) as pilot:
        screen = TableScreen(view, tile_style=style, lang=lang)
        await app.push_screen(screen)
        await pilot.pause()
        return await redraws(pilot, screen, view, events)


def _table(base: m.TableInfo, table_id: int, spectators: int) -> m.TableInfo:
    settings = replace(base.settings, name=f"table {table_id}")
    return replace(base, table_id=table_id, settings=settings, spectators=spectators)


async def lobby_updates(count: int, updates: int = 200) -> tuple[list[float], list[float]]:
    """The lobby screen showing ``count`` tables: the time to apply one lobby_update
    that changes a table (a spectator more), and that with the repaint after it."""
    base = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]
    app = GbmjApp(config_path=Path(tempfile.mkdtemp()) / "c.json", lang="en")
    times: list[float] = []
    painted: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        lobby = LobbyScreen("en")
        await app.push_screen(lobby)
        await pilot.pause()
        infos = tuple(_table(base, i, 0) for i in range(1, count + 1))
        lobby.apply(LobbyChanged(infos, reset=True, total=count, online=count))
        await pilot.pause()
        for i in range(updates):
            changed = _table(base, 1 + (i * 37) % count, 1 + i)
            start = time.perf_counter()
            lobby.apply(LobbyChanged((changed,), total=count, online=count))
            applied = time.perf_counter()
            await pilot.pause()
            times.append((applied - start) * 1000)
            painted.append((time.perf_counter() - start) * 1000)
    return times, painted


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    return int(width), int(height)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--size", type=_size, default=(100, 32), help="the terminal: WxH")
    args = parser.parse_args()
    where = Path(tempfile.mkdtemp(prefix="gbmj-bench-"))
    config = where / "server.toml"
    config.write_text("bot_delay = 0.5\nhand_pause = 5.0\n")  # the defaults, stated
    proc, port = start_local_server(where / "gbmj.db", config)
    try:
        asyncio.run(run(port, args.events, args.tables, args.size))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
