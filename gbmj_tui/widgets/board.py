"""The board: the other three seats left, top and right around the four discard pools
in the centre (each under its seat's wind); the table chat (or the help) beside the
right seat and the tile counter (when one runs) under the left. ``show(view)`` draws
the seats and pools of a ``TableView``; the centre's width follows the terminal."""

from __future__ import annotations

import contextlib

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import RichLog

from gbmj_tui.i18n import tr
from gbmj_tui.model import BOTTOM, LEFT, RIGHT, TOP, TableView
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets.help import HelpPanel
from gbmj_tui.widgets.seat import DiscardPool, SeatPanel, TileCounter, pool_label

POSITIONS = {"left": LEFT, "top": TOP, "right": RIGHT, "bottom": BOTTOM}
CHAT_LINES = 100
# The centre holds two pools side by side: six 4-column tiles and the last-discard mark
# each (25 columns), 30 with a space between tiles, up to nine tiles a row on a wide
# terminal; around them a box and padding (4 columns) unless the screen is compact.
POOL_NARROW, POOL_WIDEST, POOL_CHROME, SIDE_WANTED = 25, 45, 4, 30
COMPACT_WIDTH = 90  # below this many columns (or COMPACT_HEIGHT rows) drop the borders
COMPACT_HEIGHT = 28


def is_compact(width: int, height: int) -> bool:
    """A terminal too small for the boxes around the board's parts."""
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


class Board(Horizontal):
    def __init__(self, tile_style: TileStyle, lang: str) -> None:
        super().__init__(id="board")
        self.tile_style = tile_style
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="side-left", classes="side"):
            with Vertical(id="area-left", classes="area"):
                yield SeatPanel(id="seat-left")
            yield TileCounter(id="counter")
        with Vertical(id="centre"):
            with Vertical(id="area-top", classes="area"):
                yield SeatPanel(id="seat-top")
            with Vertical(id="pools"):
                yield DiscardPool(id="pool-top")
                with Horizontal(id="pools-middle"):
                    yield DiscardPool(id="pool-left")
                    yield DiscardPool(id="pool-right")
                yield DiscardPool(id="pool-bottom")
        with Vertical(id="side-right", classes="side"):
            with Vertical(id="area-right", classes="area"):
                yield SeatPanel(id="seat-right")
            yield RichLog(
                id="table-chat", max_lines=CHAT_LINES, wrap=True, markup=False, min_width=8
            )
            yield HelpPanel(self.lang, id="help-panel")

    def on_mount(self) -> None:
        self.query_one("#table-chat", RichLog).border_title = tr("Chat", self.lang)
        self.query_one(HelpPanel).display = False

    def fit(self, width: int, compact: bool) -> None:
        """The pools get what they need, up to nine tiles a row; the side seats the rest."""
        chrome = 0 if compact else POOL_CHROME
        least, most = 2 * POOL_NARROW + 1 + chrome, 2 * POOL_WIDEST + 1 + chrome
        centre = max(least, min(width - 2 * SIDE_WANTED, most))
        with contextlib.suppress(NoMatches):
            self.query_one("#centre").styles.width = centre

    def toggle_help(self) -> None:
        """The help beside the board (the chat's place): the table stays in sight."""
        help_panel = self.query_one(HelpPanel)
        help_panel.display = not help_panel.display
        self.query_one("#table-chat").display = not help_panel.display

    def show(self, view: TableView) -> None:
        """The seats and the pools of ``view`` (the bottom seat's panel is the screen's)."""
        style, lang = self.tile_style, self.lang
        spectator = view.me is None
        for name, position in POSITIONS.items():
            seat = view.seat_at(position)
            turn = view.turn == seat.seat and view.playing
            panel = self.screen.query_one(f"#seat-{name}", SeatPanel)
            panel.tile_style, panel.lang = style, lang
            panel.seat = seat
            panel.dealer = seat.seat == view.dealer and view.match_running
            panel.waiting = not view.match_running
            panel.show_count = (position != BOTTOM or spectator) and view.match_running
            pool = self.query_one(f"#pool-{name}", DiscardPool)
            pool.tile_style = style
            pool.discards = seat.discards
            pool.last = view.last_discard == seat.seat
            pool.centre = position in (TOP, BOTTOM)
            pool.label = pool_label(seat, lang, turn=turn)
            if position != BOTTOM:
                self.query_one(f"#area-{name}").set_class(turn, "-turn")
        counter = self.query_one(TileCounter)
        counter.lang, counter.tile_style = lang, style
        counter.counts = view.unseen
