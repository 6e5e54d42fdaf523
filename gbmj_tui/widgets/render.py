"""Pure text rendering shared by the widgets: melds, discard pools, packing to a width."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from gbmj_tui.model import MeldView
from gbmj_tui.tiles import (
    TILE_STYLES,
    TILE_WIDTH,
    TileStyle,
    claimed_from_mark,
    face,
    style_name,
    tile_text,
    tiles_label,
)

POOL_ROW = 6  # discards a row, as on a real table
LAST_MARK = "*"  # drawn after the table's last discard (besides reverse video)


def meld_text(meld: MeldView, style: TileStyle = TileStyle.CJK, *, compact: bool = False) -> Text:
    """A meld's tiles side by side and, for a claimed meld, whom it came from.

    The claimed tile is underlined; a concealed kong shows its two outer tiles face down
    (all four when the viewer may not see the tile). ``compact`` writes the meld as a
    short label in its suit's colour (``三四五万上``), for a narrow seat panel.
    """
    out = Text()
    tiles = meld.tiles
    if compact:
        if meld.tile is None:  # another seat's concealed kong: face down
            return Text("〓" * 4 if style is TileStyle.CJK else "#" * 8, style=TILE_STYLES["back"])
        known = tuple(t for t in tiles if t is not None)
        out.append(tiles_label(known, style), style=TILE_STYLES[style_name(meld.tile)])
        if not meld.concealed:
            out.append(claimed_from_mark(meld.claimed_from, style), style="bold")
        return out
    if meld.concealed:
        faces = (None, meld.tile, meld.tile, None) if meld.tile is not None else tiles
        for face in faces:
            out.append_text(tile_text(face, style))
        return out
    claimed_done = False
    for t in tiles:
        claimed = not claimed_done and t == meld.claimed_tile
        claimed_done |= claimed
        out.append_text(tile_text(t, style, claimed=claimed))
    out.append(claimed_from_mark(meld.claimed_from, style), style="bold")
    return out


def pack(chunks: Sequence[Text], width: int, sep: int = 1) -> Text:
    """Chunks left to right, separated by ``sep`` spaces, starting new lines at ``width``."""
    lines: list[Text] = []
    line = Text()
    for chunk in chunks:
        need = chunk.cell_len + (sep if line.cell_len else 0)
        if line.cell_len and line.cell_len + need > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append(" " * sep)
        line.append_text(chunk)
    if line.cell_len or not lines:
        lines.append(line)
    return Text("\n").join(lines)


POOL_ROW_MOST = 9  # a wide terminal's pools hold up to nine tiles a row


def pool_layout(width: int) -> tuple[int, int]:
    """(tiles a row, gap) for a pool ``width`` columns wide: six tiles with no gap when
    that is all that fits, else one column between tiles and as many tiles as fit, up
    to nine."""
    if width < POOL_ROW * (TILE_WIDTH + 1):
        return POOL_ROW, 0
    fit = (width - len(LAST_MARK) + 1) // (TILE_WIDTH + 1)
    return max(POOL_ROW, min(POOL_ROW_MOST, fit)), 1


def pool_text(
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    width: int = 30,
) -> Text:
    """A discard pool in rows; ``last`` marks the newest tile as the table's last."""
    per_row, gap = pool_layout(width)
    lines: list[Text] = []
    for start in range(0, len(discards), per_row):
        line = Text()
        for i, tile in enumerate(discards[start : start + per_row], start):
            if i > start and gap:
                line.append(" " * gap)
            is_last = last and i == len(discards) - 1
            line.append_text(tile_text(tile, style, marked=is_last))
            if is_last and line.cell_len < width:  # reverse video marks it all the same
                line.append(LAST_MARK, style="bold")
        lines.append(line)
    return Text("\n").join(lines) if lines else Text("")


def pool_block_width(width: int) -> int:
    """Columns a full pool row takes in ``width`` (its tiles, gaps, the last mark)."""
    per_row, gap = pool_layout(width)
    return per_row * TILE_WIDTH + (per_row - 1) * gap + len(LAST_MARK)


def labelled_pool(
    label: Text,
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    width: int = 30,
    height: int = 0,
    centre: bool = False,
) -> Text:
    """A pool under its label (the seat's wind and name), six tiles a row.

    With a ``height`` too small for every row, the newest rows are kept (the label says
    how many older tiles are hidden): the last discards are the ones a player reads.
    ``centre`` puts the block in the middle of ``width`` (the top and bottom pools).
    """
    # A centred pool takes the gaps of the two side by side, so that all four line up.
    row_room = (width - 1) // 2 if centre else width
    lines = pool_text(discards, style, last=last, width=row_room).split("\n")
    rows = [r for r in lines if r.cell_len]
    head = label.copy()
    if height and len(rows) > max(height - 1, 1):
        keep = max(height - 1, 1)
        hidden = (len(rows) - keep) * pool_layout(row_room)[0]
        rows = rows[-keep:]
        head.append(f" +{hidden}", style="dim")
    pad = max((width - pool_block_width(row_room)) // 2, 0) if centre else 0
    if centre:
        head.pad_left(max((width - head.cell_len) // 2, 0))
    out = Text("\n").join([head, *(Text(" " * pad) + row for row in rows)])
    out.no_wrap, out.overflow = True, "crop"  # a row never wraps into the next one
    return out


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
