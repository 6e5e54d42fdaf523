"""Pure text rendering shared by the widgets: melds, discard pools, packing to a width.

Tiles are drawn small (a line) or big (a box three rows high, ``tiles.tile_lines``); a
``Block`` is the lines of one thing drawn (a tile, a meld, a row of a pool), all of the
same width, so that blocks of either size pack side by side in the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from gbmj_tui.model import MeldModel
from gbmj_tui.tiles import (
    HIGHLIGHTED,
    TILE_STYLES,
    TileStyle,
    claimed_from_mark,
    face,
    style_name,
    tile_lines,
    tile_size,
    tiles_label,
)

Block = tuple[Text, ...]  # the lines of one drawn thing, top to bottom, of one width
POOL_ROW = 6  # discards a row, as on a real table
LAST_MARK = "*"  # drawn after the table's last discard (besides reverse video)
TAKEN_MARK = "~"  # drawn after a discard another seat claimed (besides its struck face)


def width_of(block: Block) -> int:
    return max((line.cell_len for line in block), default=0)


def column(text: str, height: int, style: str = "") -> Block:
    """``text`` on the middle line of ``height`` lines (a mark beside big tiles)."""
    blank = " " * cell_len(text)
    style = style if text.strip() else ""  # a blank needs no style (nor a span)
    return tuple(Text(text if i == height // 2 else blank, style=style) for i in range(height))


def beside(blocks: Sequence[Block], gap: int = 0) -> Block:
    """Blocks left to right, tops aligned, ``gap`` spaces apart; a shorter block is
    padded with blank lines."""
    height = max((len(b) for b in blocks), default=0)
    lines = [Text() for _ in range(height)]
    for n, block in enumerate(blocks):
        w = width_of(block)
        for i, line in enumerate(lines):
            if n and gap:
                line.append(" " * gap)
            part = block[i] if i < len(block) else Text()
            line.append_text(part)
            line.append(" " * (w - part.cell_len))
    return tuple(lines)


def meld_text(
    meld: MeldModel,
    style: TileStyle = TileStyle.CJK,
    *,
    compact: bool = False,
    highlight: int | None = None,
) -> Text:
    """A meld's tiles side by side and, for a claimed meld, whom it came from.

    The claimed tile is underlined; a concealed kong shows its two outer tiles face down
    (all four when the viewer may not see the tile). ``compact`` writes the meld as a
    short label in its suit's colour (``三四五万上``), for a narrow seat panel.
    ``highlight``: the tile the player's cursor is on, marked here too.
    """
    if compact:
        if meld.tile is None:  # another seat's concealed kong: face down
            return Text("〓" * 4 if style is TileStyle.CJK else "#" * 8, style=TILE_STYLES["back"])
        known = tuple(t for t in meld.tiles if t is not None)
        out = Text(tiles_label(known, style), style=TILE_STYLES[style_name(meld.tile)])
        if highlight is not None and highlight in known:
            out.stylize(HIGHLIGHTED)
        if not meld.concealed:
            out.append(claimed_from_mark(meld.claimed_from, style), style="bold")
        return out
    return meld_lines(meld, style, highlight=highlight)[0]


def meld_lines(
    meld: MeldModel,
    style: TileStyle = TileStyle.CJK,
    *,
    big: bool = False,
    highlight: int | None = None,
) -> Block:
    """A meld as a block: its tiles (small or big) and, claimed, whom from."""
    tiles = meld.tiles
    if meld.concealed:
        faces = (None, meld.tile, meld.tile, None) if meld.tile is not None else tiles
        return beside(
            [tile_lines(t, style, big=big, highlighted=_lit(t, highlight)) for t in faces]
        )
    blocks: list[Block] = []
    claimed_done = False
    for t in tiles:
        claimed = not claimed_done and t == meld.claimed_tile
        claimed_done |= claimed
        lit = _lit(t, highlight)
        blocks.append(tile_lines(t, style, big=big, claimed=claimed, highlighted=lit))
    height = tile_size(big)[1]
    blocks.append(column(claimed_from_mark(meld.claimed_from, style), height, "bold"))
    return beside(blocks)


def _lit(tile: int | None, highlight: int | None) -> bool:
    return tile is not None and tile == highlight


def pack_blocks(blocks: Sequence[Block], width: int, sep: int = 1) -> Text:
    """Blocks left to right, ``sep`` spaces apart, starting a new band of lines where the
    next one would pass ``width``."""
    bands: list[list[Block]] = [[]]
    used = 0
    for block in blocks:
        need = width_of(block) + (sep if bands[-1] else 0)
        if bands[-1] and used + need > width:
            bands.append([])
            used, need = 0, width_of(block)
        bands[-1].append(block)
        used += need
    # Every line of a band as wide as the band: big tiles stay in line when centred.
    lines = [line for band in bands for line in beside(band, sep)]
    return Text("\n").join(lines) if lines else Text("")


def pack(chunks: Sequence[Text], width: int, sep: int = 1) -> Text:
    """Chunks left to right, separated by ``sep`` spaces, starting new lines at ``width``."""
    return pack_blocks([(chunk,) for chunk in chunks], width, sep)


class Packed:
    """Chunks packed (``pack``) to the width they are drawn in: a chunk never breaks
    across lines while it fits on one (a fan's name, ``Pung of Terminals or Honors``)."""

    def __init__(self, chunks: Sequence[Text], sep: int = 1) -> None:
        self.chunks, self.sep = tuple(chunks), sep

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield pack(self.chunks, options.max_width, self.sep)


def pool_layout(width: int, big: bool = False) -> int:
    """Tiles a row of a pool ``width`` columns wide: six as on a real table, fewer when
    they do not fit; each tile is followed by a column for its mark (a space, else)."""
    return max(1, min(POOL_ROW, width // (tile_size(big)[0] + 1)))


def mark_gap(mark: str, following: Block) -> int:
    """Blank columns between a tile's mark and the tile after it: none after a blank
    mark, nor before a face that opens with a blank of its own (`` 3m ``, `` 东 ``); one
    before a face that fills its cells, so that a mark never touches the next tile and
    reads as its own tile's (``二万~ 三万``, ``|二万|~ |三万|``), in every style."""
    middle = following[len(following) // 2].plain
    return 1 if mark.strip() and not middle[:1].isspace() else 0


PoolRow = tuple[int, Block]  # a row of a pool: how many tiles, and its lines


def pool_rows(
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    taken: Sequence[int] = (),
    highlight: int | None = None,
    width: int = 30,
    big: bool = False,
) -> list[PoolRow]:
    """A discard pool in rows, each tile followed by its mark: ``LAST_MARK`` after the
    table's last discard (``last``: the newest tile is it), ``TAKEN_MARK`` after one
    another seat claimed (the indexes ``taken``, drawn struck through), a space after
    the others so that no two tiles touch (``mark_gap``). A row takes ``pool_layout``
    tiles, one fewer where the gap after a mark would pass ``width``. ``highlight``: a
    tile marked wherever it lies (the tile under the player's cursor). The rows are
    shared (kept for the next redraw): a caller copies a line before changing it."""
    per_row = pool_layout(width, big)
    taken_at = frozenset(taken)
    marks = "".join(
        LAST_MARK if last and i == len(discards) - 1 else (TAKEN_MARK if i in taken_at else " ")
        for i in range(len(discards))
    )
    rows: list[PoolRow] = []
    start = 0
    while start < len(discards):
        end = min(start + per_row, len(discards))
        while True:
            tiles = tuple(discards[start:end])
            lit = highlight if highlight in tiles else None
            row = _pool_row(tiles, marks[start:end], lit, style, big)
            # the last tile's blank mark column may fall outside (``pool_text`` crops)
            cells = width_of(row) - (marks[end - 1] == " ")
            if cells <= width or end - start == 1:
                break
            end -= 1
        rows.append((end - start, row))
        start = end
    return rows


@lru_cache(maxsize=512)
def _pool_row(
    tiles: tuple[int, ...], marks: str, highlight: int | None, style: TileStyle, big: bool
) -> Block:
    """One row of a pool, each tile followed by its mark (the same row is drawn again
    after most events: kept). The blocks are never changed after: callers copy."""
    height = tile_size(big)[1]
    faces = [
        tile_lines(
            tile,
            style,
            big=big,
            marked=mark == LAST_MARK,
            taken=mark == TAKEN_MARK,
            highlighted=tile == highlight and mark != TAKEN_MARK,
        )
        for tile, mark in zip(tiles, marks, strict=True)
    ]
    blocks: list[Block] = []
    for i, (block, mark) in enumerate(zip(faces, marks, strict=True)):
        blocks += [block, column(mark, height, "bold")]
        if i + 1 < len(faces) and mark_gap(mark, faces[i + 1]):
            blocks.append(column(" ", height))
    return beside(blocks)


def pool_text(
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    taken: Sequence[int] = (),
    highlight: int | None = None,
    width: int = 30,
    height: int = 0,
    big: bool = False,
    centre: bool = False,
    bottom: bool = False,
) -> Text:
    """A pool drawn in ``width`` columns (``pool_rows``).

    With a ``height`` too small for every row, the newest rows are kept under a line
    that says how many older tiles are hidden (``+12``): the last discards are the ones
    a player reads. ``centre`` puts the rows in the middle of ``width``, ``bottom`` at
    the foot of ``height`` (the player's own pool, next to their hand).
    """
    rows = pool_rows(
        discards, style, last=last, taken=taken, highlight=highlight, width=width, big=big
    )
    tile_rows = tile_size(big)[1]
    head: list[Text] = []
    if height and len(rows) * tile_rows > height:
        keep = max((height - 1) // tile_rows, 1)
        hidden = sum(count for count, _ in rows[:-keep])
        rows = rows[-keep:]
        head = [Text(f"+{hidden}", style="dim")]
    lines = [line for _, row in rows for line in row]  # shared rows: never changed here
    widest = max((width_of(row) for _, row in rows), default=0)
    pad = max((width - widest) // 2, 0) if centre else 0
    body = [*head, *(Text(" " * pad) + line for line in lines)]
    if bottom and height > len(body):
        body = [Text()] * (height - len(body)) + body
    out = Text("\n").join(body)
    out.no_wrap, out.overflow = True, "crop"  # a row never wraps into the next one
    return out


def pool_height(
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    taken: Sequence[int] = (),
    width: int = 30,
    big: bool = False,
) -> int:
    """Lines a pool takes in ``width`` columns (at least one): its rows (``pool_rows``)."""
    rows = pool_rows(discards, style, last=last, taken=taken, width=width, big=big)
    return max(1, len(rows) * tile_size(big)[1])


COUNTER_SUITS = (0, 9, 18)  # 万 饼 条: a row of nine counts each


def counter_text(counts: Sequence[int], style: TileStyle = TileStyle.CJK) -> Text:
    """The tile counter: unseen copies of each playing tile, under the ranks 1-9 for
    each suit, then each honour by its face (``东4 南3``). None left is dimmed, one left
    is bold red."""

    def count(n: int) -> Text:
        return Text(str(n), style="dim" if n == 0 else ("bold red" if n == 1 else ""))

    heads = ("万", "饼", "条") if style is TileStyle.CJK else ("m ", "p ", "s ")
    out = [Text("  " + " ".join(str(r) for r in range(1, 10)), style="dim")]
    for head, start in zip(heads, COUNTER_SUITS, strict=True):
        line = Text(head, style="bold")
        for code in range(start, start + 9):
            line.append(" ")
            line.append_text(count(counts[code]))
        out.append(line)
    for honours in (range(27, 31), range(31, 34)):
        line = Text()
        for code in honours:
            line.append(" " if line.cell_len else "")
            line.append(face(code, style).strip(), style="bold")
            line.append_text(count(counts[code]))
        out.append(line)
    text = Text("\n").join(out)
    text.no_wrap, text.overflow = True, "crop"
    return text
