"""Waits (听牌): the tiles that complete a 13-tile hand.

Two readings of "the tiles a hand waits on", both needed:

- ``waits(hand)``: the tiles the hand can still win on. A tile of which the hand holds
  all four copies (concealed and melds together) is left out: no fifth copy exists.
  This is what the game engine and the bots want (and what shanten calls ready).
- ``waits(hand, by_shape=True)``: every tile that completes the hand's *shape*, copies
  aside. The rule book judges 边张、嵌张、单钓将 by the shape ("整手牌只听这一种牌": the
  hand waits on this one tile only), not by which copies are still unseen; competition
  rulings and the reference calculator of tests/fixtures do the same: ``4m 555m 6m
  44s 5555s 66s`` waiting 5m is not a closed wait, because the shape also "waits" on a
  fifth 5s (fixture h04107). The fan calculator uses this reading.
"""

from __future__ import annotations

from protocol.tiles import PLAYING_KINDS, Tile

from .errors import HandError
from .hand import Hand
from .shapes import (
    HONORS,
    KNITTED_STRAIGHTS,
    ORPHANS,
    honor_split,
    honors_and_knitted,
    is_seven_pairs,
    is_thirteen_orphans,
    knitted_straight_splits,
    suit_table,
)


def _regular_waits(counts: list[int]) -> list[int]:
    """Tiles completing four sets and a pair: only the group that gets the tile changes,
    so each candidate costs one table look-up."""
    table = suit_table()
    keys = [tuple(counts[9 * s : 9 * s + 9]) for s in range(3)]
    sizes = [sum(k) for k in keys]
    ok = [n % 3 != 1 and (n == 0 or k in table) for k, n in zip(keys, sizes, strict=True)]
    pairs = [n % 3 == 2 for n in sizes]
    # The honour split says where the honours' pair is (five copies: pung + pair).
    honors = honor_split(counts)
    honors_ok = honors is not None
    h_pair = honors is not None and honors[2] >= 0
    found: list[int] = []
    for s in range(3):
        if not honors_ok or not all(ok[g] for g in range(3) if g != s):
            continue
        other_pairs = h_pair + sum(pairs[g] for g in range(3) if g != s)
        if other_pairs + ((sizes[s] + 1) % 3 == 2) != 1:
            continue
        key = list(keys[s])
        for r in range(9):
            if key[r] < 5 and (
                key[r]
                or (r > 0 and key[r - 1])
                or (r < 8 and key[r + 1])
                or (r > 1 and key[r - 2])
                or (r < 7 and key[r + 2])
            ):
                key[r] += 1
                if tuple(key) in table:
                    found.append(9 * s + r)
                key[r] -= 1
    if all(ok):
        for t in HONORS:
            if counts[t] < 5:
                counts[t] += 1
                split = honor_split(counts)
                if split is not None and sum(pairs) + (split[2] >= 0) == 1:
                    found.append(t)
                counts[t] -= 1
    return found


def _knitted_straight_tries(counts: list[int]) -> set[int]:
    """Tiles that may complete a knitted straight with its set and pair: the one tile a
    straight lacks, or, when a straight is all there, the waits of the tiles beside it
    (far fewer than every tile; ``concealed_waits`` checks each)."""
    tries: set[int] = set()
    for seq in KNITTED_STRAIGHTS:
        missing = [t for t in seq if not counts[t]]
        if len(missing) == 1:
            tries.add(missing[0])
        elif not missing:
            rest = counts[:]
            for t in seq:
                rest[t] -= 1
            tries.update(_regular_waits(rest))
    return tries


def concealed_waits(counts: list[int], melds: int) -> tuple[int, ...]:
    """The tile codes that complete these concealed tiles (with ``melds`` declared sets).

    Copies held in melds are the caller's concern (see ``waits``).
    """
    found = set(_regular_waits(counts))
    if melds > 1:
        return tuple(sorted(found))
    tries: set[int] = set()
    if melds == 0:
        odd = [t for t in range(PLAYING_KINDS) if counts[t] & 1]
        if len(odd) == 1:
            tries.add(odd[0])  # seven pairs
        if all(counts[t] == 0 for t in range(PLAYING_KINDS) if t not in ORPHANS):
            tries.update(ORPHANS)  # thirteen orphans
        if max(counts) <= 1:
            tries.update(range(PLAYING_KINDS))  # honors and knitted tiles
    tries.update(_knitted_straight_tries(counts))
    for t in tries - found:
        if counts[t] >= 4:
            continue
        counts[t] += 1
        if (
            melds == 0
            and (
                is_seven_pairs(counts)
                or is_thirteen_orphans(counts)
                or honors_and_knitted(counts) is not None
            )
        ) or knitted_straight_splits(counts):
            found.add(t)
        counts[t] -= 1
    return tuple(sorted(found))


def waits(hand: Hand, *, by_shape: bool = False) -> tuple[Tile, ...]:
    """The tiles that complete a 13-tile hand in any winning shape, in tile order.

    Tiles the hand holds all four copies of are left out unless ``by_shape`` (see the
    module docstring). Raises ``HandError`` (``wrong_tile_count``) for a hand that is
    not 13 tiles.
    """
    if hand.size != 13:
        raise HandError("wrong_tile_count", f"a waiting hand has 13 tiles, not {hand.size}")
    counts = hand.counts()
    held = counts[:]
    for m in hand.melds:
        for t in m.tiles:
            held[t] += 1
    return tuple(
        Tile(t) for t in concealed_waits(counts, len(hand.melds)) if by_shape or held[t] < 4
    )
