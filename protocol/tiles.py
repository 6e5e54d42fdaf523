"""Tiles as small integers: the one tile vocabulary of gbmj.

A tile is a ``Tile`` (an ``IntEnum``), so it travels on the wire as a plain small integer
and indexes count arrays directly:

====  ==========================  =========
code  tiles                       notation
====  ==========================  =========
0-8   characters 一万 … 九万       1m … 9m
9-17  dots 一饼 … 九饼             1p … 9p
18-26 bamboo 一条 … 九条           1s … 9s
27-30 winds 东 南 西 北            E S W N
31-33 dragons 中 发 白             C F P
34-41 flowers 春夏秋冬梅兰竹菊      f1 … f8
====  ==========================  =========
"""

from __future__ import annotations

from enum import IntEnum

SUITS = "mps"
SUIT_ZH = {"m": "万", "p": "饼", "s": "条"}
SUIT_EN = {"m": "Characters", "p": "Dots", "s": "Bamboo"}
ZH_NUMERALS = "一二三四五六七八九"
HONOR_LETTERS = "ESWNCFP"
HONOR_ZH = ("东风", "南风", "西风", "北风", "红中", "发财", "白板")
HONOR_EN = (
    "East Wind",
    "South Wind",
    "West Wind",
    "North Wind",
    "Red Dragon",
    "Green Dragon",
    "White Dragon",
)
FLOWER_ZH = "春夏秋冬梅兰竹菊"
FLOWER_EN = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum")


class Tile(IntEnum):
    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    E = 27
    S = 28
    W = 29
    N = 30
    C = 31
    F = 32
    P = 33
    F1 = 34
    F2 = 35
    F3 = 36
    F4 = 37
    F5 = 38
    F6 = 39
    F7 = 40
    F8 = 41

    # -- classification -------------------------------------------------------------
    @property
    def suit(self) -> str:
        """'m', 'p', 's' for suited tiles, 'z' for honors, 'f' for flowers."""
        return _SUIT[self]

    @property
    def rank(self) -> int:
        """1-9 for suited tiles, 0 otherwise."""
        return _RANK[self]

    @property
    def is_suited(self) -> bool:
        return self < 27

    @property
    def is_honor(self) -> bool:
        return 27 <= self < 34

    @property
    def is_wind(self) -> bool:
        return 27 <= self < 31

    @property
    def is_dragon(self) -> bool:
        return 31 <= self < 34

    @property
    def is_flower(self) -> bool:
        return self >= 34

    @property
    def is_terminal(self) -> bool:
        return self < 27 and self % 9 in (0, 8)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_terminal or self.is_honor

    # -- names ------------------------------------------------------------------------
    @property
    def notation(self) -> str:
        return NOTATION[self]

    @property
    def name_zh(self) -> str:
        return NAMES_ZH[self]

    @property
    def name_en(self) -> str:
        return NAMES_EN[self]

    def __str__(self) -> str:
        return NOTATION[self]

    @classmethod
    def parse(cls, text: str) -> Tile:
        """A tile from its notation (``"5m"``, ``"E"``, ``"f3"``); ``ValueError`` otherwise."""
        try:
            return _BY_NOTATION[text.strip()]
        except KeyError:
            raise ValueError(f"unknown tile {text!r}") from None


def _notation(code: int) -> str:
    if code < 27:
        return f"{code % 9 + 1}{SUITS[code // 9]}"
    if code < 34:
        return HONOR_LETTERS[code - 27]
    return f"f{code - 33}"


def _name_zh(code: int) -> str:
    if code < 27:
        return ZH_NUMERALS[code % 9] + SUIT_ZH[SUITS[code // 9]]
    if code < 34:
        return HONOR_ZH[code - 27]
    return FLOWER_ZH[code - 34]


def _name_en(code: int) -> str:
    if code < 27:
        return f"{code % 9 + 1} of {SUIT_EN[SUITS[code // 9]]}"
    if code < 34:
        return HONOR_EN[code - 27]
    return f"{FLOWER_EN[code - 34]} (flower)"


TILE_COUNT = 42  # distinct tile codes
PLAYING_KINDS = 34  # codes 0-33: the tiles hands are made of; four copies each
NOTATION: tuple[str, ...] = tuple(_notation(c) for c in range(TILE_COUNT))
NAMES_ZH: tuple[str, ...] = tuple(_name_zh(c) for c in range(TILE_COUNT))
NAMES_EN: tuple[str, ...] = tuple(_name_en(c) for c in range(TILE_COUNT))
_SUIT = tuple("mps"[c // 9] if c < 27 else ("z" if c < 34 else "f") for c in range(TILE_COUNT))
_RANK = tuple(c % 9 + 1 if c < 27 else 0 for c in range(TILE_COUNT))
_BY_NOTATION = {n: Tile(c) for c, n in enumerate(NOTATION)}

ALL_TILES: tuple[Tile, ...] = tuple(Tile)
PLAYING_TILES: tuple[Tile, ...] = ALL_TILES[:PLAYING_KINDS]
FLOWERS: tuple[Tile, ...] = ALL_TILES[PLAYING_KINDS:]
WINDS: tuple[Tile, ...] = (Tile.E, Tile.S, Tile.W, Tile.N)
DRAGONS: tuple[Tile, ...] = (Tile.C, Tile.F, Tile.P)


def is_tile_code(value: object) -> bool:
    """True for an int that names a tile (used to validate wire values)."""
    return (type(value) is int and 0 <= value < TILE_COUNT) or isinstance(value, Tile)
