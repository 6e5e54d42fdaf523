"""The player's hand: sorted concealed tiles, the drawn tile apart, and a selection cursor.

Keyboard: Left/Right (and Home/End) move the cursor; the keys shown under the tiles
(``1``-``9``, ``0``, ``-``, ``=``, ``[``, ``]``) select a tile at once; Enter, or the
same key again, discards it. Mouse: a click selects, a second click discards. Only a
tile the player picked is discarded by a second key or click, never one the cursor
merely rests on. The selected tile is drawn lifted a row above the others, with its key
under it in brackets, so the tile a key picked is never in doubt. The hand takes keys
only while it is ``active`` (the player's turn); otherwise they pass on to the screen
(the claim bar uses the number keys, the arrows and Enter). On a big terminal the tiles
are big (``big``: boxes three rows high).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from gbmj_tui.tiles import TileStyle, tile_lines, tile_size

KEY_LABELS = "1234567890-=[]"  # one key per hand position, left to right
GAP = 1  # columns between tiles
DRAWN_GAP = 3  # columns before the drawn tile


class HandRow(Widget, can_focus=True):
    """A row of the player's tiles with a cursor; posts ``Selected`` and ``Discard``."""

    DEFAULT_CSS = """
    HandRow { height: auto; width: 1fr; }
    """

    tiles: reactive[tuple[int, ...]] = reactive((), layout=True)
    drawn: reactive[int | None] = reactive(None, layout=True)
    cursor: reactive[int] = reactive(0)
    active: reactive[bool] = reactive(False)
    tile_style: reactive[TileStyle] = reactive(TileStyle.CJK)
    big: reactive[bool] = reactive(False, layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._armed: int | None = None  # the index the player picked by key or click

    class Selected(Message):
        """The cursor moved to a tile."""

        def __init__(self, index: int, tile: int) -> None:
            super().__init__()
            self.index = index
            self.tile = tile

    class Discard(Message):
        """The player asks to discard this tile."""

        def __init__(self, tile: int) -> None:
            super().__init__()
            self.tile = tile

    # -- values ---------------------------------------------------------------------------
    @property
    def all_tiles(self) -> tuple[int, ...]:
        """The hand left to right: sorted tiles, then the drawn tile if any."""
        return self.tiles if self.drawn is None else (*self.tiles, self.drawn)

    @property
    def selected_tile(self) -> int | None:
        tiles = self.all_tiles
        return tiles[self.cursor] if 0 <= self.cursor < len(tiles) else None

    def set_hand(self, tiles: tuple[int, ...], drawn: int | None) -> None:
        """New tiles; the cursor goes to the rightmost tile when the player has one to
        discard (a new draw, or a hand of 14, 11, 8... after a deal or claim)."""
        changed = drawn != self.drawn or tiles != self.tiles
        self.tiles = tiles
        self.drawn = drawn
        count = len(self.all_tiles)
        if changed:
            self._armed = None
            if count % 3 == 2:
                self.cursor = count - 1
        self.cursor = min(self.cursor, max(count - 1, 0))

    def x_of(self, index: int) -> int:
        """The column where the tile at ``index`` starts."""
        x = index * (tile_size(self.big)[0] + GAP)
        if self.drawn is not None and index == len(self.tiles):
            x += DRAWN_GAP - GAP
        return x

    def index_at(self, x: int) -> int | None:
        width = tile_size(self.big)[0]
        for i in range(len(self.all_tiles)):
            start = self.x_of(i)
            if start <= x < start + width:
                return i
        return None

    # -- drawing --------------------------------------------------------------------------
    def render(self) -> Text:
        """A row above the tiles (where the picked tile is lifted to), the tiles, and the
        key of each under it."""
        width, height = tile_size(self.big)
        lines = [Text() for _ in range(height + 2)]
        for i, tile in enumerate(self.all_tiles):
            pad = self.x_of(i) - lines[0].cell_len
            for line in lines:
                line.append(" " * pad)
            face = tile_lines(tile, self.tile_style, big=self.big, selected=i == self.cursor)
            top = 0 if i == self.cursor and self.active else 1
            for row in range(height + 1):
                part = face[row - top] if 0 <= row - top < height else Text(" " * width)
                lines[row].append_text(part)
            key = KEY_LABELS[i] if i < len(KEY_LABELS) else " "
            if i == self.cursor:  # lifted when it is the player's turn: marked by place too
                lines[-1].append(key.center(width), style="bold reverse")
            else:
                lines[-1].append(key.center(width), style="" if self.active else "dim")
        return Text("\n").join(lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        n = len(self.all_tiles)
        return self.x_of(n - 1) + tile_size(self.big)[0] if n else 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return tile_size(self.big)[1] + 2

    # -- input ----------------------------------------------------------------------------
    def move(self, step: int) -> None:
        count = len(self.all_tiles)
        if count:
            self.select((self.cursor + step) % count)

    def select(self, index: int, *, arm: bool = False) -> None:
        """Move the cursor; ``arm``: the player picked this tile, so picking it again
        discards it (a cursor the program placed is never armed)."""
        tiles = self.all_tiles
        if 0 <= index < len(tiles):
            self.cursor = index
            self._armed = index if arm else None
            self.post_message(self.Selected(index, tiles[index]))

    def discard_selected(self) -> bool:
        tile = self.selected_tile
        if not self.active or tile is None:
            return False
        self.post_message(self.Discard(tile))
        return True

    def on_key(self, event: events.Key) -> None:
        if not self.active:
            return  # not the player's turn: the keys are the claim bar's
        handled = True
        if event.key == "left":
            self.move(-1)
        elif event.key == "right":
            self.move(1)
        elif event.key == "home":
            self.select(0)
        elif event.key == "end":
            self.select(len(self.all_tiles) - 1)
        elif event.key == "enter":
            handled = self.discard_selected()
        elif event.character and event.character in KEY_LABELS:
            index = KEY_LABELS.index(event.character)
            if index == self._armed and index == self.cursor:
                self.discard_selected()
            else:
                self.select(index, arm=True)
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def on_click(self, event: events.Click) -> None:
        index = self.index_at(event.x)
        if index is None:
            return
        if index == self._armed and index == self.cursor and self.active:
            self.discard_selected()
        else:
            self.select(index, arm=True)
