"""Snapshot tests: the table screen's text at 100x32 and 80x24 in both tile styles,
compared with the files in tests/tui/snapshots/. After an intended change to the
layout, look at the new screens and rewrite them with

    GBMJ_UPDATE_SNAPSHOTS=1 uv run pytest tests/tui/test_tui_snapshots.py
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from tui_harness import TableHost, screen_text
from tui_sample import claim_prompt, sample_view

from gbmj_tui.tiles import TileStyle

SNAPSHOTS = Path(__file__).parent / "snapshots"
CASES = [
    (size, style, lang)
    for size in ((100, 32), (80, 24))
    for style, lang in ((TileStyle.CJK, "zh"), (TileStyle.ASCII, "en"))
]


def _screen(size: tuple[int, int], style: TileStyle, lang: str) -> str:
    async def go() -> str:
        app = TableHost(claim_prompt(sample_view()), style, lang)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return screen_text(app)

    text = asyncio.run(go())
    return re.sub(r"\d+\.\d(s|秒)", r"#.#\1", text) + "\n"  # the live countdown


@pytest.mark.parametrize(("size", "style", "lang"), CASES)
def test_table_screen_matches_its_snapshot(size, style, lang) -> None:
    path = SNAPSHOTS / f"table-{size[0]}x{size[1]}-{style.value}.txt"
    text = _screen(size, style, lang)
    if os.environ.get("GBMJ_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, "utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with GBMJ_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text("utf-8")
