"""The mouse at the table, in Textual's pilot, read from what the screen draws (the
compositor's cells, not a widget's text): a click on a tile of the hand lights that
tile in every pool and meld; a click on a seat's panel picks its player to mute; a drag
over a pool or a seat panel selects the tiles dragged over, shown selected, and the
screen's selected text is theirs."""

from __future__ import annotations

import asyncio

import pytest
from rich.style import Style
from textual.geometry import Region
from tui_harness import TableHost
from tui_sample import sample_view, turn_prompt

from gbmj_tui.messages import MuteAsked
from gbmj_tui.tiles import HIGHLIGHTED, TileStyle
from gbmj_tui.widgets import DiscardPool, HandRow, SeatPanel
from protocol.tiles import Tile as T


class Host(TableHost):
    """The table host, keeping whom the screen asked to mute."""

    def __init__(self) -> None:
        super().__init__(turn_prompt(sample_view()), TileStyle.ASCII, "en")
        self.mute_asked: list[str | None] = []

    def on_mute_asked(self, asked: MuteAsked) -> None:
        self.mute_asked.append(asked.selected)


def _cells(app: Host, region: Region) -> list[list[tuple[str, Style | None]]]:
    """The screen's drawn segments inside ``region``, a list a line."""
    strips = app.screen._compositor.render_strips()
    rows = []
    for y in range(region.y, region.bottom):
        x, row = 0, []
        for segment in strips[y]:
            if region.x <= x < region.right:
                row.append((segment.text, segment.style))
            x += segment.cell_length
        rows.append(row)
    return rows


def _drawn_with(app: Host, region: Region, colour: object) -> list[str]:
    """The words drawn on ``colour`` inside ``region``."""
    return [
        text.strip()
        for row in _cells(app, region)
        for text, style in row
        if style is not None and style.bgcolor == colour and text.strip(" │|")
    ]


def test_a_click_on_a_tile_of_the_hand_lights_it_in_every_pool_and_meld() -> None:
    """East (the hand's 10th tile) lies in Bot-Bao's pool; 5s in Carol's chow."""

    async def go() -> dict[str, dict[str, list[str]]]:
        app = Host()
        seen = {}
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            hand = app.screen.query_one(HandRow)
            for index in (9, 5):
                x = next(x for x in range(hand.region.width) if hand.index_at(x) == index)
                await pilot.click(HandRow, offset=(x, 1))
                await pilot.pause()
                assert hand.selected_tile == hand.all_tiles[index]
                seen[str(hand.selected_tile)] = {
                    str(w.id): _drawn_with(app, w.region, HIGHLIGHTED.bgcolor)
                    for w in (*app.screen.query(DiscardPool), *app.screen.query(SeatPanel))
                }
        return seen

    seen = asyncio.run(go())
    east, five = seen[str(T.E)], seen[str(T.S5)]
    assert east.pop("pool-right") == ["E"]
    assert not any(east.values())  # nowhere else
    assert five.pop("seat-top") == ["5s"]
    assert not any(five.values())


@pytest.mark.slow
def test_a_click_on_a_seat_panel_picks_its_player_to_mute() -> None:
    """Carol across, Dan on the left; not the bot on the right, not oneself."""

    async def go() -> list[str | None]:
        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            for panel in ("#seat-top", "#seat-right", "#seat-bottom", "#seat-left"):
                await pilot.click(panel)
                await pilot.pause()
        return app.mute_asked

    assert asyncio.run(go()) == ["Carol", "Dan"]


def test_a_drag_over_a_pool_or_a_seat_selects_what_it_covers() -> None:
    """A drag over two tiles of a pool selects those two, drawn selected, the rest of
    the pool not; a drag along a seat's header selects that much of it."""

    async def go() -> tuple[str | None, list[str], list[str], str | None, str]:
        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            pool = app.screen.query_one("#pool-right", DiscardPool)
            first = pool.render().plain.splitlines()[0]  # " W    1s   9s ..."
            end = first.index("1s") + 3
            await pilot.mouse_down(pool, offset=(0, 0))
            await pilot.hover(pool, offset=(end, 0))
            await pilot.mouse_up(pool, offset=(end, 0))
            await pilot.pause()
            pool_text = app.screen.get_selected_text()
            style = app.screen.get_component_rich_style("screen--selection")
            selected = _drawn_with(app, pool.region, style.bgcolor)
            others = _drawn_with(app, Region(0, 0, 120, 40), style.bgcolor)
            panel = app.screen.query_one("#seat-top", SeatPanel)
            await pilot.mouse_down(panel, offset=(0, 0))
            await pilot.hover(panel, offset=(4, 0))
            await pilot.mouse_up(panel, offset=(4, 0))
            await pilot.pause()
            header = panel.render().plain.splitlines()[0]
            return pool_text, selected, others, app.screen.get_selected_text(), header

    pool_text, selected, everywhere, seat_text, header = asyncio.run(go())
    assert pool_text is not None and pool_text.split() == ["W", "1s"]
    assert selected == ["W", "1s"]  # drawn selected; the pool's other tiles not
    assert everywhere == selected  # nor anything outside the pool
    assert seat_text is not None and header.startswith(seat_text) and 0 < len(seat_text) < 8
