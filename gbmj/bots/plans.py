"""Target plans: the fan patterns a hand can aim for, and how far it is from each.

A *plan* is a way to reach 8 fan: a flush (清一色, 混一色), all pungs (碰碰和), a straight
(清龙, 花龙), three chows or pungs across the suits (三色三同顺, 三色三步高, 三色三节高), one
suit's shifted or identical chows and pungs, honour pungs (三风刻, 双箭刻), seven pairs
(七对), the knitted shapes (全不靠, 组合龙), the tile-range hands (大于五, 小于五, 全大,
全中, 全小, 推不倒, 绿一色, 字一色) and thirteen orphans, plus ``generic``: any four sets
and a pair, for hands whose 8 fan will come from small fans.

``distance(plan, counts, melds)`` is the plan's shanten: 0 ready, -1 complete; for a
14-tile hand it counts the best discard, like ``rules.shanten``. It reads the per-suit
shanten tables of ``rules.shanten``. Kinds of plan:

- *filter*: only some tiles may be used (a flush, a tile range): tiles outside the plan
  count as useless and every meld must fit;
- *core*: fixed sets (three chows or pungs; two pungs for 双箭刻) plus the other sets
  and a pair; the core's tiles held are set aside, each missing one costs a draw, the
  rest is read as the other sets and a pair; melds equal to a core set fill it, any
  other meld is a free set;
- *pungs*: four pungs or kongs and a pair, within a filter;
- *pairs*, *knitted*, *knitted straight*, *orphans*: the special shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import permutations
from typing import NamedTuple

from protocol.tiles import PLAYING_KINDS
from protocol.vocabulary import MeldKind

from ..rules import scoring as F
from ..rules.hand import Meld
from ..rules.shanten import (
    honors_knitted_shanten,
    knitted_straight_shanten,
    regular_shanten,
    thirteen_orphans_shanten,
)

FILTER, CORE, PUNGS, PAIRS, KNITTED, KNITTED_STRAIGHT, ORPHANS, GENERIC = range(8)

ALL = frozenset(range(PLAYING_KINDS))
HONORS = frozenset(range(27, 34))


def _suit(s: int) -> frozenset[int]:
    return frozenset(range(9 * s, 9 * s + 9))


def _ranks(ranks: Sequence[int]) -> frozenset[int]:
    return frozenset(9 * s + r - 1 for s in range(3) for r in ranks)


class Plan(NamedTuple):
    """A target: ``fan`` is what the plan's own fans are worth (at least)."""

    name: str
    fan: int
    kind: int
    mask: frozenset[int] = ALL
    core: tuple[tuple[int, int], ...] = ()  # (0 chow lowest tile | 1 pung tile, tile)
    # The fans the plan aims for (ids of protocol/fans.json, named in both languages
    # from there) and its suit (-1: none, or any), for players reading the plan.
    fans: tuple[int, ...] = ()
    suit: int = -1

    @property
    def honors_allowed(self) -> bool:
        return bool(self.mask & HONORS)

    @property
    def concealed_only(self) -> bool:
        return self.kind in (PAIRS, KNITTED, ORPHANS)


CHOW, PUNG = 0, 1


def _catalog() -> tuple[Plan, ...]:
    plans: list[Plan] = [Plan("无番和/小番", 0, GENERIC)]
    names = "万饼条"
    for s in range(3):
        plans.append(Plan(f"清一色{names[s]}", 24, FILTER, _suit(s), fans=(F.FULL_FLUSH,), suit=s))
        plans.append(
            Plan(f"混一色{names[s]}", 6, FILTER, _suit(s) | HONORS, fans=(F.HALF_FLUSH,), suit=s)
        )
        plans.append(
            Plan(
                f"混一色碰碰和{names[s]}",
                12,
                PUNGS,
                _suit(s) | HONORS,
                fans=(F.HALF_FLUSH, F.ALL_PUNGS),
                suit=s,
            )
        )
        plans.append(
            Plan(
                f"清龙{names[s]}",
                16,
                CORE,
                core=tuple((CHOW, 9 * s + k) for k in (0, 3, 6)),
                fans=(F.PURE_STRAIGHT,),
                suit=s,
            )
        )
    plans += [
        Plan("碰碰和", 6, PUNGS, fans=(F.ALL_PUNGS,)),
        Plan("字一色", 64, PUNGS, HONORS, fans=(F.ALL_HONORS,)),
        Plan("七对", 24, PAIRS, fans=(F.SEVEN_PAIRS,)),
        Plan("全不靠", 12, KNITTED, fans=(F.LESSER_HONORS_AND_KNITTED,)),
        Plan("组合龙", 12, KNITTED_STRAIGHT, fans=(F.KNITTED_STRAIGHT,)),
        Plan("十三幺", 88, ORPHANS, fans=(F.THIRTEEN_ORPHANS,)),
        Plan(
            "推不倒",
            8,
            FILTER,
            frozenset((9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 33)),
            fans=(F.REVERSIBLE_TILES,),
        ),
        Plan("绿一色", 88, FILTER, frozenset((19, 20, 21, 23, 25, 32)), fans=(F.ALL_GREEN,)),
        Plan("大于五", 12, FILTER, _ranks((6, 7, 8, 9)), fans=(F.UPPER_FOUR,)),
        Plan("小于五", 12, FILTER, _ranks((1, 2, 3, 4)), fans=(F.LOWER_FOUR,)),
        Plan("全大", 24, FILTER, _ranks((7, 8, 9)), fans=(F.UPPER_TILES,)),
        Plan("全中", 24, FILTER, _ranks((4, 5, 6)), fans=(F.MIDDLE_TILES,)),
        Plan("全小", 24, FILTER, _ranks((1, 2, 3)), fans=(F.LOWER_TILES,)),
    ]
    for a, b, c in permutations(range(3)):
        plans.append(
            Plan(
                "花龙",
                8,
                CORE,
                core=((CHOW, 9 * a), (CHOW, 9 * b + 3), (CHOW, 9 * c + 6)),
                fans=(F.MIXED_STRAIGHT,),
            )
        )
        for r in range(5):
            plans.append(
                Plan(
                    "三色三步高",
                    6,
                    CORE,
                    core=((CHOW, 9 * a + r), (CHOW, 9 * b + r + 1), (CHOW, 9 * c + r + 2)),
                    fans=(F.MIXED_SHIFTED_CHOWS,),
                )
            )
        for r in range(7):
            plans.append(
                Plan(
                    "三色三节高",
                    8,
                    CORE,
                    core=((PUNG, 9 * a + r), (PUNG, 9 * b + r + 1), (PUNG, 9 * c + r + 2)),
                    fans=(F.MIXED_SHIFTED_PUNGS,),
                )
            )
    for r in range(7):
        plans.append(
            Plan(
                "三色三同顺",
                8,
                CORE,
                core=((CHOW, r), (CHOW, 9 + r), (CHOW, 18 + r)),
                fans=(F.MIXED_TRIPLE_CHOW,),
            )
        )
        plans.append(
            Plan(
                "三同刻",
                16,
                CORE,
                core=((PUNG, r), (PUNG, 9 + r), (PUNG, 18 + r)),
                fans=(F.TRIPLE_PUNG,),
            )
        )
    for s in range(3):
        base = 9 * s
        shifted = [tuple((CHOW, base + r + k) for k in range(3)) for r in range(5)]
        shifted += [tuple((CHOW, base + r + 2 * k) for k in range(3)) for r in range(3)]
        for core in shifted:
            plans.append(
                Plan("一色三步高", 16, CORE, core=core, fans=(F.PURE_SHIFTED_CHOWS,), suit=s)
            )
        for r in range(7):
            plans.append(
                Plan(
                    "一色三同顺",
                    24,
                    CORE,
                    core=((CHOW, base + r),) * 3,
                    fans=(F.PURE_TRIPLE_CHOW,),
                    suit=s,
                )
            )
            plans.append(
                Plan(
                    "一色三节高",
                    24,
                    CORE,
                    core=tuple((PUNG, base + r + k) for k in range(3)),
                    fans=(F.PURE_SHIFTED_PUNGS,),
                    suit=s,
                )
            )
    for skip in range(4):
        winds = tuple(w for w in range(27, 31) if w != 27 + skip)
        plans.append(
            Plan(
                "三风刻", 12, CORE, core=tuple((PUNG, w) for w in winds), fans=(F.BIG_THREE_WINDS,)
            )
        )
    for skip in range(3):
        dragons = tuple(d for d in range(31, 34) if d != 31 + skip)
        # 双箭刻 is 6 fan: a third value pung or 门前清 makes 8 (see the fan estimate).
        plans.append(
            Plan(
                "双箭刻",
                6,
                CORE,
                core=tuple((PUNG, d) for d in dragons),
                fans=(F.TWO_DRAGON_PUNGS,),
            )
        )
    return tuple(plans)


PLANS: tuple[Plan, ...] = _catalog()


# Melds as plain ints (kind, tile, concealed, added), one tuple per meld.
MeldKey = tuple[tuple[int, int, int, int], ...]


class MeldInfo(NamedTuple):
    """What the plans need to know of a seat's melds, computed once per meld set."""

    size: int  # how many melds (``count`` would hide the tuple's own method)
    sets: tuple[tuple[int, int], ...]  # (CHOW | PUNG, tile) for each meld
    tiles: frozenset[int]
    any_chow: bool
    exposed: bool  # any meld other than a concealed kong
    # The melds as plain ints (kind, tile, concealed, added): a cache key the garbage
    # collector need not track, unlike ``Meld`` values.
    key: MeldKey


_KIND_CODE = {MeldKind.CHOW: 0, MeldKind.PUNG: 1, MeldKind.KONG: 2}


@cache
def meld_info(melds: tuple[Meld, ...]) -> MeldInfo:
    sets = tuple((CHOW if m.kind is MeldKind.CHOW else PUNG, int(m.tile)) for m in melds)
    tiles = frozenset(int(t) for m in melds for t in m.tiles)
    return MeldInfo(
        len(melds),
        sets,
        tiles,
        any(k == CHOW for k, _ in sets),
        any(not m.concealed for m in melds),
        tuple((_KIND_CODE[m.kind], int(m.tile), int(m.concealed), int(m.added)) for m in melds),
    )


def _pung_distance(counts: Sequence[int], sets: int) -> int:
    """Shanten of four pungs and a pair (melds already made: ``sets``)."""
    pairs = 0
    for c in counts:
        if c >= 3:
            sets += 1
        elif c == 2:
            pairs += 1
    if sets > 4:
        sets = 4
    head = 1 if pairs else 0
    return 8 - 2 * sets - min(pairs - head, 4 - sets) - head


# How far a hand is from a plan: (distance, the core tiles still to draw with repeats).
# A plain tuple of ints, not a NamedTuple: bots cache many of them, and the garbage
# collector stops tracking plain tuples of ints, so caching them costs no pause.
Reach = tuple[int, tuple[int, ...]]
DEAD: Reach = (99, ())


def reach(plan: Plan, counts: tuple[int, ...], melds: MeldInfo) -> Reach:
    """How far ``counts`` (concealed) with ``melds`` is from ``plan`` (``DEAD``: impossible)."""
    kind = plan.kind
    if kind == GENERIC:
        return (regular_shanten(list(counts), melds.size), ())
    if plan.concealed_only:
        if melds.size:
            return DEAD
        if kind == PAIRS:
            return (6 - min(7, sum(c >> 1 for c in counts)), ())
        if kind == KNITTED:
            return (honors_knitted_shanten(list(counts)), ())
        return (thirteen_orphans_shanten(list(counts)), ())
    if kind == KNITTED_STRAIGHT:
        if melds.size > 1:
            return DEAD
        return (knitted_straight_shanten(list(counts), melds.size, 99), ())
    mask = plan.mask
    if kind in (FILTER, PUNGS):
        if not melds.tiles <= mask or (kind == PUNGS and melds.any_chow):
            return DEAD
        kept = [c if t in mask else 0 for t, c in enumerate(counts)]
        # Every tile outside the plan must be replaced before the hand is ready (one
        # may be the discard): the count of sets and partials alone would miss that.
        outside = _outside(counts, kept, melds)
        if kind == FILTER:
            return (max(regular_shanten(kept, melds.size), outside), ())
        return (max(_pung_distance(kept, melds.size), outside), ())
    # A core of sets (three, or two dragon pungs): the rest is read as the other sets.
    core = list(plan.core)
    free = 0
    for s in melds.sets:
        if s in core:
            core.remove(s)
        else:
            free += 1
    done = len(plan.core)
    if free + done > 4:
        return DEAD
    rest = list(counts)
    missing: list[int] = []
    for k, t in core:
        for x in (t, t + 1, t + 2) if k == CHOW else (t, t, t):
            if rest[x]:
                rest[x] -= 1
            else:
                missing.append(x)
    return (len(missing) + regular_shanten(rest, done + free), tuple(missing))


def _outside(counts: Sequence[int], kept: Sequence[int], melds: MeldInfo) -> int:
    """Draws needed just to replace the tiles a filter leaves out (14 tiles: one less)."""
    held = sum(counts)
    outside = held - sum(kept)
    return outside - 1 if held + 3 * melds.size == 14 else outside


def reach_bound(plan: Plan, counts: tuple[int, ...], melds: MeldInfo) -> int:
    """A cheap lower bound of ``reach(...)[0]`` (99 when the melds rule the plan out)."""
    kind = plan.kind
    if kind in (FILTER, PUNGS):
        mask = plan.mask
        if not melds.tiles <= mask:
            return 99
        return _outside(counts, [c if t in mask else 0 for t, c in enumerate(counts)], melds)
    if kind != CORE:
        return -1
    sets = melds.sets
    if not any(s in sets for s in plan.core):
        return sum(n - counts[t] for t, n in _core_need(plan.core) if counts[t] < n) - 1
    have = list(counts)
    short = 0
    for s in plan.core:
        k, t = s
        if s in sets:
            continue
        for x in (t, t + 1, t + 2) if k == CHOW else (t, t, t):
            if have[x]:
                have[x] -= 1
            else:
                short += 1
    return short - 1


@cache
def _core_need(core: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The tiles a core is made of, as (tile, copies)."""
    need: dict[int, int] = {}
    for k, t in core:
        for x in (t, t + 1, t + 2) if k == CHOW else (t, t, t):
            need[x] = need.get(x, 0) + 1
    return tuple(sorted(need.items()))
