"""Winning shapes and their decompositions.

A complete hand is 14 tiles (a kong counts as three) in one of these shapes:

- **regular**: four sets (chows or pungs; declared melds are fixed sets) and a pair.
  Nine gates (九莲宝灯) is a regular hand that the calculator recognises by its tiles.
- **seven pairs** (七对): seven pairs of a fully concealed hand; four equal tiles count
  as two pairs.
- **thirteen orphans** (十三幺): one of each terminal and honor plus one more of them.
- **honors and knitted tiles** (全不靠 / 七星不靠): 14 different tiles, the suited ones
  taken from one knitted straight (147 / 258 / 369 in three different suits), no pair.
- **knitted straight** (组合龙) with one more set and a pair.

The regular shape is decomposed with precomputed per-suit tables: every count pattern of
one suit that splits into sets (and at most one pair) maps to all its splits. The table
is built once, on first use, by enumerating set combinations rather than by searching
hands, so a lookup is one dictionary access per suit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, product

from protocol.tiles import PLAYING_KINDS, Tile

# The six knitted straights: suit order of the 147 / 258 / 369 groups.
KNITTED_STRAIGHTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        9 * suit + rank
        for suit, start in zip(order, (0, 1, 2), strict=True)
        for rank in (start, start + 3, start + 6)
    )
    for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
)
ORPHANS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
HONORS = range(27, 34)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One split of the concealed tiles into sets and a pair (declared melds excluded).

    ``chows`` are the lowest tiles of the chows, ``pungs`` the tiles of the pungs (each
    sorted); ``pair`` the tile of the pair.
    """

    chows: tuple[int, ...]
    pungs: tuple[int, ...]
    pair: int


# -- per-suit tables --------------------------------------------------------------------

_SuitSplit = tuple[tuple[int, ...], tuple[int, ...], int]  # chow ranks, pung ranks, pair rank|-1


@cache
def suit_table() -> dict[tuple[int, ...], tuple[_SuitSplit, ...]]:
    """Count pattern of one suit (9 counts) -> every split into sets and at most one pair.

    Only patterns that split completely are keys. Ranks are 0-8. Patterns with a fifth
    copy of a tile are included: no real hand has one, but the wait finder asks whether
    a hand's *shape* is completed by a tile it holds four of (see waits.py).
    """
    # Set types: 0-6 chow starting at that rank, 7-15 pung of rank (type - 7).
    table: dict[tuple[int, ...], list[_SuitSplit]] = {}
    for n in range(5):
        for combo in combinations_with_replacement(range(16), n):
            counts = [0] * 9
            for s in combo:
                if s < 7:
                    counts[s] += 1
                    counts[s + 1] += 1
                    counts[s + 2] += 1
                else:
                    counts[s - 7] += 3
            if max(counts) > 5:
                continue
            chows = tuple(s for s in combo if s < 7)
            pungs = tuple(s - 7 for s in combo if s >= 7)
            for pair in range(-1, 9):
                if pair >= 0:
                    if counts[pair] > 3:
                        continue
                    counts[pair] += 2
                table.setdefault(tuple(counts), []).append((chows, pungs, pair))
                if pair >= 0:
                    counts[pair] -= 2
    return {k: tuple(v) for k, v in table.items()}


@cache
def _suit_splits(suit: int, key: tuple[int, ...]) -> tuple[_SuitSplit, ...] | None:
    """The splits of one suit's pattern in tile codes (offset by the suit), or None."""
    splits = suit_table().get(key)
    if splits is None:
        return None
    base = 9 * suit
    return tuple(
        (tuple(base + r for r in c), tuple(base + r for r in p), base + q if q >= 0 else -1)
        for c, p, q in splits
    )


def honor_split(counts: Sequence[int]) -> _SuitSplit | None:
    """The honors as pungs and at most one pair, or None."""
    pungs: list[int] = []
    pair = -1
    for t in HONORS:
        n = counts[t]
        if n == 3:
            pungs.append(t)
        elif n == 2 or n == 5:  # five: only when asking about a shape (waits.py)
            if pair >= 0:
                return None
            pair = t
            if n == 5:
                pungs.append(t)
        elif n:
            return None
    return ((), tuple(pungs), pair)


_EMPTY = ((), (), -1)


def _group_splits(counts: Sequence[int]) -> list[tuple[_SuitSplit, ...]] | None:
    """Per group (three suits, honors) the possible splits, or None if one cannot split.

    Exactly one group may hold the pair; the counts' total decides which (it is the only
    group whose size is 2 mod 3).
    """
    groups: list[tuple[_SuitSplit, ...]] = []
    pair_groups = 0
    for suit in range(3):
        key = tuple(counts[9 * suit : 9 * suit + 9])
        n = sum(key)
        if n == 0:
            continue
        if n % 3 == 1:
            return None
        splits = _suit_splits(suit, key)
        if splits is None:
            return None
        pair_groups += n % 3 == 2
        groups.append(splits)
    honors = honor_split(counts)
    if honors is None:
        return None
    if honors != _EMPTY:
        pair_groups += honors[2] >= 0
        groups.append((honors,))
    if pair_groups != 1:
        return None
    return groups


def regular_decompositions(counts: Sequence[int]) -> tuple[Decomposition, ...]:
    """Every split of these concealed tiles into sets and exactly one pair.

    ``counts`` is indexed by tile code (34 entries); the number of sets is whatever the
    tiles make, so pass the concealed part of a complete hand (14 - 3 x melds tiles).
    """
    groups = _group_splits(counts)
    if groups is None:
        return ()
    out = []
    for parts in product(*groups):
        chows: list[int] = []
        pungs: list[int] = []
        pair = -1
        for c, p, q in parts:
            chows.extend(c)
            pungs.extend(p)
            if q >= 0:
                pair = q
        out.append(Decomposition(tuple(sorted(chows)), tuple(sorted(pungs)), pair))
    return tuple(out)


def is_regular(counts: Sequence[int]) -> bool:
    """True when the concealed tiles split into sets and exactly one pair."""
    return _group_splits(counts) is not None


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Seven pairs of 14 concealed tiles (four equal tiles are two pairs)."""
    total = 0
    for n in counts[:PLAYING_KINDS]:
        if n & 1:
            return False
        total += n
    return total == 14


def is_seven_shifted_pairs(counts: Sequence[int]) -> bool:
    """连七对: seven consecutive pairs of one suit."""
    if not is_seven_pairs(counts):
        return False
    for start in (0, 1, 2, 9, 10, 11, 18, 19, 20):
        if all(counts[start + i] == 2 for i in range(7)):
            return True
    return False


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    """十三幺: each terminal and honor, one of them twice (14 concealed tiles)."""
    pairs = 0
    for t in ORPHANS:
        n = counts[t]
        if n == 2:
            pairs += 1
        elif n != 1:
            return False
    return pairs == 1 and sum(counts[:PLAYING_KINDS]) == 14


def honors_and_knitted(counts: Sequence[int]) -> tuple[int, ...] | None:
    """全不靠 / 七星不靠: 14 single tiles, suited ones from one knitted straight.

    Returns the knitted straight the suited tiles come from, or None.
    """
    if sum(counts[:PLAYING_KINDS]) != 14 or max(counts[:PLAYING_KINDS]) > 1:
        return None
    suited = [t for t in range(27) if counts[t]]
    if not 7 <= len(suited) <= 9:
        return None
    for seq in KNITTED_STRAIGHTS:
        if all(t in seq for t in suited):
            return seq
    return None


@dataclass(frozen=True, slots=True)
class KnittedSplit:
    """组合龙 plus the rest: ``straight`` the nine knitted tiles, ``rest`` the split of
    what is left (one set or none when the set is a declared meld, and the pair)."""

    straight: tuple[int, ...]
    rest: Decomposition


def knitted_straight_splits(counts: Sequence[int]) -> tuple[KnittedSplit, ...]:
    """组合龙 + one set + a pair: the splits of these concealed tiles (11 or 14 tiles)."""
    # Quick reject: the straight takes three ranks of every suit, so a suit with fewer
    # than three distinct tiles rules it out (most hands; ~30 % off is_complete).
    for base in (0, 9, 18):
        if (9 - counts[base : base + 9].count(0)) < 3:
            return ()
    out: list[KnittedSplit] = []
    for seq in KNITTED_STRAIGHTS:
        if all(counts[t] for t in seq):
            rest = list(counts[:PLAYING_KINDS])
            for t in seq:
                rest[t] -= 1
            out.extend(KnittedSplit(seq, d) for d in regular_decompositions(rest))
    return tuple(out)


def is_nine_gates(counts: Sequence[int], win_tile: int) -> bool:
    """九莲宝灯: the 13 concealed tiles before the win are 1112345678999 of one suit."""
    if win_tile >= 27:
        return False
    base = win_tile - win_tile % 9
    if sum(counts[:PLAYING_KINDS]) != 14 or sum(counts[base : base + 9]) != 14:
        return False
    before = list(counts[base : base + 9])
    before[win_tile - base] -= 1
    return before == [3, 1, 1, 1, 1, 1, 1, 1, 3]


def is_complete(counts: Sequence[int], melds: int = 0) -> bool:
    """Fast check: do these concealed tiles (with ``melds`` declared sets) win?"""
    if sum(counts[:PLAYING_KINDS]) + 3 * melds != 14:
        return False
    if is_regular(counts):
        return True
    if melds == 0 and (
        is_seven_pairs(counts)
        or is_thirteen_orphans(counts)
        or honors_and_knitted(counts) is not None
    ):
        return True
    return melds <= 1 and bool(knitted_straight_splits(counts))


def counts_of(tiles: Sequence[Tile | int]) -> list[int]:
    """Tile counts indexed by tile code (34 entries)."""
    counts = [0] * PLAYING_KINDS
    for t in tiles:
        counts[t] += 1
    return counts
