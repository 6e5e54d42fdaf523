"""Melds and hands as small immutable values, and the compact hand notation.

Hand notation (tests, tools, logs): groups of digits followed by a suit letter, honors
and flowers as letters, e.g. ``"123m 456p 789s EEE 1s"``. Melds are written in square
brackets after the concealed tiles: ``[123m<1]`` a chow claimed from the left seat,
``[555p<2]`` a pung from the opposite seat, ``[EEEE<3]`` an exposed kong from the right
seat, ``[EEEE+<2]`` an added kong (its pung claimed from seat 2), ``[9999s]`` a concealed
kong.  The claimed-from numbers are relative: 1 = left (上家), 2 = opposite, 3 = right.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from protocol.tiles import PLAYING_KINDS, Tile
from protocol.vocabulary import MeldKind

from .errors import HandError


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set: chow, pung or kong.

    ``tile`` is the lowest tile of a chow or the tile of a pung or kong.
    ``claimed_from`` is relative to the owner (1 left, 2 opposite, 3 right) and 0 for a
    concealed kong. ``claimed_tile`` is the tile taken from another player's discard
    (None for a concealed kong). ``added`` marks a kong made by adding to a pung.
    """

    kind: MeldKind
    tile: Tile
    concealed: bool = False
    claimed_from: int = 0
    claimed_tile: Tile | None = None
    added: bool = False

    def __post_init__(self) -> None:
        t = self.tile
        if not 0 <= t < PLAYING_KINDS:
            raise HandError("bad_meld", f"a meld cannot be made of {Tile(t).notation}")
        if self.kind is MeldKind.CHOW and (not t < 27 or t % 9 > 6):
            raise HandError("bad_meld", f"no chow starts at {Tile(t).notation}")
        if self.concealed and (self.kind is not MeldKind.KONG or self.claimed_from):
            raise HandError(
                "bad_meld", "only a kong can be concealed, and it is claimed from nobody"
            )
        if not self.concealed and self.claimed_from not in (1, 2, 3):
            raise HandError("bad_meld", "an exposed meld is claimed from seat 1, 2 or 3")
        if self.kind is MeldKind.CHOW and not self.concealed and self.claimed_from != 1:
            raise HandError("bad_meld", "a chow can only be claimed from the left seat (1)")
        if self.added and self.kind is not MeldKind.KONG:
            raise HandError("bad_meld", "only a kong can be added")
        if self.claimed_tile is not None and self.claimed_tile not in self.tiles:
            raise HandError("bad_meld", "the claimed tile is not part of the meld")

    @property
    def tiles(self) -> tuple[Tile, ...]:
        t = self.tile
        if self.kind is MeldKind.CHOW:
            return (Tile(t), Tile(t + 1), Tile(t + 2))
        return (Tile(t),) * (4 if self.kind is MeldKind.KONG else 3)

    @property
    def is_kong(self) -> bool:
        return self.kind is MeldKind.KONG

    def __str__(self) -> str:
        body = _tiles_notation(self.tiles).replace(" ", "")
        if self.concealed:
            return f"[{body}]"
        return f"[{body}{'+' if self.added else ''}<{self.claimed_from}]"


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's tiles: the concealed tiles (sorted) and the declared melds.

    Every meld stands for three tiles of the hand's count (a kong's fourth is extra), so
    a hand waiting or complete has ``len(concealed) + 3 * len(melds)`` of 13 or 14.
    Flowers are not part of a hand.
    """

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "concealed", tuple(sorted(Tile(t) for t in self.concealed)))
        object.__setattr__(self, "melds", tuple(self.melds))
        if any(t.is_flower for t in self.concealed):
            raise HandError("unknown_tile", "flowers are not part of a hand")
        if len(self.melds) > 4:
            raise HandError("wrong_tile_count", "a hand has at most four melds")
        counts = [0] * PLAYING_KINDS
        for t in self.all_tiles():
            counts[t] += 1
            if counts[t] > 4:
                raise HandError("too_many_copies", f"more than four copies of {t.notation}")

    @property
    def size(self) -> int:
        """13 for a waiting hand, 14 for a complete one (kongs count as three)."""
        return len(self.concealed) + 3 * len(self.melds)

    def all_tiles(self) -> Iterable[Tile]:
        yield from self.concealed
        for m in self.melds:
            yield from m.tiles

    def counts(self) -> list[int]:
        """Concealed tile counts indexed by tile code (34 entries)."""
        counts = [0] * PLAYING_KINDS
        for t in self.concealed:
            counts[t] += 1
        return counts

    def with_tile(self, tile: Tile) -> Hand:
        return Hand((*self.concealed, tile), self.melds)

    def __str__(self) -> str:
        return " ".join(filter(None, [_tiles_notation(self.concealed), *map(str, self.melds)]))

    @classmethod
    def parse(cls, text: str) -> Hand:
        """A hand from the compact notation; ``HandError`` on anything malformed."""
        melds = [_parse_meld(m) for m in re.findall(r"\[([^\]]*)\]", text)]
        rest = re.sub(r"\[[^\]]*\]", " ", text)
        return cls(tuple(parse_tiles(rest)), tuple(melds))


_GROUP = re.compile(r"(\d+)([mps])|([ESWNCFP])|f([1-8])|(\S)")


def parse_tiles(text: str) -> list[Tile]:
    """Tiles from notation like ``"123m 55p EEE f1"`` (groups share the suit letter)."""
    tiles: list[Tile] = []
    for digits, suit, honor, flower, bad in _GROUP.findall(text):
        if bad:
            raise HandError("unknown_tile", f"cannot read {bad!r} in {text!r}")
        if digits:
            for d in digits:
                if d == "0":
                    raise HandError("unknown_tile", f"no tile 0{suit}")
                tiles.append(Tile.parse(d + suit))
        elif honor:
            tiles.append(Tile.parse(honor))
        else:
            tiles.append(Tile.parse("f" + flower))
    return tiles


def _parse_meld(body: str) -> Meld:
    m = re.fullmatch(r"\s*([^<+\s]+)\s*(\+)?\s*(?:<\s*([0-3]))?\s*", body)
    if not m:
        raise HandError("bad_meld", f"cannot read the meld [{body}]")
    tiles = parse_tiles(m.group(1))
    added = bool(m.group(2))
    claimed_from = int(m.group(3)) if m.group(3) else 0
    concealed = claimed_from == 0
    n = len(tiles)
    if n == 3 and len(set(tiles)) == 3:
        kind = MeldKind.CHOW
        lo = min(tiles)
        if sorted(tiles) != [lo, lo + 1, lo + 2]:
            raise HandError("bad_meld", f"[{body}] is not a chow")
    elif n in (3, 4) and len(set(tiles)) == 1:
        kind = MeldKind.PUNG if n == 3 else MeldKind.KONG
        lo = tiles[0]
    else:
        raise HandError("bad_meld", f"[{body}] is not a chow, pung or kong")
    if concealed and kind is not MeldKind.KONG:
        raise HandError("bad_meld", f"[{body}] must say whom it was claimed from (<1, <2, <3)")
    return Meld(kind, Tile(lo), concealed=concealed, claimed_from=claimed_from, added=added)


def _tiles_notation(tiles: Iterable[Tile]) -> str:
    """``1m 2m 3m E E`` -> ``123m EE``: suited runs share their letter."""
    out: list[str] = []
    prev_suit = None
    for t in sorted(tiles):
        s = t.notation
        if t.is_suited and prev_suit == t.suit:
            out[-1] = out[-1][:-1] + s[0] + s[1]
        elif t.is_honor and prev_suit == "z":
            out[-1] += s
        else:
            out.append(s)
        prev_suit = t.suit if not t.is_flower else None
    return " ".join(out)
