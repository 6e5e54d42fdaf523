"""The board, laid out as a table seen from the player's chair: each other seat on its
own side (left, across, right) with its name, wind, score, melds and discard pool
together, and the player's own pool in the middle above their hand (the hand is the
screen's). The table chat (or the help) sits under the right seat, the tile counter
(when one runs) under the left. ``show(view)`` draws a ``TableView``; ``fit`` sizes the
sides and the tiles to the terminal; ``highlight(tile)`` marks a tile wherever it lies
on the table (the tile under the player's cursor)."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import RichLog

from gbmj_tui.i18n import tr, wind_letter
from gbmj_tui.model import BOTTOM, LEFT, RIGHT, TOP, TableView
from gbmj_tui.tiles import TileStyle, tile_size
from gbmj_tui.widgets.help import HelpPanel
from gbmj_tui.widgets.render import POOL_ROW
from gbmj_tui.widgets.seat import DiscardPool, SeatPanel, TileCounter

POSITIONS = {"left": LEFT, "top": TOP, "right": RIGHT, "bottom": BOTTOM}
CHAT_LINES = 100
COMPACT_WIDTH = 90  # below this many columns (or COMPACT_HEIGHT rows) drop the borders
COMPACT_HEIGHT = 28
BIG_WIDTH = 160  # from this many columns and BIG_HEIGHT rows the tiles are drawn big
BIG_HEIGHT = 50
AREA_CHROME = 2  # a side's box: its two borders
SIDE_SHARE = 0.3
CENTRE_SEAT_LINES = 3  # the seat across: its header and melds, about


def is_compact(width: int, height: int) -> bool:
    """A terminal too small for the boxes around the board's parts."""
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


def is_big(width: int, height: int) -> bool:
    """A terminal big enough for big tiles (three rows each)."""
    return width >= BIG_WIDTH and height >= BIG_HEIGHT


def side_width(width: int, compact: bool, big: bool) -> int:
    """Columns of the left and right sides: at least a full row of a pool (six tiles,
    each with its mark column) in its box, and SIDE_SHARE of a wide terminal (room for
    the melds and the chat); a third of the terminal when a pool's row does not fit."""
    chrome = 0 if compact else AREA_CHROME
    want = POOL_ROW * (tile_size(big)[0] + 1) + chrome + (1 if compact else 0)
    return min(max(want, int(width * SIDE_SHARE)), width // 3)


class Board(Horizontal):
    def __init__(self, tile_style: TileStyle, lang: str) -> None:
        super().__init__(id="board")
        self.tile_style = tile_style
        self.lang = lang
        self.big = False
        self.compact = False
        self._view: TableView | None = None  # the view last shown
        self._highlight: int | None = None
        self._shares = (1, 1)  # the centre's rows: the seat across, the player's pool
        self._own_title = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="side-left", classes="side"):
            with Vertical(id="area-left", classes="area"):
                yield SeatPanel(id="seat-left")
                yield DiscardPool(id="pool-left")
            yield TileCounter(id="counter")
        with Vertical(id="centre"):
            with Vertical(id="area-top", classes="area"):
                yield SeatPanel(id="seat-top")
                yield DiscardPool(id="pool-top")
            with Vertical(id="area-bottom", classes="area"):
                yield DiscardPool(id="pool-bottom")
        with Vertical(id="side-right", classes="side"):
            with Vertical(id="area-right", classes="area"):
                yield SeatPanel(id="seat-right")
                yield DiscardPool(id="pool-right")
            yield RichLog(
                id="table-chat", max_lines=CHAT_LINES, wrap=True, markup=False, min_width=8
            )
            yield HelpPanel(self.lang, id="help-panel")

    def on_mount(self) -> None:
        self.query_one("#table-chat", RichLog).border_title = tr("Chat", self.lang)
        self.query_one(HelpPanel).display = False

    def _tiles(self) -> list[SeatPanel | DiscardPool]:
        """Every widget that draws tiles on the table, the player's melds included."""
        panels = list(self.screen.query(SeatPanel))
        return [*panels, *self.query(DiscardPool)]

    def fit(self, width: int, compact: bool, big: bool = False) -> None:
        """The sides as wide as a pool's row, the centre the rest; tiles big or small."""
        side = side_width(width, compact, big)
        if compact != self.compact:
            self.compact = compact
            if self._view is not None:
                self._share_centre(self._view)
        with contextlib.suppress(NoMatches):
            for name in ("#side-left", "#side-right"):
                self.query_one(name).styles.width = side
        if big != self.big:
            self.big = big
            for widget in self._tiles():
                widget.big = big

    def highlight(self, tile: int | None) -> None:
        """Mark ``tile`` in every pool and meld (None: nothing)."""
        if tile != self._highlight:
            self._highlight = tile
            for widget in self._tiles():
                widget.highlight = tile

    def _share_centre(self, view: TableView) -> None:
        """On a small terminal the centre's height is shared between the seat across and
        the player's pool in proportion to what each has to show (their rows of tiles,
        the seat's lines), so that neither hides tiles the other has room for; a larger
        one has room for both in halves (and spares the new layouts)."""
        rows = tile_size(self.big)[1]
        top, bottom = (-(-len(view.seat_at(p).discards) // POOL_ROW) for p in (TOP, BOTTOM))
        lines = (CENTRE_SEAT_LINES + max(top, 1) * rows, 1 + max(bottom, 1) * rows)
        if not self.compact:
            lines = (1, 1)
        if lines != self._shares:  # a new layout only when a pool gains a row
            self._shares = lines
            for name, share in zip(("#area-top", "#area-bottom"), lines, strict=True):
                self.query_one(name).styles.height = f"{share}fr"

    def toggle_help(self) -> None:
        """The help beside the board (the chat's place): the table stays in sight."""
        help_panel = self.query_one(HelpPanel)
        help_panel.display = not help_panel.display
        self.query_one("#table-chat").display = not help_panel.display

    def show(self, view: TableView) -> None:
        """The seats and the pools of ``view`` (the bottom seat's panel is the screen's)."""
        style, lang = self.tile_style, self.lang
        spectator = view.me is None
        self._view = view
        for name, position in POSITIONS.items():
            seat = view.seat_at(position)
            turn = view.turn == seat.seat and view.playing
            panel = self.screen.query_one(f"#seat-{name}", SeatPanel)
            panel.tile_style, panel.lang = style, lang
            panel.big, panel.highlight = self.big, self._highlight
            # The panel draws no discards: a discard changes no panel, so no new layout.
            panel.seat = replace(seat, discards=(), taken=())
            panel.dealer = seat.seat == view.dealer and view.match_running
            panel.waiting = not view.match_running
            panel.show_count = (position != BOTTOM or spectator) and view.match_running
            pool = self.query_one(f"#pool-{name}", DiscardPool)
            pool.tile_style, pool.big, pool.highlight = style, self.big, self._highlight
            pool.discards = seat.discards
            pool.taken = seat.taken
            pool.last = view.last_discard == seat.seat
            pool.centre = position in (TOP, BOTTOM)
            pool.bottom = position == BOTTOM
            area = self.query_one(f"#area-{name}")
            area.set_class(turn, "-turn")
            if position == BOTTOM:  # the player's own pool: whose, on its box
                title = Text(f"[{wind_letter(seat.wind, lang)}] {seat.name or tr('empty', lang)}")
                if title.plain != self._own_title:  # a plain Text: a name is no markup
                    self._own_title = title.plain
                    area.border_title = title
        self._share_centre(view)
        counter = self.query_one(TileCounter)
        counter.lang, counter.tile_style = lang, style
        counter.counts = view.unseen
