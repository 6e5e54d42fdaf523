"""Shanten: how many tiles a hand is from ready (听牌), over every winning shape.

``shanten(hand)`` is 0 for a ready 13-tile hand and -1 for a complete 14-tile one; a
14-tile hand counts as the best 13-tile hand it can discard to. The minimum is taken over
four sets and a pair (melds count as done sets), seven pairs, thirteen orphans, honors and
knitted tiles (全不靠, which covers 七星不靠) and knitted straight (组合龙) with one set and
a pair.

The regular shape uses the classic count ``8 - 2*sets - partials - pair`` with at most
four blocks, read from per-suit tables: each suit's count pattern maps (once, cached) to
its few best (sets, blocks, pair) choices, so a call costs four dictionary look-ups and a
small merge. That count ignores how many copies of a tile are left: a hand whose only
"waits" are tiles it already holds all four of is not ready, so at ready the answer is
checked against the tiles that are really left, and such a hand is one away. Further
from ready the count stays the classic one (a lower bound when many copies are held).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from protocol.tiles import PLAYING_KINDS, PLAYING_TILES, Tile

from .errors import HandError
from .hand import Hand, Meld
from .shapes import HONORS, KNITTED_STRAIGHTS, ORPHANS
from .waits import concealed_waits

# An option is (sets, min(sets + partials, 4), pair): the value of a set of options
# is sets + min(blocks, 4) + pair and the shanten is 8 minus the best value.
Option = tuple[int, int, int]


def _prune(options: set[Option]) -> tuple[Option, ...]:
    """Keep the options no other option beats in every component."""
    best = [
        o
        for o in options
        if not any(q != o and q[0] >= o[0] and q[1] >= o[1] and q[2] >= o[2] for q in options)
    ]
    return tuple(sorted(best))


@cache
def suit_options(counts: tuple[int, ...]) -> tuple[Option, ...]:
    """Best (sets, blocks, pair) choices for the tiles of one suit (nine counts)."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return ((0, 0, 0),)
    c = list(counts)
    found: set[Option] = set()

    def take(deltas: dict[int, int], dm: int, dt: int, dp: int) -> None:
        for k, d in deltas.items():
            c[k] -= d
        for m, s, p in suit_options(tuple(c)):
            if p + dp <= 1:
                found.add((m + dm, min(s + dm + dt, 4), p + dp))
        for k, d in deltas.items():
            c[k] += d

    if c[i] >= 3:
        take({i: 3}, 1, 0, 0)
    if i <= 6 and c[i + 1] and c[i + 2]:
        take({i: 1, i + 1: 1, i + 2: 1}, 1, 0, 0)
    if c[i] >= 2:
        take({i: 2}, 0, 1, 0)
        take({i: 2}, 0, 0, 1)
    if i <= 7 and c[i + 1]:
        take({i: 1, i + 1: 1}, 0, 1, 0)
    if i <= 6 and c[i + 2]:
        take({i: 1, i + 2: 1}, 0, 1, 0)
    take({i: 1}, 0, 0, 0)
    return _prune(found)


@cache
def honor_options(counts: tuple[int, ...]) -> tuple[Option, ...]:
    """Best choices for honors (counts sorted, as honors never run)."""
    found: set[Option] = {(0, 0, 0)}
    for c in counts:
        if not c:
            continue
        # One honor: a pung (3 or 4 copies), a pair as head or partial, or nothing.
        mine = [(0, 0, 0)]
        if c >= 3:
            mine.append((1, 1, 0))
        if c >= 2:
            mine += [(0, 1, 0), (0, 0, 1)]
        found = {
            (m + dm, min(s + ds, 4), p + dp)
            for m, s, p in found
            for dm, ds, dp in mine
            if p + dp <= 1
        }
    return _prune(found)


_NO_HONORS: tuple[Option, ...] = ((0, 0, 0),)


def regular_shanten(counts: Sequence[int], done_sets: int) -> int:
    """Four sets and a pair, ``done_sets`` sets (melds) already made.

    The four groups' few options are combined by a plain loop (not by building and
    pruning sets): the bots call this a hundred times a decision.
    """
    a = suit_options(tuple(counts[0:9]))
    b = suit_options(tuple(counts[9:18]))
    c = suit_options(tuple(counts[18:27]))
    h = sorted((n for n in counts[27:34] if n), reverse=True)
    d = honor_options(tuple(h)) if h else _NO_HONORS
    best = -1
    for m1, s1, p1 in a:
        for m2, s2, p2 in b:
            p12 = p1 + p2
            if p12 > 1:
                continue
            m12, s12 = done_sets + m1 + m2, done_sets + s1 + s2
            for m3, s3, p3 in c:
                p123 = p12 + p3
                if p123 > 1:
                    continue
                m123, s123 = m12 + m3, s12 + s3
                for m4, s4, p4 in d:
                    p = p123 + p4
                    if p > 1:
                        continue
                    m, s = m123 + m4, s123 + s4
                    # More than four sets can only come from a caller's partial count.
                    v = (m if m < 4 else 4) + (s if s < 4 else 4) + p
                    if v > best:
                        best = v
    return 8 - best


def seven_pairs_shanten(counts: list[int]) -> int:
    # Four of a kind count as two pairs in Chinese Official rules.
    return 6 - min(7, sum(c // 2 for c in counts))


def thirteen_orphans_shanten(counts: list[int]) -> int:
    held = [counts[k] for k in ORPHANS if counts[k]]
    return 13 - len(held) - (1 if any(c >= 2 for c in held) else 0)


def honors_knitted_shanten(counts: list[int]) -> int:
    honors = sum(1 for k in HONORS if counts[k])
    return 13 - honors - max(sum(1 for k in ks if counts[k]) for ks in KNITTED_STRAIGHTS)


def knitted_straight_shanten(counts: list[int], done_sets: int, best: int) -> int:
    """The best of ``best`` and knitted straight + one set + a pair."""
    for ks in KNITTED_STRAIGHTS:
        missing = sum(1 for k in ks if not counts[k])
        if missing - 1 >= best:
            continue  # cannot beat what we have: the rest is at best complete (-1)
        rest = counts[:]
        for k in ks:
            if rest[k]:
                rest[k] -= 1
        # The knitted straight stands for three sets; the rest makes one set and a pair.
        best = min(best, missing + regular_shanten(rest, done_sets + 3))
    return best


def shape_shanten(counts: list[int], done_sets: int) -> int:
    """The shanten count over all shapes, not checking the copies left."""
    best = regular_shanten(counts, done_sets)
    if done_sets <= 1:
        best = knitted_straight_shanten(counts, done_sets, best)
    if done_sets == 0:
        best = min(
            best,
            seven_pairs_shanten(counts),
            thirteen_orphans_shanten(counts),
            honors_knitted_shanten(counts),
        )
    return best


def _completing_tiles(counts: list[int], done_sets: int, held: list[int]) -> list[int]:
    """The tiles that complete a 13-tile hand, leaving out those it holds all four of."""
    return [t for t in concealed_waits(counts, done_sets) if held[t] < 4]


def _really_ready(counts: list[int], done_sets: int, held: list[int]) -> bool:
    """A 13-tile hand is ready only if a tile that completes it is still unseen by it."""
    return bool(_completing_tiles(counts, done_sets, held))


def _shanten(counts: list[int], done_sets: int, held: list[int], size: int) -> int:
    s = shape_shanten(counts, done_sets)
    if s != 0 or 4 not in held:
        # Without four copies of a tile held, every wait the count finds is still live.
        return s
    if size == 13:
        return 0 if _really_ready(counts, done_sets, held) else 1
    # 14 tiles, one discard from ready by count: check that some discard really is.
    for t in range(PLAYING_KINDS):
        if counts[t]:
            counts[t] -= 1
            held[t] -= 1
            ok = shape_shanten(counts, done_sets) == 0 and _really_ready(counts, done_sets, held)
            counts[t] += 1
            held[t] += 1
            if ok:
                return 0
    return 1


def _parts(hand: Hand) -> tuple[list[int], int, list[int], int]:
    size = hand.size
    if size not in (13, 14):
        raise HandError("wrong_tile_count", f"shanten needs 13 or 14 tiles, the hand has {size}")
    counts = hand.counts()
    return counts, len(hand.melds), held_counts(counts, hand.melds), size


def shanten(hand: Hand) -> int:
    """Distance to ready of a 13- or 14-tile hand: 0 ready, -1 complete.

    A 14-tile hand counts as its best discard (so -1 means complete, 0 means a discard
    makes it ready). Melds are done sets. Raises ``HandError`` for other sizes.
    """
    counts, done_sets, held, size = _parts(hand)
    return _shanten(counts, done_sets, held, size)


def held_counts(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """Copies of each tile a hand holds: its concealed ``counts`` and its melds' tiles."""
    held = list(counts)
    for m in melds:
        for t in m.tiles:
            held[t] += 1
    return held


def shanten_of(counts: list[int], done_sets: int, held: list[int]) -> int:
    """``shanten`` on counts: the concealed tiles, the melds (``done_sets``) and every copy
    held (``held_counts``); the lists are left as they were."""
    size = sum(counts) + 3 * done_sets
    if size not in (13, 14):
        raise HandError("wrong_tile_count", f"shanten needs 13 or 14 tiles, the hand has {size}")
    return _shanten(counts, done_sets, held, size)


def _shape_parts(counts: list[int], done_sets: int) -> tuple[int, int, int, int, int]:
    """Each shape's count (regular, knitted straight, seven pairs, thirteen orphans,
    honors and knitted; 99 where the melds rule it out): ``shape_shanten`` is the least."""
    regular = regular_shanten(counts, done_sets)
    knitted = knitted_straight_shanten(counts, done_sets, 99) if done_sets <= 1 else 99
    if done_sets:
        return regular, knitted, 99, 99, 99
    return (
        regular,
        knitted,
        seven_pairs_shanten(counts),
        thirteen_orphans_shanten(counts),
        honors_knitted_shanten(counts),
    )


def _near(counts: list[int], t: int) -> bool:
    """Whether ``t`` (already added to ``counts``) can join a set or partial: a second
    copy, or a tile of its suit within two ranks. An isolated tile leaves the regular
    count as it was."""
    if counts[t] > 1:
        return True
    if t >= 27:
        return False
    r = t % 9
    return (
        (r > 0 and counts[t - 1] > 0)
        or (r < 8 and counts[t + 1] > 0)
        or (r > 1 and counts[t - 2] > 0)
        or (r < 7 and counts[t + 2] > 0)
    )


_ORPHAN_SET = frozenset(ORPHANS)


def useful_of(counts: list[int], done_sets: int, held: list[int]) -> tuple[int, tuple[int, ...]]:
    """A 13-tile hand's shanten and the tile codes that lower it (complete it when ready),
    on counts as ``shanten_of`` takes them.

    Only the shapes at the hand's count can be lowered by one tile, and each is checked
    only when the tile can matter to it (the coach asks this for every discard).
    """
    now = _shanten(counts, done_sets, held, 13)
    if now == 0:
        return now, tuple(_completing_tiles(counts, done_sets, held))
    regular, knitted, pairs, orphans, honors = _shape_parts(counts, done_sets)
    # A hand one further than its shape (its waits all held four times) is rare: the
    # plain definition serves it.
    shortcut = min(regular, knitted, pairs, orphans, honors) == now
    useful = []
    for t in range(PLAYING_KINDS):
        if held[t] >= 4:
            continue
        c = counts[t]
        counts[t] = c + 1
        held[t] += 1
        if not shortcut:
            lower = _shanten(counts, done_sets, held, 14) < now
        else:
            lower = (
                (regular == now and _near(counts, t) and regular_shanten(counts, done_sets) < now)
                or (pairs == now and c & 1 == 1)
                or (orphans == now and t in _ORPHAN_SET and thirteen_orphans_shanten(counts) < now)
                or (honors == now and not c and honors_knitted_shanten(counts) < now)
                or (knitted == now and knitted_straight_shanten(counts, done_sets, now) < now)
            )
            if lower and now == 1 and 4 in held:
                lower = _shanten(counts, done_sets, held, 14) < now  # really ready?
        if lower:
            useful.append(t)
        counts[t] = c
        held[t] -= 1
    return now, tuple(useful)


def useful_tiles(hand: Hand) -> tuple[Tile, ...]:
    """The tiles that bring a 13-tile hand closer to ready (or complete a ready one).

    Only tiles of which the hand does not already hold all four copies count.
    """
    counts, done_sets, held, size = _parts(hand)
    if size != 13:
        raise HandError("wrong_tile_count", "useful tiles are asked of a 13-tile hand")
    return tuple(PLAYING_TILES[t] for t in useful_of(counts, done_sets, held)[1])
