"""Pure text rendering shared by the widgets: melds, discard pools, packing to a width."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from gbmj_tui.i18n import relative_mark
from gbmj_tui.model import MeldView
from gbmj_tui.tiles import TILE_WIDTH, TileStyle, tile_text

POOL_ROW = 6  # discards per row, as the seed's table shows them
LAST_MARK = "<"  # drawn after the table's last discard (besides reverse video)


def meld_text(meld: MeldView, style: TileStyle = TileStyle.CJK, lang: str = "zh") -> Text:
    """A meld's tiles side by side and, for a claimed meld, whom it came from.

    The claimed tile is underlined; a concealed kong shows its two outer tiles face down
    (all four when the viewer may not see the tile).
    """
    out = Text()
    tiles = meld.tiles
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
            if is_last:
                line.append(LAST_MARK, style="bold")
        lines.append(line)
    return Text("\n").join(lines) if lines else Text("")
