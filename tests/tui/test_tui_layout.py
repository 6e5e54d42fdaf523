"""The table read as a table, in Textual's pilot: the tile under the hand's cursor marked
in every pool and meld, a claimed discard left marked in its pool, and a small terminal
(80x24, Chinese faces) where each seat's tiles stay apart from the next seat's and
from each other."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from tui_harness import OfflineApp, TableHost, screen_text, widget_text
from tui_sample import sample_view, turn_prompt

from gbmj_tui.model import TableView
from gbmj_tui.reducers import apply_event
from gbmj_tui.tiles import HIGHLIGHTED, TileStyle, face, tile_size
from gbmj_tui.widgets import DiscardPool, HandRow, SeatPanel
from gbmj_tui.widgets.board import Board, is_big
from gbmj_tui.widgets.render import TAKEN_MARK, pool_layout
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile as T

TABLE = 0


def _lit(widget: DiscardPool | SeatPanel) -> list[str]:
    """The tiles a widget draws highlighted, as their text."""
    text = widget.render()
    assert isinstance(text, Text)
    out = []
    for span in text.spans:
        style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
        face = text.plain[span.start : span.end].strip(" │|")
        if style.bgcolor == HIGHLIGHTED.bgcolor and face.isalnum():  # not a big tile's edge
            out.append(face)
    return out


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_the_tile_under_the_cursor_is_marked_in_every_pool_and_meld(size) -> None:
    """The hand's keys move the cursor; the same tile lights up wherever it lies on the
    table: Bot-Bao's pool for East, Carol's chow (3s 4s 5s) for 5s, nothing for 4p."""
    view = turn_prompt(sample_view())  # the hand: 2m 3m 4p 6p 7p 5s 5s 6s 7s E, drawn 5p

    async def go():
        app = TableHost(view, TileStyle.ASCII, "en")
        seen = {}
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            for key in ("0", "6", "3"):
                await pilot.press(key)
                await pilot.pause()
                seen[key] = {
                    "right pool": _lit(screen.query_one("#pool-right", DiscardPool)),
                    "top seat": _lit(screen.query_one("#seat-top", SeatPanel)),
                    "left pool": _lit(screen.query_one("#pool-left", DiscardPool)),
                    "hand": screen.query_one(HandRow).selected_tile,
                }
        return seen

    seen = asyncio.run(go())
    east = seen["0"]
    assert east["hand"] == T.E
    assert east["right pool"] == ["E"] and east["top seat"] == [] and east["left pool"] == []
    five = seen["6"]
    assert five["hand"] == T.S5 and five["top seat"] == ["5s"] and five["right pool"] == []
    assert seen["3"]["hand"] == T.P4
    assert not any(seen["3"][k] for k in ("right pool", "top seat", "left pool"))


def test_a_spectator_has_no_highlight() -> None:
    def check(app, pilot):
        return [_lit(p) for p in app.screen.query(DiscardPool)]

    async def go():
        app = TableHost(sample_view(me=None), TileStyle.ASCII, "en")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return check(app, pilot)

    assert asyncio.run(go()) == [[], [], [], []]


@pytest.mark.parametrize(("lang", "ascii"), [("zh", False), ("en", True)])
def test_a_claimed_discard_stays_in_its_pool_marked(lang, ascii) -> None:
    """Dan discards 4m, Bot-Bao pungs it: the 4m stays last in Dan's pool, struck and
    marked as taken, and Dan's later discards follow it."""
    view = replace(sample_view(), seq=40)
    steps = [
        m.Event(table_id=TABLE, seq=41, event=m.Discard(seat=3, tile=T.M4)),
        m.Event(
            table_id=TABLE,
            seq=42,
            event=m.Pung(seat=1, tiles=(T.M4,) * 3, claimed_tile=T.M4, from_seat=3),
        ),
        m.Event(table_id=TABLE, seq=43, event=m.Discard(seat=1, tile=T.S2)),
        m.Event(table_id=TABLE, seq=44, event=m.Discard(seat=2, tile=T.S3)),
        m.Event(table_id=TABLE, seq=45, event=m.Discard(seat=3, tile=T.P9)),
    ]

    async def go():
        app = OfflineApp(view, lang=lang, ascii=ascii)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            for step in steps:
                app.push(step)
                await pilot.pause()
            pool = app.screen.query_one("#pool-left", DiscardPool)
            return widget_text(pool), pool.render()

    text, rendered = asyncio.run(go())
    style = TileStyle.ASCII if ascii else TileStyle.CJK
    tiles = [face(t, style) for t in (T.N, T.P2, T.M8, T.M4, T.M4, T.P9)]
    gap = " " if lang == "zh" else ""  # 九饼 fills its cells: the mark keeps off it
    row = " ".join(tiles[:4]) + " " + tiles[4] + TAKEN_MARK + gap + tiles[5] + "*"
    assert text.split("\n")[0] == row, text
    assert isinstance(rendered, Text)
    struck = [
        rendered.plain[s.start : s.end]
        for s in rendered.spans
        if (s.style if isinstance(s.style, Style) else Style.parse(s.style)).strike
    ]
    assert struck == [tiles[4]]  # the claimed copy, not the one Dan discarded before


@pytest.mark.parametrize(("lang", "ascii"), [("zh", False), ("en", True)])
def test_at_80x24_no_two_seats_tiles_run_together(lang, ascii) -> None:
    """Full pools at 80x24: every pool's tiles each followed by a space or a mark (never
    ``八条五万``), all of them in sight or counted; where two seats' pools share screen
    lines a rule stands between them."""
    style = TileStyle.ASCII if ascii else TileStyle.CJK
    view = turn_prompt(sample_view())
    pools = {
        0: (T.N, T.M9, T.P1, T.S8, T.M5, T.P4, T.M4, T.S7, T.S7, T.S1, T.S6, T.N),
        1: (T.W, T.S1, T.S9, T.P9, T.M1, T.E, T.F, T.M8, T.M5, T.P4, T.M4, T.S7, T.S7),
        2: (T.P, T.S, T.M2, T.S1, T.S6, T.N, T.S9, T.M9, T.P, T.M8, T.M5, T.P4),
        3: (T.M8, T.M5, T.P4, T.M4, T.S7, T.S7, T.S1, T.S6, T.N, T.S9, T.M9, T.P, T.M4),
    }
    for seat, discards in pools.items():
        view = view.with_seat(seat, discards=discards)

    async def go():
        app = TableHost(view, style, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            found = {}
            for name in ("left", "top", "right", "bottom"):
                pool = app.screen.query_one(f"#pool-{name}", DiscardPool)
                found[name] = (pool.region, widget_text(pool), pool.discards)
            return found, screen_text(app).split("\n")

    found, lines = asyncio.run(go())
    for name, (region, text, discards) in found.items():
        rows = [r for r in text.split("\n") if r.strip()]
        hidden = int(rows.pop(0).strip()[1:]) if rows[0].strip().startswith("+") else 0
        shown = discards[hidden:]
        per_row = pool_layout(region.width)
        assert hidden % per_row == 0 and per_row == 5, (name, text)  # five a row fit
        for n, row in enumerate(rows):
            tiles = shown[n * per_row : (n + 1) * per_row]
            # each tile's four columns, then one of its own: a space, or the last mark
            marks = [" "] * len(tiles)
            if name == "left" and n == len(rows) - 1:
                marks[-1] = "*"  # Dan's 4m is the table's last discard
            expected = "".join(face(t, style) + k for t, k in zip(tiles, marks, strict=True))
            assert expected.rstrip() in row and row.strip() == expected.strip(), (name, row)
    # side by side: left | across and the player's own | right, a rule between
    left, top, right = (found[n][0] for n in ("left", "top", "right"))
    for y in range(top.y, top.bottom):
        cells = _cells(lines[y])
        assert left.right <= top.x and "|" in cells[left.right : top.x + 1], lines[y]
        assert top.right <= right.x and "|" in cells[top.right - 1 : right.x], lines[y]


def _cells(line: str) -> list[str]:
    """A screen line by columns (a wide character, then an empty column)."""
    out: list[str] = []
    for char in line:
        out.extend([char, ""] if cell_len(char) == 2 else [char])
    return out


def test_the_tiles_grow_and_shrink_with_the_terminal() -> None:
    """200x60 draws big tiles (boxes) in the hand, the melds and the pools; back at
    80x24 they are one line again, and nothing is cut off the right edge."""
    view = turn_prompt(sample_view())

    async def go():
        app = TableHost(view, TileStyle.CJK, "zh")
        seen = []
        async with app.run_test(size=(80, 24)) as pilot:
            for size in ((200, 60), (80, 24)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                hand = app.screen.query_one(HandRow)
                pools = [p.big for p in app.screen.query(DiscardPool)]
                panels = [p.big for p in app.screen.query(SeatPanel)]
                seen.append((hand.big, hand.region.height, pools, panels, screen_text(app)))
        return seen

    (big, rows, pools, panels, text), (small, rows_after, *_, text_after) = asyncio.run(go())
    assert big and rows == 5 and all(pools) and all(panels)
    assert "╭────╮" in text and "│五饼│" in text  # the drawn 5p, lifted, in its box
    assert not small and rows_after == 3 and "╭" not in text_after
    assert max(cell_len(line) for line in text_after.split("\n")) <= 80


def test_the_players_pool_names_them_in_plain_text() -> None:
    view = sample_view().with_seat(0, name="[b]Eve[/b]")

    async def go():
        app = TableHost(view, TileStyle.ASCII, "en")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return widget_text(app.screen.query_one("#area-bottom")).split("\n")[0]

    assert "[W] [b]Eve[/b]" in asyncio.run(go())


def _discards(turns: bool) -> list[TableView]:
    """The sample hand, then 14 discards by the other seats, one view each (no
    countdown: two runs' clocks differ); ``turns``: each seat's turn comes before its
    discard (the turn's shade moves)."""
    view = replace(sample_view(), timer=None)
    steps = [view]
    for i in range(14):
        seat = 1 + i % 3
        view = replace(view, turn=seat) if turns else view
        view = apply_event(view, "discard", seat=seat, tile=T(i % 27))
        steps.append(replace(view, timer=None))
    return steps


async def _shown(size, views, then=None):
    """The table after ``views`` shown one by one (and ``then(app)``): the screen's text
    and every pool's and seat panel's cells with their colours."""
    app = TableHost(views[0])
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for v in views[1:]:
            app.table.show(v)
            await pilot.pause()
        app.table.query_one(Board).highlight(T.M1)
        await pilot.pause()
        if then is not None:
            then(app)
        drawn = []
        for widget in (*app.screen.query(DiscardPool), *app.screen.query(SeatPanel)):
            region = widget.region
            strips = widget.render_lines(Region(0, 0, region.width, region.height))
            drawn.append([(s.text, s.style) for strip in strips for s in strip])
        return screen_text(app), drawn


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
@pytest.mark.parametrize("turns", [False, True])
def test_a_table_redrawn_event_by_event_reads_as_one_drawn_at_once(size, turns) -> None:
    """Discards (and turns) and a moved cursor shown one by one draw what the last view
    drawn at once draws, colours and all: no line kept from before a change."""
    steps = _discards(turns)
    assert asyncio.run(_shown(size, steps)) == asyncio.run(_shown(size, steps[-1:]))


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_a_discard_repaints_only_the_lines_it_changed(size, monkeypatch) -> None:
    """A discard marks dirty only the lines it changed in a pool (a row of tiles at
    most): a pool's place is fixed, a new row fills lines of it without a new layout."""
    marked: list[tuple[int, bool]] = []  # each pool refresh: lines marked (0: all), layout
    recording = [False]
    original = DiscardPool.refresh

    def refresh(self, *regions, **kwargs):
        if recording[0]:
            marked.append((sum(r.height for r in regions), bool(kwargs.get("layout"))))
        return original(self, *regions, **kwargs)

    steps = _discards(turns=False)
    monkeypatch.setattr(DiscardPool, "refresh", refresh)

    async def go():
        app = TableHost(steps[0])
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            recording[0] = True
            for v in steps[1:]:
                app.table.show(v)
                await pilot.pause()
            recording[0] = False

    asyncio.run(go())
    rows = tile_size(is_big(*size))[1]
    regions = [lines for lines, _ in marked if lines]
    wholes = [layout for lines, layout in marked if not lines]
    assert regions and all(lines <= rows for lines in regions), marked
    # A whole pool only with a new layout: on a small terminal the centre's rows are
    # shared anew when its pools gain a row; a large one has room and never re-lays out.
    assert all(wholes) and len(wholes) < len(regions), marked
    assert not wholes or size == (80, 24), marked


@pytest.mark.parametrize(("lang", "ascii"), [("zh", False), ("en", True)])
def test_a_snapshot_shows_claimed_discards_marked_where_they_lay(lang, ascii) -> None:
    """A spectator joining (or a player coming back) mid-hand: the snapshot says seat 3
    gave away its first and third discards (a chow's 2m, a pung's E); its pool shows
    them back at their places, struck and marked as taken, as a live viewer saw it."""
    example = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Snapshot))
    snapshot = replace(example, seat=None)  # a spectator
    giver = snapshot.game.seats[3]
    assert giver.claimed == ((0, T.M2), (2, T.E)) and giver.discards == (T.S9, T.P1)

    async def go():
        start = replace(sample_view(), table_id=snapshot.table.table_id)
        app = OfflineApp(start, lang=lang, ascii=ascii)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.push(snapshot)
            await pilot.pause()
            pools = [p for p in app.screen.query(DiscardPool) if p.taken]
            return [(p.discards, p.taken, widget_text(p), p.render()) for p in pools]

    pools = asyncio.run(go())
    assert len(pools) == 1
    discards, taken, text, rendered = pools[0]
    assert discards == (T.M2, T.S9, T.E, T.P1) and taken == (0, 2)
    style = TileStyle.ASCII if ascii else TileStyle.CJK
    faces = [face(t, style).strip() for t in discards]
    row = faces[0] + TAKEN_MARK + faces[1] + faces[2] + TAKEN_MARK + faces[3]
    assert text.strip().split("\n")[0].replace(" ", "") == row, text
    struck = [
        rendered.plain[s.start : s.end]
        for s in rendered.spans
        if (s.style if isinstance(s.style, Style) else Style.parse(s.style)).strike
    ]
    assert [s.strip() for s in struck] == [faces[0], faces[2]]
