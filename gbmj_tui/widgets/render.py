"""Pure text rendering shared by the widgets: melds, discard pools, packing to a width."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from gbmj_tui.i18n import relative_mark
from gbmj_tui.model import MeldView
from gbmj_tui.tiles import TILE_STYLES, TILE_WIDTH, TileStyle, style_name, tile_text, tiles_label

POOL_ROW = 6  # discards per row, as the seed's table shows them
LAST_MARK = "<"  # drawn after the table's last discard (besides reverse video)


def meld_text(
    meld: MeldView, style: TileStyle = TileStyle.CJK, lang: str = "zh", *, compact: bool = False
) -> Text:
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
        out.append(tiles_label(tiles, style), style=TILE_STYLES[style_name(meld.tile)])  # type: ignore[arg-type]
        if not meld.concealed:
            out.append(relative_mark(meld.claimed_from, lang), style="bold")
        return out
    if meld.concealed:
        shown = (None, meld.tile, meld.tile, None) if meld.tile is not None else tiles
        for t in shown:
            out.append_text(tile_text(t, style))
        return out
    claimed_done = False
    for t in tiles:
        claimed = not claimed_done and t == meld.claimed_tile
        claimed_done |= claimed
        out.append_text(tile_text(t, style, claimed=claimed))
    out.append(relative_mark(meld.claimed_from, lang), style="bold")
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


def pool_gap(width: int) -> int:
    """Space between pool tiles: one column if six tiles and gaps fit, else none."""
    return 1 if width >= POOL_ROW * TILE_WIDTH + POOL_ROW else 0


def pool_text(
    discards: Sequence[int],
    style: TileStyle = TileStyle.CJK,
    *,
    last: bool = False,
    width: int = 30,
) -> Text:
    """A discard pool, six tiles a row; ``last`` marks the newest tile as the table's last."""
    gap = pool_gap(width)
    lines: list[Text] = []
    for start in range(0, len(discards), POOL_ROW):
        line = Text()
        for i, tile in enumerate(discards[start : start + POOL_ROW], start):
            if i > start and gap:
                line.append(" " * gap)
            is_last = last and i == len(discards) - 1
            line.append_text(tile_text(tile, style, marked=is_last))
            if is_last and line.cell_len < width:  # reverse video marks it all the same
                line.append(LAST_MARK, style="bold")
        lines.append(line)
    return Text("\n").join(lines) if lines else Text("")


def pool_block_width(width: int) -> int:
    """Columns a full pool row takes in ``width`` (six tiles, gaps, the last mark)."""
    gap = pool_gap(width)
    return POOL_ROW * TILE_WIDTH + (POOL_ROW - 1) * gap + len(LAST_MARK)


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
    rows = pool_text(discards, style, last=last, width=row_room).split("\n")
    rows = [r for r in rows if r.cell_len]
    head = label.copy()
    if height and len(rows) > max(height - 1, 1):
        keep = max(height - 1, 1)
        hidden = (len(rows) - keep) * POOL_ROW
        rows = rows[-keep:]
        head.append(f" +{hidden}", style="dim")
    pad = max((width - pool_block_width(row_room)) // 2, 0) if centre else 0
    if centre:
        head.pad_left(max((width - head.cell_len) // 2, 0))
    out = Text("\n").join([head, *(Text(" " * pad) + row for row in rows)])
    out.no_wrap, out.overflow = True, "crop"  # a row never wraps into the next one
    return out


COUNTER_ROWS = ((0, 9), (9, 18), (18, 27), (27, 34))  # 万 饼 条, then the honours


def counter_text(counts: Sequence[int], lang: str = "zh") -> Text:
    """The tile counter: unseen copies of each playing tile, one line per suit.

    ``万 434244434`` reads 一万 4 left, 二万 3...; the honours line is ``字 4344 434``
    (东南西北, then 中发白). A tile with none left is dimmed, one left is bold.
    """
    heads = ("万", "饼", "条", "字") if lang == "zh" else ("m ", "p ", "s ", "z ")
    out: list[Text] = []
    for head, (start, stop) in zip(heads, COUNTER_ROWS, strict=True):
        line = Text(head + " ", style="bold")
        for code in range(start, stop):
            if code == 31:  # between the winds and the dragons
                line.append(" ")
            n = counts[code]
            line.append(str(n), style="dim" if n == 0 else ("bold red" if n == 1 else ""))
        out.append(line)
    return Text("\n").join(out)
