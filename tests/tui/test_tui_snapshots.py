"""Snapshot tests: the main screens' text (the table mid-hand with a claim open, the
lobby, a hand's result) at 80x24 and larger sizes (the table at 120x40 and 200x60, where
its tiles are big; the others at 100x32 and 160x50), in Chinese and English, with the
Chinese tiles and in ASCII, compared with the files in tests/tui/snapshots/. They were
read by eye; after an intended change to the layout, look at the new screens and
rewrite them with

    GBMJ_UPDATE_SNAPSHOTS=1 uv run pytest tests/tui/test_tui_snapshots.py
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from tui_harness import OfflineApp, terminal_text
from tui_sample import claim_prompt, sample_result, sample_view

from gbmj_tui.messages import LobbyChanged
from gbmj_tui.model import TableView
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile as T

SNAPSHOTS = Path(__file__).parent / "snapshots"
SIZES = {
    "table": ((80, 24), (120, 40), (200, 60)),
    "lobby": ((80, 24), (100, 32), (160, 50)),
    "result": ((80, 24), (100, 32), (160, 50)),
}
LOOKS = (("zh", False), ("zh", True), ("en", False), ("en", True))  # (lang, --ascii)
SCREENS = ("table", "lobby", "result")
PROFILE = m.Profile(name="Alice", guest=False, coins=9_730, rating=420, level=3)
TABLE = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]


async def _show(app: OfflineApp, screen: str) -> None:
    if screen == "lobby":
        lobby = LobbyScreen(app.lang, PROFILE)
        await app.push_screen(lobby)
        tables = tuple(_table(i) for i in range(1, 6))
        lobby.apply(LobbyChanged(tables, reset=True, total=5, online=12))
        lobby.add_chat("Dan", "anyone for a hand?")
    elif screen == "result":
        view = sample_result(sample_view())
        await app.push_screen(ResultScreen(view, app.tile_style, app.lang, 9_000))


def _table(i: int) -> m.TableInfo:
    settings = replace(TABLE.settings, name=f"table {i}", stake=(0, 10, 100)[i % 3])
    return replace(TABLE, table_id=i, settings=settings, spectators=i % 3)


def _mid_hand() -> TableView:
    """The sample hand later on: fuller pools, a discard Carol claimed in Bot-Bao's pool
    (her chow) and one Alice claimed in Carol's (her pung); Dan's 4m open to a chow."""
    view = claim_prompt(sample_view())
    pools = {
        0: ((T.N, T.M9, T.P1, T.S8, T.M5, T.P4, T.F, T.S1), ()),
        1: ((T.W, T.S1, T.S9, T.P9, T.M1, T.E, T.F, T.S4, T.M8, T.P3, T.N, T.P8), (7,)),
        2: ((T.P, T.S, T.M2, T.C, T.S6, T.N, T.S9, T.M9, T.W), (3,)),
        3: ((T.N, T.P2, T.M8, T.P7, T.S2, T.E, T.M1, T.S8, T.M4), ()),
    }
    for seat, (discards, taken) in pools.items():
        view = view.with_seat(seat, discards=discards, taken=taken)
    return view


def _text(screen: str, size: tuple[int, int], lang: str, ascii: bool) -> str:
    async def go() -> str:
        start = _mid_hand() if screen == "table" else claim_prompt(sample_view())
        app = OfflineApp(start, lang=lang, ascii=ascii)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await _show(app, screen)
            await pilot.pause()
            return terminal_text(app)

    text = asyncio.run(go())
    # the live countdowns
    text = re.sub(r"\d+\.\d ?(s|秒)", r"#.#\1", text)
    return re.sub(r"\d+ ?(s|秒)后开始下一盘|Next hand in \d+ s", "next-hand", text)


CASES = [
    (screen, size, lang, ascii)
    for screen in SCREENS
    for size in SIZES[screen]
    for lang, ascii in LOOKS
]


@pytest.mark.slow
@pytest.mark.parametrize(("screen", "size", "lang", "ascii"), CASES)
def test_main_screens_match_their_snapshots(screen, size, lang, ascii) -> None:
    look = f"{lang}-{'ascii' if ascii else 'unicode'}"
    path = SNAPSHOTS / f"{screen}-{size[0]}x{size[1]}-{look}.txt"
    text = _text(screen, size, lang, ascii)
    if os.environ.get("GBMJ_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, "utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with GBMJ_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text("utf-8")
    if ascii:  # nothing but ASCII (and the Chinese words of a Chinese interface)
        drawn = [c for c in text if not c.isascii() and (lang == "en" or ord(c) < 0x2E80)]
        assert not drawn, drawn[:10]
