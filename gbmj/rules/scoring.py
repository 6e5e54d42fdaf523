"""The fan calculator: every fan of a winning hand, its points and the total.

``score_hand(hand, context)`` takes the 13-tile hand *before* the winning tile and the
win context, tries every winning shape and every decomposition of the regular shape, and
keeps the highest-scoring one. The five combination principles are built into how sets
are combined:

- 不重复 / 就高不就低: a fan implied by a bigger one is not counted again (the exclusion
  lists of the rule book, applied in ``_exclude``); the best decomposition wins.
- 不拆移: a set keeps its place in one decomposition: fans are computed per decomposition.
- 不得相同 / 套算一次: the one-fan "two chows" fans (一般高、喜相逢、连六、老少副) are capped by
  how many chows can still combine (each chow may combine with another only once), and
  after a three-set fan the fourth set combines once at most.

Fan ids are those of ``protocol/fans.json``; names and points come from there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import mul

from protocol.fans import FAN_BY_ID, Fan
from protocol.tiles import PLAYING_KINDS, WINDS, Tile
from protocol.vocabulary import MeldKind

from .errors import HandError
from .hand import Hand
from .shapes import (
    Decomposition,
    honors_and_knitted,
    is_nine_gates,
    is_seven_pairs,
    is_seven_shifted_pairs,
    is_thirteen_orphans,
    knitted_straight_splits,
    regular_decompositions,
)
from .waits import concealed_waits

# Fan ids (protocol/fans.json, rule-book order).
BIG_FOUR_WINDS = 1
BIG_THREE_DRAGONS = 2
ALL_GREEN = 3
NINE_GATES = 4
FOUR_KONGS = 5
SEVEN_SHIFTED_PAIRS = 6
THIRTEEN_ORPHANS = 7
ALL_TERMINALS = 8
LITTLE_FOUR_WINDS = 9
LITTLE_THREE_DRAGONS = 10
ALL_HONORS = 11
FOUR_CONCEALED_PUNGS = 12
PURE_TERMINAL_CHOWS = 13
QUADRUPLE_CHOW = 14
FOUR_PURE_SHIFTED_PUNGS = 15
FOUR_PURE_SHIFTED_CHOWS = 16
THREE_KONGS = 17
ALL_TERMINALS_AND_HONORS = 18
SEVEN_PAIRS = 19
GREATER_HONORS_AND_KNITTED = 20
ALL_EVEN_PUNGS = 21
FULL_FLUSH = 22
PURE_TRIPLE_CHOW = 23
PURE_SHIFTED_PUNGS = 24
UPPER_TILES = 25
MIDDLE_TILES = 26
LOWER_TILES = 27
PURE_STRAIGHT = 28
THREE_SUITED_TERMINAL_CHOWS = 29
PURE_SHIFTED_CHOWS = 30
ALL_FIVE = 31
TRIPLE_PUNG = 32
THREE_CONCEALED_PUNGS = 33
LESSER_HONORS_AND_KNITTED = 34
KNITTED_STRAIGHT = 35
UPPER_FOUR = 36
LOWER_FOUR = 37
BIG_THREE_WINDS = 38
MIXED_STRAIGHT = 39
REVERSIBLE_TILES = 40
MIXED_TRIPLE_CHOW = 41
MIXED_SHIFTED_PUNGS = 42
CHICKEN_HAND = 43
LAST_TILE_DRAW = 44
LAST_TILE_CLAIM = 45
OUT_WITH_REPLACEMENT_TILE = 46
ROBBING_THE_KONG = 47
ALL_PUNGS = 48
HALF_FLUSH = 49
MIXED_SHIFTED_CHOWS = 50
ALL_TYPES = 51
MELDED_HAND = 52
TWO_CONCEALED_KONGS = 53
TWO_DRAGON_PUNGS = 54
OUTSIDE_HAND = 55
FULLY_CONCEALED_HAND = 56
TWO_MELDED_KONGS = 57
LAST_TILE = 58
DRAGON_PUNG = 59
PREVALENT_WIND = 60
SEAT_WIND = 61
CONCEALED_HAND = 62
ALL_CHOWS = 63
TILE_HOG = 64
DOUBLE_PUNG = 65
TWO_CONCEALED_PUNGS = 66
CONCEALED_KONG = 67
ALL_SIMPLES = 68
PURE_DOUBLE_CHOW = 69
MIXED_DOUBLE_CHOW = 70
SHORT_STRAIGHT = 71
TWO_TERMINAL_CHOWS = 72
PUNG_OF_TERMINALS_OR_HONORS = 73
MELDED_KONG = 74
ONE_VOIDED_SUIT = 75
NO_HONORS = 76
EDGE_WAIT = 77
CLOSED_WAIT = 78
SINGLE_WAIT = 79
SELF_DRAWN = 80
FLOWER_TILES = 81
CONCEALED_KONG_AND_MELDED_KONG = 82

_TABLE_SIZE = 83
_POINTS = [0] + [FAN_BY_ID[i].points for i in range(1, _TABLE_SIZE)]


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won.

    ``fourth_tile``: the winning tile is the last copy, three being visible (和绝张).
    ``kong_related``: self-drawn, the replacement tile after a kong (杠上开花); on a
    discard, robbing a kong (抢杠和). ``last_tile``: self-drawn, the wall's last tile
    (妙手回春); on a discard, the last discard (海底捞月).
    """

    win_tile: Tile
    self_drawn: bool = False
    fourth_tile: bool = False
    kong_related: bool = False
    last_tile: bool = False
    seat_wind: Tile = Tile.E
    prevailing_wind: Tile = Tile.E
    flowers: int = 0


@dataclass(frozen=True, slots=True)
class FanCount:
    fan: Fan
    count: int

    @property
    def subtotal(self) -> int:
        return self.fan.points * self.count


@dataclass(frozen=True, slots=True)
class Score:
    """The fans of a win (flowers, 花牌, listed when there are any) and the totals."""

    fans: tuple[FanCount, ...]
    total: int
    total_without_flowers: int

    @property
    def meets_8(self) -> bool:
        """A win needs 8 fan without flowers."""
        return self.total_without_flowers >= 8


# -- tiles in "spaced" codes: suits 16 apart so that arithmetic never crosses a suit -----
# m 0-8, p 16-24, s 32-40, honors 48-54 (E S W N C F P).
def _sp(t: int) -> int:
    return t + 7 * (t // 9) if t < 27 else t + 21


_SP = tuple(_sp(t) for t in range(PLAYING_KINDS))
_TILE_OF_SP = {sp: t for t, sp in enumerate(_SP)}
_SP_E, _SP_S, _SP_W, _SP_N, _SP_C, _SP_F, _SP_P = range(48, 55)


def _suited(sp: int) -> bool:
    return sp < 48


def _rank(sp: int) -> int:
    """0-8 for suited tiles."""
    return sp & 15


def _terminal(sp: int) -> bool:
    return sp < 48 and (sp & 15) in (0, 8)


def _dragon(sp: int) -> bool:
    return sp >= _SP_C


def _wind(sp: int) -> bool:
    return _SP_E <= sp <= _SP_N


# -- fans of sets combined ------------------------------------------------------------
def _chows4(a: int, b: int, c: int, d: int) -> int:
    """Four-chow fans of sorted lowest tiles (spaced codes)."""
    if a + 2 == b and b + 2 == c and c + 2 == d:
        return FOUR_PURE_SHIFTED_CHOWS
    if a + 1 == b and b + 1 == c and c + 1 == d:
        return FOUR_PURE_SHIFTED_CHOWS
    if a == b == c == d:
        return QUADRUPLE_CHOW
    return 0


def _chows3(a: int, b: int, c: int) -> int:
    """Three-chow fans of sorted lowest tiles."""
    sa, sb, sc = a >> 4, b >> 4, c >> 4
    if sa != sb and sa != sc and sb != sc:
        ra, rb, rc = sorted((a & 15, b & 15, c & 15))
        if ra + 1 == rb and rb + 1 == rc:
            return MIXED_SHIFTED_CHOWS
        if ra == rb == rc:
            return MIXED_TRIPLE_CHOW
        if (ra, rb, rc) == (0, 3, 6):
            return MIXED_STRAIGHT
        return 0
    if a + 3 == b and b + 3 == c and a & 15 == 0:
        return PURE_STRAIGHT
    if (a + 2 == b and b + 2 == c) or (a + 1 == b and b + 1 == c):
        return PURE_SHIFTED_CHOWS
    if a == b == c:
        return PURE_TRIPLE_CHOW
    return 0


def _chows2(a: int, b: int) -> int:
    """The one-fan fan of two chows (order free)."""
    if a >> 4 != b >> 4:
        return MIXED_DOUBLE_CHOW if a & 15 == b & 15 else 0
    if a + 3 == b or b + 3 == a:
        return SHORT_STRAIGHT
    if {a & 15, b & 15} == {0, 6}:
        return TWO_TERMINAL_CHOWS
    if a == b:
        return PURE_DOUBLE_CHOW
    return 0


# Order in which the one-fan chow fans are dropped when too many (the cheapest kinds of
# link first): 老少副, 连六, 喜相逢, 一般高.
_PAIR_FANS = (PURE_DOUBLE_CHOW, MIXED_DOUBLE_CHOW, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS)


def _cap_pair_fans(found: list[int], limit: int, f: list[int]) -> None:
    """套算一次: keep at most ``limit`` of the two-chow fans, dropping repeats first."""
    table = [found.count(x) for x in _PAIR_FANS]
    cnt = sum(table)
    keep_each = 1
    while cnt > limit and keep_each >= 0:
        for i in (3, 2, 1, 0):
            while table[i] > keep_each and cnt > limit:
                table[i] -= 1
                cnt -= 1
        keep_each -= 1
    for x, n in zip(_PAIR_FANS, table, strict=True):
        f[x] += n


def _extra_chow(a: int, b: int, c: int, extra: int) -> int:
    """After a three-chow fan, the fourth chow combines once: the best one-fan link."""
    links = (_chows2(a, extra), _chows2(b, extra), _chows2(c, extra))
    for fan in _PAIR_FANS:
        if fan in links:
            return fan
    return 0


def _score_chows(ch: list[int], f: list[int]) -> None:
    n = len(ch)
    if n == 4:
        fan = _chows4(*ch)
        if fan:
            f[fan] = 1
            return
        for i, j, k, e in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
            fan = _chows3(ch[i], ch[j], ch[k])
            if fan:
                f[fan] = 1
                extra = _extra_chow(ch[i], ch[j], ch[k], ch[e])
                if extra:
                    f[extra] = 1
                return
        links = [_chows2(ch[i], ch[j]) for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))]
        # A chow linked to no other cannot take part; each linked chow allows one fan.
        limit = 3
        for pairs in ((0, 1, 2), (0, 3, 4), (1, 3, 5), (2, 4, 5)):
            if not any(links[p] for p in pairs):
                limit -= 1
        if limit > 0:
            _cap_pair_fans(links, limit, f)
    elif n == 3:
        fan = _chows3(*ch)
        if fan:
            f[fan] = 1
            return
        _cap_pair_fans([_chows2(ch[0], ch[1]), _chows2(ch[0], ch[2]), _chows2(ch[1], ch[2])], 2, f)
    elif n == 2:
        fan = _chows2(ch[0], ch[1])
        if fan:
            f[fan] += 1


def _pungs4(a: int, b: int, c: int, d: int) -> int:
    if _suited(d) and a + 1 == b and b + 1 == c and c + 1 == d:
        return FOUR_PURE_SHIFTED_PUNGS
    if (a, b, c, d) == (_SP_E, _SP_S, _SP_W, _SP_N):
        return BIG_FOUR_WINDS
    return 0


def _pungs3(a: int, b: int, c: int) -> int:
    if _suited(c):
        sa, sb, sc = a >> 4, b >> 4, c >> 4
        if sa != sb and sa != sc and sb != sc:
            ra, rb, rc = sorted((a & 15, b & 15, c & 15))
            if ra + 1 == rb and rb + 1 == rc:
                return MIXED_SHIFTED_PUNGS
            if ra == rb == rc:
                return TRIPLE_PUNG
        elif a + 1 == b and b + 1 == c:
            return PURE_SHIFTED_PUNGS
        return 0
    if _wind(a) and _wind(b) and _wind(c):
        return BIG_THREE_WINDS
    if (a, b, c) == (_SP_C, _SP_F, _SP_P):
        return BIG_THREE_DRAGONS
    return 0


def _pungs2(a: int, b: int) -> int:
    if _suited(a) and _suited(b):
        return DOUBLE_PUNG if a & 15 == b & 15 else 0
    if _dragon(a) and _dragon(b):
        return TWO_DRAGON_PUNGS
    return 0


def _score_pungs(pu: list[int], f: list[int]) -> None:
    n = len(pu)
    if n == 4:
        fan = _pungs4(*pu)
        if fan:
            f[fan] = 1
            return
        for i, j, k, free in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
            fan = _pungs3(pu[i], pu[j], pu[k])
            if fan:
                f[fan] = 1
                # 套算一次: the free pung combines with one of the three at most once.
                for other in (pu[i], pu[j], pu[k]):
                    fan = _pungs2(other, pu[free])
                    if fan:
                        f[fan] += 1
                        break
                return
    elif n == 3:
        fan = _pungs3(*pu)
        if fan:
            f[fan] = 1
            return
    for i in range(n):
        for j in range(i + 1, n):
            fan = _pungs2(pu[i], pu[j])
            if fan:
                f[fan] += 1


# -- hand-wide fans (the same for every decomposition) ----------------------------------
_REVERSIBLE = frozenset(_SP[t] for t in (9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 33))
_GREEN = frozenset(_SP[t] for t in (19, 20, 21, 23, 25, 32))


def _tile_fans(unique: list[int], f: list[int]) -> None:
    """Fans that depend only on which tiles the hand holds: suits, kinds and ranks."""
    suits = {sp >> 4 for sp in unique if sp < 48}
    honors = [sp for sp in unique if sp >= 48]
    if not honors:
        f[NO_HONORS] = 1
    voided = 3 - len(suits)
    if voided == 2:
        if honors:
            f[HALF_FLUSH] = 1
        else:
            f[FULL_FLUSH] = 1
            f[NO_HONORS] = 0
    elif voided:
        f[ONE_VOIDED_SUIT] = voided
    if len(suits) == 3 and any(map(_wind, honors)) and any(map(_dragon, honors)):
        f[ALL_TYPES] = 1

    if not honors and not any(map(_terminal, unique)):
        f[ALL_SIMPLES] = 1
    if all(sp in _REVERSIBLE for sp in unique):
        f[REVERSIBLE_TILES] = 1
    if all(sp in _GREEN for sp in unique):
        f[ALL_GREEN] = 1
    if not f[ALL_SIMPLES]:
        if not suits:
            f[ALL_HONORS] = 1
        elif all(map(_terminal, unique)):
            f[ALL_TERMINALS] = 1
        elif all(_terminal(sp) or sp >= 48 for sp in unique):
            f[ALL_TERMINALS_AND_HONORS] = 1

    if honors:
        return
    ranks = {sp & 15 for sp in unique}
    if max(ranks) <= 3:
        f[LOWER_FOUR if 3 in ranks else LOWER_TILES] = 1
    elif min(ranks) >= 5:
        f[UPPER_FOUR if 5 in ranks else UPPER_TILES] = 1
    elif min(ranks) >= 3 and max(ranks) <= 5:
        f[MIDDLE_TILES] = 1


def _win_fans(ctx: WinContext, f: list[int]) -> None:
    if ctx.fourth_tile:
        f[LAST_TILE] = 1
    if ctx.self_drawn:
        f[SELF_DRAWN] = 1
        if ctx.last_tile:
            f[LAST_TILE_DRAW] = 1
            f[SELF_DRAWN] = 0
        if ctx.kong_related:
            f[OUT_WITH_REPLACEMENT_TILE] = 1
            f[SELF_DRAWN] = 0
    else:
        if ctx.last_tile:
            f[LAST_TILE_CLAIM] = 1
        if ctx.kong_related:
            f[ROBBING_THE_KONG] = 1
            f[LAST_TILE] = 0  # 抢杠和 不计和绝张


# Exclusions of the rule book (不重复): when the key fan counts, these do not.
_EXCLUDES: tuple[tuple[int, tuple[int, ...]], ...] = (
    (BIG_FOUR_WINDS, (ALL_PUNGS, PUNG_OF_TERMINALS_OR_HONORS)),
    (BIG_THREE_DRAGONS, (DRAGON_PUNG,)),
    (ALL_GREEN, (HALF_FLUSH, ONE_VOIDED_SUIT)),
    (FOUR_KONGS, (SINGLE_WAIT,)),
    (
        ALL_TERMINALS,
        (ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS, NO_HONORS, DOUBLE_PUNG),
    ),
    (LITTLE_FOUR_WINDS, (PUNG_OF_TERMINALS_OR_HONORS,)),
    (LITTLE_THREE_DRAGONS, (DRAGON_PUNG,)),
    (ALL_HONORS, (ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS, ONE_VOIDED_SUIT)),
    (FOUR_CONCEALED_PUNGS, (ALL_PUNGS, CONCEALED_HAND)),
    (PURE_TERMINAL_CHOWS, (FULL_FLUSH, ALL_CHOWS, NO_HONORS)),
    (FOUR_PURE_SHIFTED_PUNGS, (ALL_PUNGS,)),
    (ALL_TERMINALS_AND_HONORS, (ALL_PUNGS, OUTSIDE_HAND, PUNG_OF_TERMINALS_OR_HONORS)),
    (ALL_EVEN_PUNGS, (ALL_PUNGS, ALL_SIMPLES, NO_HONORS)),
    (UPPER_TILES, (NO_HONORS,)),
    (MIDDLE_TILES, (ALL_SIMPLES, NO_HONORS)),
    (LOWER_TILES, (NO_HONORS,)),
    (THREE_SUITED_TERMINAL_CHOWS, (ALL_CHOWS, NO_HONORS)),
    (ALL_FIVE, (ALL_SIMPLES, NO_HONORS)),
    (UPPER_FOUR, (NO_HONORS,)),
    (LOWER_FOUR, (NO_HONORS,)),
)
_EXCLUDES_LATE: tuple[tuple[int, tuple[int, ...]], ...] = (
    (REVERSIBLE_TILES, (ONE_VOIDED_SUIT,)),
    (LAST_TILE_DRAW, (SELF_DRAWN,)),
    (OUT_WITH_REPLACEMENT_TILE, (SELF_DRAWN,)),
    (MELDED_HAND, (SINGLE_WAIT,)),
    (TWO_DRAGON_PUNGS, (DRAGON_PUNG,)),
    (FULLY_CONCEALED_HAND, (SELF_DRAWN,)),
    (ALL_CHOWS, (NO_HONORS,)),
    (ALL_SIMPLES, (NO_HONORS,)),
)


def _exclude(f: list[int]) -> None:
    for fan, excluded in _EXCLUDES:
        if f[fan]:
            for x in excluded:
                f[x] = 0
    if f[FOUR_CONCEALED_PUNGS] and f[FULLY_CONCEALED_HAND]:
        # 四暗刻 不计不求人, but the self-drawn win still counts.
        f[FULLY_CONCEALED_HAND] = 0
        f[SELF_DRAWN] = 1
    if f[BIG_THREE_WINDS] and not f[ALL_HONORS] and not f[ALL_TERMINALS_AND_HONORS]:
        # The three wind pungs of 三风刻 are not also 幺九刻.
        f[PUNG_OF_TERMINALS_OR_HONORS] -= 3
    for fan, excluded in _EXCLUDES_LATE:
        if f[fan]:
            for x in excluded:
                f[x] = 0


def _wind_pungs(winds: list[int], ctx: WinContext, f: list[int]) -> None:
    """圈风刻 / 门风刻; such a pung is no longer also a 幺九刻."""
    deducted = (
        f[BIG_THREE_WINDS] or f[ALL_TERMINALS_AND_HONORS] or f[ALL_HONORS] or f[LITTLE_FOUR_WINDS]
    )
    prevailing = _SP[ctx.prevailing_wind]
    seat = _SP[ctx.seat_wind]
    for w in winds:
        if w == prevailing:
            f[PREVALENT_WIND] = 1
            if not deducted:
                f[PUNG_OF_TERMINALS_OR_HONORS] -= 1
        if w == seat:
            f[SEAT_WIND] = 1
            if seat != prevailing and not deducted:
                f[PUNG_OF_TERMINALS_OR_HONORS] -= 1


def _kong_fans(concealed_sets: int, melded_kongs: int, concealed_kongs: int, f: list[int]) -> None:
    """Kongs and concealed pungs (a concealed kong is also a concealed pung)."""
    kongs = melded_kongs + concealed_kongs
    if kongs == 1:
        f[MELDED_KONG if melded_kongs else CONCEALED_KONG] = 1
    elif kongs == 2:
        if concealed_kongs == 0:
            f[TWO_MELDED_KONGS] = 1
        elif concealed_kongs == 1:
            f[CONCEALED_KONG_AND_MELDED_KONG] = 1
        else:
            f[TWO_CONCEALED_KONGS] = 1
            if concealed_sets == 2:
                return  # 双暗杠 不计双暗刻
    elif kongs == 3:
        f[THREE_KONGS] = 1
    elif kongs == 4:
        f[FOUR_KONGS] = 1
    if concealed_sets == 2:
        f[TWO_CONCEALED_PUNGS] = 1
    elif concealed_sets == 3:
        f[THREE_CONCEALED_PUNGS] = 1
    elif concealed_sets == 4:
        f[FOUR_CONCEALED_PUNGS] = 1


# -- the hand being scored --------------------------------------------------------------
_ONE_WAIT: dict[tuple[bytes, int], bool] = {}  # 13 concealed tiles, melds -> a single wait
_ONE_WAIT_LIMIT = 20_000


@dataclass(slots=True)
class _Win:
    """What every decomposition of one win shares."""

    ctx: WinContext
    win: int  # spaced code of the winning tile
    counts: list[int]  # concealed counts with the winning tile (tile codes)
    totals: list[int]  # every tile of the hand, kongs as four (tile codes)
    unique: list[int]  # spaced codes of the kinds of tile held
    meld_chows: list[int]
    meld_pungs: list[tuple[int, bool, bool]]  # spaced tile, concealed, kong
    exposed_melds: int  # melds other than concealed kongs
    unique_wait: bool | None = None  # computed when first needed
    tile_fans: list[tuple[int, int]] | None = None  # computed when first needed

    def add_tile_fans(self, f: list[int]) -> None:
        """The fans of the tiles held (the same for every decomposition)."""
        if self.tile_fans is None:
            g = [0] * _TABLE_SIZE
            _tile_fans(self.unique, g)
            self.tile_fans = [(i, n) for i, n in enumerate(g) if n]
        for i, n in self.tile_fans:
            f[i] = n

    def waits_on_one(self) -> bool:
        if self.unique_wait is None:
            before = self.counts[:]
            before[self.ctx.win_tile] -= 1
            melds = len(self.meld_chows) + len(self.meld_pungs)
            # The same 13 tiles are scored with each of their waits, on a discard and
            # self-drawn (the coach, the bots): their waits are found once.
            key = (bytes(before), melds)
            one = _ONE_WAIT.get(key)
            if one is None:
                if len(_ONE_WAIT) >= _ONE_WAIT_LIMIT:
                    _ONE_WAIT.clear()  # a long-running process: keep memory bounded
                one = _ONE_WAIT[key] = len(concealed_waits(before, melds)) == 1
            self.unique_wait = one
        return self.unique_wait


def _score_regular(w: _Win, chows: tuple[int, ...], pungs: tuple[int, ...], pair: int) -> list[int]:
    """The fan table of one decomposition of the regular shape (concealed sets given)."""
    f = [0] * _TABLE_SIZE
    ctx = w.ctx
    win = w.win
    _win_fans(ctx, f)

    c_chows = [_SP[t] for t in chows]
    c_pungs = [_SP[t] for t in pungs]
    pair = _SP[pair]
    all_chows = sorted(c_chows + w.meld_chows)

    # A pung completed by a discard is exposed, unless the tile can sit in a chow.
    concealed_sets = len(c_pungs)
    if not ctx.self_drawn and win in c_pungs and not any(c <= win <= c + 2 for c in c_chows):
        concealed_sets -= 1
    melded_kongs = concealed_kongs = 0
    all_pungs = list(c_pungs)
    for sp, concealed, kong in w.meld_pungs:
        all_pungs.append(sp)
        if kong:
            if concealed:
                concealed_kongs += 1
                concealed_sets += 1
            else:
                melded_kongs += 1
    all_pungs.sort()

    if all_pungs:
        _kong_fans(concealed_sets, melded_kongs, concealed_kongs, f)
        if len(all_pungs) == 4 and not f[FOUR_KONGS] and not f[FOUR_CONCEALED_PUNGS]:
            f[ALL_PUNGS] = 1
        for sp in all_pungs:
            if sp >= _SP_C:
                f[DRAGON_PUNG] += 1
            elif _terminal(sp) or sp >= 48:
                f[PUNG_OF_TERMINALS_OR_HONORS] += 1

    n_chows = len(all_chows)
    if n_chows == 4 and pair < 48 and pair & 15 == 4:
        ps = pair >> 4
        ranks = sorted((c >> 4, c & 15) for c in all_chows)
        others = sorted({0, 1, 2} - {ps})
        if ranks == [(others[0], 0), (others[0], 6), (others[1], 0), (others[1], 6)]:
            f[THREE_SUITED_TERMINAL_CHOWS] = 1
        elif ranks == [(ps, 0), (ps, 0), (ps, 6), (ps, 6)]:
            f[PURE_TERMINAL_CHOWS] = 1
    if not (f[THREE_SUITED_TERMINAL_CHOWS] or f[PURE_TERMINAL_CHOWS]):
        _score_chows(all_chows, f)
        if n_chows <= 2:
            _score_pungs(all_pungs, f)

    # Concealed hand, self-drawn, melded hand.
    exposed = w.exposed_melds
    if exposed == 0:
        f[FULLY_CONCEALED_HAND if ctx.self_drawn else CONCEALED_HAND] = 1
    elif exposed == 4:
        f[SELF_DRAWN if ctx.self_drawn else MELDED_HAND] = 1
    elif ctx.self_drawn:
        f[SELF_DRAWN] = 1

    # The pair: 平和, 小三元, 小四喜.
    if n_chows == 4:
        if pair < 48:
            f[ALL_CHOWS] = 1
    elif f[TWO_DRAGON_PUNGS]:
        if _dragon(pair):
            f[LITTLE_THREE_DRAGONS] = 1
            f[TWO_DRAGON_PUNGS] = 0
    elif f[BIG_THREE_WINDS] and _wind(pair):
        f[LITTLE_FOUR_WINDS] = 1
        f[BIG_THREE_WINDS] = 0

    # Every set and the pair: 全带幺, 全带五, 全双刻.
    outside = five = even = 0
    for c in all_chows:
        r = c & 15
        if r in (0, 6):
            outside += 1
        elif 2 <= r <= 4:
            five += 1
    for sp in (*all_pungs, pair):
        if sp >= 48:
            outside += 1
        else:
            r = sp & 15
            if r in (0, 8):
                outside += 1
            elif r == 4:
                five += 1
            elif r & 1:
                even += 1
    if outside == 5:
        f[OUTSIDE_HAND] = 1
    elif five == 5:
        f[ALL_FIVE] = 1
    elif even == 5:
        f[ALL_EVEN_PUNGS] = 1

    w.add_tile_fans(f)
    if not f[QUADRUPLE_CHOW]:
        f[TILE_HOG] = w.totals.count(4) - melded_kongs - concealed_kongs

    if f[MELDED_HAND] == 0 and f[FOUR_KONGS] == 0:
        _wait_fans(w, c_chows, pair, f)

    _exclude(f)
    if not f[BIG_FOUR_WINDS]:
        _wind_pungs([sp for sp in all_pungs if _wind(sp)], ctx, f)
    if not any(f):
        f[CHICKEN_HAND] = 1
    return f


def _wait_fans(w: _Win, c_chows: list[int], pair: int, f: list[int]) -> None:
    """边张 / 嵌张 / 单钓将, only when the hand waited on this one tile."""
    win = w.win
    edge = closed = single = False
    for c in c_chows:
        if c == win - 1:
            closed = True
        elif (c == win - 2 and c & 15 == 0) or (c == win and c & 15 == 6):
            edge = True
    if pair == win:
        single = True
    if not (edge or closed or single) or not w.waits_on_one():
        return
    if edge:
        f[EDGE_WAIT] = 1
    elif closed:
        f[CLOSED_WAIT] = 1
    else:
        f[SINGLE_WAIT] = 1


def _score_knitted(
    w: _Win, chows: tuple[int, ...], pungs: tuple[int, ...], pair_t: int
) -> list[int]:
    """组合龙 + one set + a pair."""
    f = [0] * _TABLE_SIZE
    f[KNITTED_STRAIGHT] = 1
    ctx = w.ctx
    pair = _SP[pair_t]
    set_concealed = True
    kong = False
    if chows or w.meld_chows:
        if pair < 48:
            f[ALL_CHOWS] = 1
        if w.totals[pair_t] == 4:
            f[TILE_HOG] = 1
        set_concealed = not w.meld_chows
    else:
        if pungs:
            sp = _SP[pungs[0]]
            tile = pungs[0]
        else:
            sp, set_concealed, kong = w.meld_pungs[0]
            tile = _TILE_OF_SP[sp]
            if kong:
                f[CONCEALED_KONG if set_concealed else MELDED_KONG] = 1
        if sp >= 48:
            if _wind(sp):
                f[PUNG_OF_TERMINALS_OR_HONORS] = 1
                _wind_pungs([sp], ctx, f)
                if _dragon(pair):
                    f[ALL_TYPES] = 1
            else:
                f[DRAGON_PUNG] = 1
                if _wind(pair):
                    f[ALL_TYPES] = 1
        else:
            if _terminal(sp):
                f[PUNG_OF_TERMINALS_OR_HONORS] = 1
            if pair < 48:
                f[NO_HONORS] = 1
            if not kong and w.totals[tile] == 4:
                f[TILE_HOG] = 1
    _win_fans(ctx, f)
    if set_concealed:
        if ctx.self_drawn:
            f[FULLY_CONCEALED_HAND] = 1
            f[SELF_DRAWN] = 0
        else:
            f[CONCEALED_HAND] = 1
    # The competition ruling (docs/rules.md §1.4): the winning tile may be read as a tile
    # of the straight and as the edge, closed or single wait of the set and pair at once,
    # so the wait fans are judged on the set and pair whether or not it is in the straight.
    _wait_fans(w, [_SP[c] for c in chows], pair, f)
    _exclude(f)
    return f


def _score_special(w: _Win, fan: int) -> list[int]:
    """Thirteen orphans and the honors-and-knitted shapes: the shape and how it was won."""
    f = [0] * _TABLE_SIZE
    f[fan] = 1
    if fan == LESSER_HONORS_AND_KNITTED and sum(1 for sp in w.unique if sp < 48) == 9:
        f[KNITTED_STRAIGHT] = 1
    _win_fans(w.ctx, f)
    return f


def _score_seven_pairs(w: _Win) -> list[int]:
    f = [0] * _TABLE_SIZE
    if is_seven_shifted_pairs(w.counts):
        f[SEVEN_SHIFTED_PAIRS] = 1
        if not any(_terminal(sp) for sp in w.unique):
            f[ALL_SIMPLES] = 1
        _win_fans(w.ctx, f)
        return f
    f[SEVEN_PAIRS] = 1
    _tile_fans(w.unique, f)
    f[TILE_HOG] = w.counts.count(4)
    _win_fans(w.ctx, f)
    _exclude(f)
    return f


# What 九莲宝灯 adds, by the rank of the winning tile: the regular fans of its tiles that
# the rule book does not exclude (清一色、不求人、门前清、无字、幺九刻×1 are excluded).
_NINE_GATES_EXTRA = {
    0: (PURE_STRAIGHT, TILE_HOG),
    8: (PURE_STRAIGHT, TILE_HOG),
    1: (TWO_CONCEALED_PUNGS, SHORT_STRAIGHT, PUNG_OF_TERMINALS_OR_HONORS),
    7: (TWO_CONCEALED_PUNGS, SHORT_STRAIGHT, PUNG_OF_TERMINALS_OR_HONORS),
    4: (TWO_CONCEALED_PUNGS, PUNG_OF_TERMINALS_OR_HONORS),
    2: (SHORT_STRAIGHT,),
    3: (SHORT_STRAIGHT,),
    5: (SHORT_STRAIGHT,),
    6: (SHORT_STRAIGHT,),
}


def _score_nine_gates(w: _Win) -> list[int]:
    f = [0] * _TABLE_SIZE
    f[NINE_GATES] = 1
    for fan in _NINE_GATES_EXTRA[w.win & 15]:
        f[fan] = 1
    _win_fans(w.ctx, f)
    return f


def _points(f: list[int]) -> int:
    return sum(map(mul, _POINTS, f))


def _check(hand: Hand, ctx: WinContext) -> None:
    """Bad input never gets a score (the tiles' copies are checked by ``_check_copies``)."""
    win = ctx.win_tile
    if not isinstance(win, int) or not 0 <= win < PLAYING_KINDS:
        raise HandError("bad_context", "the winning tile must be a playing tile")
    if ctx.seat_wind not in WINDS or ctx.prevailing_wind not in WINDS:
        raise HandError("bad_context", "seat and prevailing wind must be winds")
    if not 0 <= ctx.flowers <= 8:
        raise HandError("bad_context", "there are 0 to 8 flowers")
    if hand.size != 13:
        raise HandError(
            "wrong_tile_count",
            f"the hand before the winning tile has 13 tiles (a kong counts 3), not {hand.size}",
        )


def _check_copies(hand: Hand, ctx: WinContext, counts: list[int], totals: list[int]) -> None:
    """``counts``/``totals``: concealed / all tiles, the winning tile included."""
    win = ctx.win_tile
    if totals[win] > 4:
        raise HandError("too_many_copies", f"a fifth {Tile(win).notation} does not exist")
    if ctx.fourth_tile and counts[win] > 1:
        raise HandError("bad_context", "和绝张, yet the hand holds a copy of the winning tile")
    if ctx.kong_related:
        if ctx.self_drawn and not any(m.is_kong for m in hand.melds):
            raise HandError("bad_context", "杠上开花 without a kong")
        if not ctx.self_drawn and totals[win] > 1:
            raise HandError("bad_context", "抢杠和, yet the hand holds a copy of the robbed tile")


def score_hand(hand: Hand, context: WinContext) -> Score:
    """Score a win: ``hand`` is the 13-tile hand BEFORE the winning tile.

    Tries every shape and every decomposition and keeps the highest total. Raises
    ``HandError`` (``wrong_tile_count``, ``not_winning``, ``too_many_copies``,
    ``bad_context``) and never returns a score for bad input.
    """
    _check(hand, context)
    win_tile = context.win_tile
    counts = hand.counts()
    counts[win_tile] += 1
    totals = counts[:]
    meld_chows: list[int] = []
    meld_pungs: list[tuple[int, bool, bool]] = []
    exposed = 0
    for m in hand.melds:
        t = m.tile
        if m.kind is MeldKind.CHOW:
            totals[t] += 1
            totals[t + 1] += 1
            totals[t + 2] += 1
            meld_chows.append(_SP[t])
        else:
            totals[t] += 4 if m.kind is MeldKind.KONG else 3
            meld_pungs.append((_SP[t], m.concealed, m.kind is MeldKind.KONG))
        if not m.concealed:
            exposed += 1
    _check_copies(hand, context, counts, totals)
    # Own melds show three copies: the winning tile is then the last one (和绝张).
    if not context.fourth_tile and totals[win_tile] == 4 and counts[win_tile] == 1:
        context = _with_fourth_tile(context)
    w = _Win(
        ctx=context,
        win=_SP[win_tile],
        counts=counts,
        totals=totals,
        unique=[_SP[t] for t in range(PLAYING_KINDS) if totals[t]],
        meld_chows=meld_chows,
        meld_pungs=meld_pungs,
        exposed_melds=exposed,
    )

    best: list[int] | None = None
    best_points = 0
    seven_pairs = False
    n_melds = len(hand.melds)
    if n_melds == 0:
        if is_seven_pairs(counts):
            best = _score_seven_pairs(w)
            seven_pairs = bool(best[SEVEN_PAIRS])
        elif honors_and_knitted(counts) is not None:
            honors = sum(1 for sp in w.unique if sp >= 48)
            best = _score_special(
                w, GREATER_HONORS_AND_KNITTED if honors == 7 else LESSER_HONORS_AND_KNITTED
            )
        elif is_thirteen_orphans(counts):
            best = _score_special(w, THIRTEEN_ORPHANS)
    if best is None and n_melds <= 1:
        for split in knitted_straight_splits(counts):
            r = split.rest
            f = _score_knitted(w, r.chows, r.pungs, r.pair)
            if best is None or _points(f) > _points(best):
                best = f
    if best is None and n_melds == 0 and is_nine_gates(counts, win_tile):
        best = _score_nine_gates(w)
    if best is not None:
        best_points = _points(best)

    if best is None or seven_pairs:
        decomps: Sequence[Decomposition] = regular_decompositions(counts)
        if len(decomps) > 1:
            decomps = sorted(decomps, key=_search_order)
        for d in decomps:
            f = _score_regular(w, d.chows, d.pungs, d.pair)
            p = _points(f)
            # Equal totals: the reference keeps the first, but prefers a split showing
            # 一色三同顺 or 三同刻, and a regular split over seven pairs.
            if p > best_points or (
                p == best_points and (seven_pairs or f[PURE_TRIPLE_CHOW] or f[TRIPLE_PUNG])
            ):
                best, best_points = f, p
    if best is None or best_points == 0:
        raise HandError("not_winning", f"{hand} with {Tile(win_tile).notation} is not a win")

    fans = [_fan_count(i, best[i]) for i in compress(_FAN_IDS, best)]
    if context.flowers:
        fans.append(_fan_count(FLOWER_TILES, context.flowers))
    return Score(tuple(fans), best_points + context.flowers, best_points)


_FAN_IDS = range(_TABLE_SIZE)
# FanCount values are immutable: one per (fan, count), made once (a fan counts a few times
# at most), so a score builds its list without constructing them again.
_FAN_COUNTS: dict[tuple[int, int], FanCount] = {}


def _fan_count(fan_id: int, count: int) -> FanCount:
    key = (fan_id, count)
    fc = _FAN_COUNTS.get(key)
    if fc is None:
        fc = _FAN_COUNTS[key] = FanCount(FAN_BY_ID[fan_id], count)
    return fc


def _search_order(d: Decomposition) -> tuple[tuple[int, int], ...]:
    """Sets sorted by first tile, pung before chow: the order a depth-first search
    meets the decompositions in (used only to break ties the same way every time)."""
    return tuple(sorted([(t, 0) for t in d.pungs] + [(t, 1) for t in d.chows]))


def _with_fourth_tile(ctx: WinContext) -> WinContext:
    return WinContext(
        ctx.win_tile,
        ctx.self_drawn,
        True,
        ctx.kong_related,
        ctx.last_tile,
        ctx.seat_wind,
        ctx.prevailing_wind,
        ctx.flowers,
    )
