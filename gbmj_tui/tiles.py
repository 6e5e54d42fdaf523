"""Text tiles of a fixed width, in two styles: Chinese (CJK) and an ASCII fallback, and in
two sizes: a face on one line, or (a big terminal) the face in a box three rows high.

Every tile face is exactly ``TILE_WIDTH`` (4) terminal columns wide in both styles, so a
row of tiles lines up the same whatever the style:

=========  ========  =======
tile       CJK       ASCII
=========  ========  =======
5m         ``五万``  `` 5m ``
3p         ``三饼``  `` 3p ``
E          `` 东 ``  `` E  ``
C          `` 中 ``  ``Red ``
F          `` 发 ``  ``Grn ``
P          `` 白 ``  ``Wht ``
f1         `` 春 ``  `` f1 ``
face-down  ``〓〓``  ``####``
=========  ========  =======

A big tile (``tile_lines(..., big=True)``) draws the face between two sides and under
and over an edge: ``╭────╮ │五万│ ╰────╯`` (``+----+ | 5m | +----+`` in ASCII), six
columns by three rows.

The CJK style is for the Chinese interface; English (and ``--ascii``) draws the ASCII
faces, where the dragons are words (a bare ``F`` would read as a flower). CJK numerals,
suit characters and the geta mark 〓 are East-Asian *wide* (two cells in every
terminal); nothing here uses the one-cell Unicode mahjong glyphs or ambiguous-width
characters. Colour follows the suit, but every tile carries its text, so colour is never
the only cue. Everything here is a pure function of its arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from functools import lru_cache

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from protocol.tiles import FLOWER_ZH, SUIT_ZH, ZH_NUMERALS, Tile

TILE_WIDTH = 4
BIG_TILE_WIDTH, BIG_TILE_HEIGHT = TILE_WIDTH + 2, 3


class TileStyle(StrEnum):
    """How tile faces are drawn: Chinese characters, or ASCII for plain terminals."""

    CJK = "cjk"
    ASCII = "ascii"


# Single-character honour faces (东南西北 中发白), as on the tiles themselves.
_HONOR_CHAR = "东南西北中发白"
_HONOR_ASCII = ("E", "S", "W", "N", "Red", "Grn", "Wht")
_FACE_DOWN = {TileStyle.CJK: "〓〓", TileStyle.ASCII: "####"}
# Whom a meld was claimed from, relative to its owner: left (上家), opposite, right.
_FROM = {TileStyle.CJK: ("", "上", "对", "下"), TileStyle.ASCII: ("", "<", "^", ">")}


def _center(text: str) -> str:
    """Pad ``text`` with spaces to exactly TILE_WIDTH columns (extra space on the right)."""
    pad = TILE_WIDTH - cell_len(text)
    left = pad // 2
    return " " * left + text + " " * (pad - left)


def _face(code: int, style: TileStyle) -> str:
    tile = Tile(code)
    if style is TileStyle.ASCII:
        return _center(_HONOR_ASCII[code - Tile.E] if tile.is_honor else tile.notation)
    if tile.is_suited:
        return ZH_NUMERALS[tile.rank - 1] + SUIT_ZH[tile.suit]
    if tile.is_honor:
        return _center(_HONOR_CHAR[code - Tile.E])
    return _center(FLOWER_ZH[code - Tile.F1])


_FACES: dict[TileStyle, tuple[str, ...]] = {
    s: tuple(_face(c, s) for c in range(len(Tile))) for s in TileStyle
}


def face(tile: int, style: TileStyle = TileStyle.CJK) -> str:
    """The text of a tile face: exactly TILE_WIDTH columns."""
    return _FACES[style][tile]


def face_down(style: TileStyle = TileStyle.CJK) -> str:
    """The back of a tile (a hidden tile, a concealed kong): TILE_WIDTH columns."""
    return _FACE_DOWN[style]


# -- colours -----------------------------------------------------------------------------
# A tile is drawn as dark, suit-coloured text on an ivory face; the back is green.
TILE_FACE_BG = "#efe6cf"
TILE_STYLES: dict[str, Style] = {
    "characters": Style(color="#b01c1c", bgcolor=TILE_FACE_BG, bold=True),
    "dots": Style(color="#1646a0", bgcolor=TILE_FACE_BG, bold=True),
    "bamboo": Style(color="#17702c", bgcolor=TILE_FACE_BG, bold=True),
    "wind": Style(color="#202020", bgcolor=TILE_FACE_BG, bold=True),
    "dragon-red": Style(color="#c40000", bgcolor=TILE_FACE_BG, bold=True),
    "dragon-green": Style(color="#0a7a20", bgcolor=TILE_FACE_BG, bold=True),
    "dragon-white": Style(color="#3d5a80", bgcolor=TILE_FACE_BG, bold=True),
    "flower": Style(color="#8a2be2", bgcolor=TILE_FACE_BG, bold=True),
    "back": Style(color="#a5d6a7", bgcolor="#2e6b3a"),
}
SELECTED = Style(bgcolor="#ffd54f", underline=True)  # the hand's cursor
MARKED = Style(reverse=True)  # the last discard, the winning tile
CLAIMED = Style(underline=True)  # the tile of a meld taken from another seat
HIGHLIGHTED = Style(bgcolor="#ffd54f")  # the same tile as the hand's cursor, elsewhere
# A discard another seat claimed: it stays in its pond, struck through and without its
# face, as a tile that is no longer there.
TAKEN = Style(color="#8a8a8a", strike=True, dim=True)


def style_name(tile: int) -> str:
    """The style name of a tile's kind: its suit, wind, dragon colour or flower."""
    t = Tile(tile)
    if t.is_suited:
        return ("characters", "dots", "bamboo")[t // 9]
    if t.is_wind:
        return "wind"
    if t.is_dragon:
        return ("dragon-red", "dragon-green", "dragon-white")[t - Tile.C]
    return "flower"


def tile_text(
    tile: int | None,
    style: TileStyle = TileStyle.CJK,
    *,
    selected: bool = False,
    marked: bool = False,
    claimed: bool = False,
    highlighted: bool = False,
    taken: bool = False,
) -> Text:
    """One tile as styled text; ``None`` draws the face-down back."""
    return Text(*_tile_face(tile, style, selected, marked, claimed, highlighted, taken))


def _tile_face(
    tile: int | None,
    style: TileStyle,
    selected: bool = False,
    marked: bool = False,
    claimed: bool = False,
    highlighted: bool = False,
    taken: bool = False,
) -> tuple[str, Style]:
    if tile is None:
        return face_down(style), TILE_STYLES["back"]
    s = TAKEN if taken else TILE_STYLES[style_name(tile)]
    if claimed:
        s += CLAIMED
    if highlighted:
        s += HIGHLIGHTED
    if selected:
        s += SELECTED
    if marked:
        s += MARKED
    return face(tile, style), s


_EDGES = {TileStyle.CJK: ("╭────╮", "│", "╰────╯"), TileStyle.ASCII: ("+----+", "|", "+----+")}


@lru_cache(maxsize=4096)  # the table redraws the same few hundred tiles over and over
def tile_lines(
    tile: int | None,
    style: TileStyle = TileStyle.CJK,
    *,
    big: bool = False,
    selected: bool = False,
    marked: bool = False,
    claimed: bool = False,
    highlighted: bool = False,
    taken: bool = False,
) -> tuple[Text, ...]:
    """One tile, a line (``tile_text``) or, ``big``, three lines: the face in a box.
    The lines are shared (cached): copy them (``append_text``), never change them."""
    text, s = _tile_face(tile, style, selected, marked, claimed, highlighted, taken)
    if not big:
        return (Text(text, style=s),)
    top, side, bottom = _EDGES[style]
    # The edges take the face's colours but not its underline (the claimed tile's mark).
    edge = Style.combine([s, Style(underline=False)])
    if edge == s:  # one span a line: less for the terminal to draw
        middle = Text(side + text + side, style=s)
    else:
        middle = Text.assemble((side, edge), (text, s), (side, edge))
    return (Text(top, style=edge), middle, Text(bottom, style=edge))


def tile_size(big: bool) -> tuple[int, int]:
    """(columns, rows) of one tile, small or big."""
    return (BIG_TILE_WIDTH, BIG_TILE_HEIGHT) if big else (TILE_WIDTH, 1)


def tile_row(
    tiles: Iterable[int | None],
    style: TileStyle = TileStyle.CJK,
    *,
    gap: int = 1,
    selected: int | None = None,
    marked: int | None = None,
) -> Text:
    """A row of tiles separated by ``gap`` spaces; indexes pick a selected or marked tile."""
    out = Text()
    for i, tile in enumerate(tiles):
        if i and gap:
            out.append(" " * gap)
        out.append_text(tile_text(tile, style, selected=i == selected, marked=i == marked))
    return out


def row_width(count: int, gap: int = 1) -> int:
    """Columns taken by ``count`` tiles in a row with ``gap`` spaces between them."""
    return count * TILE_WIDTH + max(count - 1, 0) * gap


def concealed_count(count: int, style: TileStyle = TileStyle.CJK) -> Text:
    """Another seat's hidden tiles: one face-down tile and the count, e.g. ``〓〓x13``."""
    out = tile_text(None, style)
    out.append(f"x{count:<2}")
    return out


def claimed_from_mark(claimed_from: int, style: TileStyle = TileStyle.CJK) -> str:
    """Whom a meld was claimed from, relative to its owner: 上/对/下 or </^/>."""
    return _FROM[style][claimed_from]


def tiles_label(tiles: Sequence[int], style: TileStyle = TileStyle.CJK) -> str:
    """Tiles as compact plain text (for labels: a chow variant, a claim): ``三四五万``."""
    if style is TileStyle.ASCII:
        return " ".join(face(t, style).strip() for t in tiles)
    ts = [Tile(t) for t in tiles]
    if ts and all(t.is_suited for t in ts) and len({t.suit for t in ts}) == 1:
        return "".join(ZH_NUMERALS[t.rank - 1] for t in ts) + SUIT_ZH[ts[0].suit]
    return "".join(face(t, style).strip() for t in ts)
