"""A seat's panel and discard pool: wind, name, score, hidden-tile count, melds, flowers;
the tile counter's panel."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from gbmj_tui.i18n import tr, wind_letter
from gbmj_tui.model import SeatModel
from gbmj_tui.tiles import TileStyle, concealed_count, tile_lines
from gbmj_tui.widgets.lines import LineWidget
from gbmj_tui.widgets.render import (
    Block,
    beside,
    column,
    counter_text,
    meld_lines,
    meld_text,
    pack_blocks,
    pool_height,
    pool_text,
    width_of,
)
from gbmj_tui.words import BOT_LEVELS, PRESENCE
from protocol.vocabulary import BotLevel


def seat_header(
    seat: SeatModel,
    *,
    dealer: bool = False,
    show_count: bool = True,
    waiting: bool = False,
    style: TileStyle = TileStyle.CJK,
    lang: str = "zh",
) -> Text:
    """``[东] Alice Lv3 (庄) 25000 〓〓x13 <离线>``: wind, name, level, dealer, score,
    hidden tiles, and who controls the seat; before the match, ready or not."""
    out = Text()
    out.append(f"[{wind_letter(seat.wind, lang)}]", style="bold")
    out.append(" ")
    out.append(seat.name or tr("empty", lang), style="bold" if seat.name else "dim")
    if seat.level is not None:
        out.append(f" Lv{seat.level}", style="cyan")
    if dealer:
        out.append(f" ({tr('dealer', lang)})", style="bold yellow")
    if not waiting:
        out.append(f" {seat.score}")
    if show_count:
        out.append(" ")
        out.append_text(concealed_count(seat.concealed_count, style))
    flags = []
    if seat.bot:
        level = f" {tr(BOT_LEVELS[BotLevel(seat.bot_level)], lang)}" if seat.bot_level else ""
        flags.append(tr("bot", lang) + level)
    if (seat.name and not seat.connected) or seat.auto_play:
        flags.append(tr(PRESENCE[seat.presence], lang))
    if waiting and seat.name:
        flags.append(tr("ready" if seat.ready or seat.bot else "not ready", lang))
    if flags:
        out.append(" " + " ".join(f"<{f}>" for f in flags), style="italic")
    return out


NARROW_PANEL = 18  # below this many columns melds are written as short labels


def shown_tiles(
    seat: SeatModel,
    width: int,
    style: TileStyle,
    highlight: int | None = None,
    *,
    big: bool = False,
) -> Text | None:
    """The seat's concealed tiles where the viewer sees them (a replay), the drawn tile
    apart, wrapped to ``width``; None when they are hidden."""
    if seat.shown is None:
        return None
    tiles = [tile_lines(t, style, big=big, highlighted=t == highlight) for t in seat.shown]
    if seat.shown_drawn is not None:  # set apart by a column more
        drawn = tile_lines(
            seat.shown_drawn, style, big=big, highlighted=seat.shown_drawn == highlight
        )
        tiles.append(beside([column(" ", len(drawn)), drawn]))
    # A space between tiles when the hand fits on one line so, else as many as fit.
    spaced = sum(map(width_of, tiles)) + len(tiles) - 1 <= width
    return pack_blocks(tiles, max(width, 1), sep=1 if spaced else 0)


def seat_body(
    seat: SeatModel,
    width: int,
    style: TileStyle,
    lang: str,
    *,
    big: bool = False,
    highlight: int | None = None,
) -> Text:
    """The tiles the viewer sees (if any), then flowers and melds, packed to ``width``
    (big tiles on a big terminal; short meld labels in a narrow panel); ``highlight``:
    the tile under the player's cursor, marked in the melds too."""
    shown = shown_tiles(seat, width, style, highlight, big=big)
    chunks: list[Block] = []
    if seat.flowers:
        chunks.append(beside([tile_lines(f, style, big=big) for f in seat.flowers]))
    width = max(width, 1)
    melds = [meld_lines(m, style, big=big, highlight=highlight) for m in seat.melds]
    rest = pack_blocks(chunks + melds, width) if chunks or melds else None
    if rest is not None and melds and not big:
        # Short labels where they take fewer lines (a narrow side, a small terminal).
        labels: list[Block] = [
            (meld_text(m, style, compact=True, highlight=highlight),) for m in seat.melds
        ]
        short = pack_blocks(chunks + labels, width)
        if width < NARROW_PANEL or _lines(short) < _lines(rest):
            rest = short
    parts = [p for p in (shown, rest) if p is not None]
    return Text("\n").join(parts) if parts else Text("")


def _lines(text: Text) -> int:
    return text.plain.count("\n") + 1


class SeatPanel(LineWidget):
    """A seat's header line, then its flowers and melds (wrapped to the panel's width).
    A click on it says which seat was picked (``Picked``: to mute its player). A change
    repaints the lines it changed (a discard: the hidden-tile count in the header)."""

    class Picked(Message):
        def __init__(self, seat: SeatModel) -> None:
            super().__init__()
            self.seat = seat

    DEFAULT_CSS = """
    SeatPanel { height: auto; min-height: 1; }
    """

    # A new seat repaints the panel; a new layout only when its height changes (a
    # discard changes the hidden-tile count, not the lines: no layout for it).
    seat: reactive[SeatModel | None] = reactive(None, repaint=False)
    dealer: reactive[bool] = reactive(False, repaint=False)
    show_count: reactive[bool] = reactive(True, repaint=False)
    waiting: reactive[bool] = reactive(False, repaint=False)  # before the match: no score
    tile_style: reactive[TileStyle] = reactive(TileStyle.CJK, layout=True)
    lang: reactive[str] = reactive("zh", layout=True)
    big: reactive[bool] = reactive(False, layout=True)
    highlight: reactive[int | None] = reactive(None, repaint=False)

    def _changed(self) -> None:
        self.changed()

    watch_seat = watch_dealer = watch_show_count = watch_waiting = _changed
    watch_tile_style = watch_lang = watch_big = watch_highlight = _changed

    def _header(self) -> Text:
        assert self.seat is not None
        return seat_header(
            self.seat,
            dealer=self.dealer,
            show_count=self.show_count and self.seat.shown is None,
            waiting=self.waiting,
            style=self.tile_style,
            lang=self.lang,
        )

    def _body(self, width: int) -> Text:
        assert self.seat is not None
        return seat_body(
            self.seat, width, self.tile_style, self.lang, big=self.big, highlight=self.highlight
        )

    def on_click(self) -> None:
        if self.seat is not None:
            self.post_message(self.Picked(self.seat))

    def render(self) -> Text:
        if self.seat is None:
            return Text("")
        body = self._body(self.size.width or 30)
        header = self._header()
        return Text("\n").join([header, body]) if body.cell_len else header

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._height(width)

    def _height(self, width: int) -> int:
        if self.seat is None:
            return 1
        header_lines = len(self._header().wrap(self.app.console, max(width, 1)))
        body = self._body(width)
        return header_lines + (_lines(body) if body.cell_len else 0)


class DiscardPool(LineWidget):
    """A seat's discards, six a row, each tile apart from the next; the table's last
    discard is marked, and so are the discards another seat claimed (``taken``).

    In a place too low for every row the newest rows show (``pool_text``). A change
    repaints the lines it changed (a discard: its row, and the row of the mark it moved
    from), not the pool.
    """

    DEFAULT_CSS = """
    DiscardPool { height: auto; min-height: 1; }
    """

    # The table gives each pool a fixed share of its side: a new discard repaints the
    # lines it changed without a new layout of the screen.
    discards: reactive[tuple[int, ...]] = reactive((), repaint=False)
    taken: reactive[tuple[int, ...]] = reactive((), repaint=False)
    last: reactive[bool] = reactive(False, repaint=False)
    tile_style: reactive[TileStyle] = reactive(TileStyle.CJK)
    highlight: reactive[int | None] = reactive(None, repaint=False)
    big: reactive[bool] = reactive(False)
    centre: reactive[bool] = reactive(False, repaint=False)
    bottom: reactive[bool] = reactive(False, repaint=False)

    def _changed(self) -> None:
        self.changed()

    watch_discards = watch_taken = watch_last = watch_tile_style = _changed
    watch_highlight = watch_big = watch_centre = watch_bottom = _changed

    def render(self) -> Text:
        return pool_text(
            self.discards,
            self.tile_style,
            last=self.last,
            taken=self.taken,
            highlight=self.highlight,
            width=self.size.width,
            height=self.size.height,
            big=self.big,
            centre=self.centre,
            bottom=self.bottom,
        )

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return pool_height(
            self.discards,
            self.tile_style,
            last=self.last,
            taken=self.taken,
            width=width,
            big=self.big,
        )


class TileCounter(Widget):
    """The tile counter's panel: unseen copies of each tile; hidden when not in use."""

    DEFAULT_CSS = """
    TileCounter { height: auto; }
    """

    counts: reactive[tuple[int, ...] | None] = reactive(None, layout=True)
    lang: reactive[str] = reactive("zh")
    tile_style: reactive[TileStyle] = reactive(TileStyle.CJK)

    def watch_counts(self, counts: tuple[int, ...] | None) -> None:
        self.display = counts is not None

    def render(self) -> Text:
        if self.counts is None:
            return Text("")
        title = Text(tr("tile counter", self.lang), style="bold underline")
        return Text("\n").join([title, counter_text(self.counts, self.tile_style)])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 0 if self.counts is None else 7
