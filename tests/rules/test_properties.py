"""Property tests of the fan calculator over random winning hands (public API only).

Winning hands are built, not searched for: four sets and a pair (some sets declared as
melds, kongs included), seven pairs, thirteen orphans, honors and knitted tiles, and
knitted straight with a set and a pair. The winning tile is one of the concealed tiles,
the context is random but consistent (和绝张 only when the hand holds no other copy,
杠上开花 only with a kong, 抢杠和 only on a tile the hand does not hold).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from gbmj.rules.hand import Hand, Meld
from gbmj.rules.scoring import Score, WinContext, score_hand
from protocol.fans import FAN_BY_ID, FAN_BY_NAME_ZH
from protocol.tiles import PLAYING_KINDS, WINDS, Tile
from protocol.vocabulary import MeldKind

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
HONORS = tuple(range(27, 34))
SUIT_ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
ALL = tuple(range(PLAYING_KINDS))


def _ranks(*ranks: int) -> tuple[int, ...]:
    return tuple(9 * suit + rank - 1 for suit in range(3) for rank in ranks)


# Tiles the sets of a hand are drawn from: mostly anything, often one suit or a few
# ranks, so that the flush, terminal, honor and rank fans come up as well.
POOLS = (
    ALL,
    ALL,
    ALL,
    *(tuple(range(9 * s, 9 * s + 9)) for s in range(3)),
    *(tuple(range(9 * s, 9 * s + 9)) + HONORS for s in range(3)),
    HONORS,
    ORPHANS,
    _ranks(1, 2, 3),
    _ranks(4, 5, 6),
    _ranks(7, 8, 9),
    _ranks(1, 2, 3, 4),
    _ranks(6, 7, 8, 9),
    _ranks(2, 4, 6, 8),
    _ranks(3, 4, 5, 6, 7),
    _ranks(1, 2, 3, 7, 8, 9),
    (19, 20, 21, 23, 25, 32),  # 23468s 发: all green
    (9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 33),  # reversible tiles
)


@dataclass(frozen=True, repr=False)
class Win:
    """A winning hand as the calculator takes it, plus the concealed sets it was built
    from (("chow", lowest tile) or ("pung", tile)) for the decomposition property."""

    hand: Hand
    context: WinContext
    concealed_sets: tuple[tuple[str, int], ...] = ()

    def score(self) -> Score:
        return score_hand(self.hand, self.context)

    def __repr__(self) -> str:
        c = self.context
        flags = [k for k in ("self_drawn", "fourth_tile", "kong_related", "last_tile")
                 if getattr(c, k)]  # fmt: skip
        return (
            f"Win({str(self.hand)!r} + {c.win_tile.notation} {' '.join(flags)} "
            f"seat={c.seat_wind.notation} round={c.prevailing_wind.notation} "
            f"flowers={c.flowers})"
        )


# -- building winning hands -----------------------------------------------------------------
def _fits(counts: list[int], tiles: list[int]) -> bool:
    return all(counts[t] + tiles.count(t) <= 4 for t in set(tiles))


def _add(counts: list[int], tiles: list[int]) -> None:
    for t in tiles:
        counts[t] += 1


def _random_set(
    r: random.Random, counts: list[int], pool: tuple[int, ...] = tuple(range(PLAYING_KINDS))
) -> tuple[str, int]:
    """A chow, pung or kong of tiles from ``pool`` that still fits the copies left."""
    starts = [t for t in pool if t < 27 and t % 9 < 7 and t + 2 in pool]
    while True:
        kind = r.choice(("chow", "chow", "pung", "pung", "kong"))
        if kind == "chow" and starts:
            t = r.choice(starts)
            tiles = [t, t + 1, t + 2]
        elif kind == "chow":
            continue
        else:
            t = r.choice(pool)
            tiles = [t] * (4 if kind == "kong" else 3)
        if _fits(counts, tiles):
            _add(counts, tiles)
            return kind, t


def _regular(r: random.Random) -> tuple[list[int], list[Meld], list[tuple[str, int]]]:
    counts = [0] * PLAYING_KINDS
    concealed: list[int] = []
    melds: list[Meld] = []
    sets: list[tuple[str, int]] = []
    meld_chance = r.choice((0.0, 0.3, 0.6))
    pool = r.choice(POOLS)
    for _ in range(4):
        kind, t = _random_set(r, counts, pool)
        if kind == "kong":
            if r.random() < 0.5:
                melds.append(Meld(MeldKind.KONG, Tile(t), concealed=True))
            else:
                melds.append(Meld(MeldKind.KONG, Tile(t), claimed_from=r.randint(1, 3)))
        elif r.random() < meld_chance:
            seat = 1 if kind == "chow" else r.randint(1, 3)
            melds.append(Meld(MeldKind(kind), Tile(t), claimed_from=seat))
        elif kind == "chow":
            concealed += [t, t + 1, t + 2]
            sets.append((kind, t))
        else:
            concealed += [t] * 3
            sets.append((kind, t))
    pair = r.choice([t for t in pool if counts[t] <= 2] or [t for t in ALL if counts[t] <= 2])
    concealed += [pair, pair]
    return concealed, melds, sets


def _seven_pairs(r: random.Random) -> list[int]:
    counts = [0] * PLAYING_KINDS
    if r.random() < 0.3:  # keep some to one suit: 连七对, 清一色 and friends
        base = r.randrange(3) * 9
        pool = list(range(base, base + 9))
    else:
        pool = list(range(PLAYING_KINDS))
    tiles: list[int] = []
    while len(tiles) < 14:
        t = r.choice(pool)
        if counts[t] <= 2:
            counts[t] += 2
            tiles += [t, t]
    return tiles


def _knitted(order: tuple[int, int, int]) -> list[int]:
    return [
        9 * suit + start + 3 * k
        for suit, start in zip(order, (0, 1, 2), strict=True)
        for k in range(3)
    ]


def _special(r: random.Random) -> tuple[list[int], list[Meld]]:
    shape = r.choice(("pairs", "orphans", "honors_knitted", "knitted_straight"))
    if shape == "pairs":
        return _seven_pairs(r), []
    if shape == "orphans":
        return [*ORPHANS, r.choice(ORPHANS)], []
    knitted = _knitted(r.choice(SUIT_ORDERS))
    if shape == "honors_knitted":
        return r.sample([*knitted, *HONORS], 14), []
    counts = [0] * PLAYING_KINDS
    _add(counts, knitted)
    kind, t = _random_set(r, counts)
    while kind == "kong":  # keep it simple: one chow or pung besides the straight
        counts = [0] * PLAYING_KINDS
        _add(counts, knitted)
        kind, t = _random_set(r, counts)
    pair = r.choice([p for p in range(PLAYING_KINDS) if counts[p] <= 2])
    set_tiles = [t, t + 1, t + 2] if kind == "chow" else [t] * 3
    if r.random() < 0.3:
        meld = Meld(MeldKind(kind), Tile(t), claimed_from=1 if kind == "chow" else 2)
        return [*knitted, pair, pair], [meld]
    return [*knitted, *set_tiles, pair, pair], []


def _context(r: random.Random, concealed: list[int], melds: list[Meld], tile: int) -> WinContext:
    held = concealed.count(tile)  # copies before the winning one
    in_melds = sum(1 for m in melds for x in m.tiles if x == tile)
    self_drawn = r.random() < 0.5
    special = r.random()
    kong = last = False
    if special < 0.15:
        last = True
    elif special < 0.3:
        # 杠上开花 needs a kong of one's own; a robbed kong's tile is held by nobody else.
        kong = any(m.is_kong for m in melds) if self_drawn else held == 0 and in_melds == 0
    fourth = held == 0 and not (kong and not self_drawn) and r.random() < 0.2
    return WinContext(
        win_tile=Tile(tile),
        self_drawn=self_drawn,
        fourth_tile=fourth,
        kong_related=kong,
        last_tile=last,
        seat_wind=r.choice(WINDS),
        prevailing_wind=r.choice(WINDS),
        flowers=r.choice((0, 0, 0, 1, 2, 3, 8)),
    )


def _build(r: random.Random) -> Win:
    sets: list[tuple[str, int]] = []
    if r.random() < 0.75:
        tiles, melds, sets = _regular(r)
    else:
        tiles, melds = _special(r)
    tile = r.choice(tiles)
    tiles.remove(tile)
    hand = Hand(tuple(Tile(t) for t in tiles), tuple(melds))
    return Win(hand, _context(r, tiles, melds, tile), tuple(sets))


wins = st.randoms(use_true_random=False).map(_build)


# -- properties ---------------------------------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(wins)
def test_a_winning_hand_scores_and_adds_up(w: Win) -> None:
    s = w.score()
    fans = [fc.fan.id for fc in s.fans]
    assert len(fans) == len(set(fans)), "a fan is listed once, with its count"
    for fc in s.fans:
        assert FAN_BY_ID[fc.fan.id] == fc.fan
        assert fc.count >= 1
        assert fc.subtotal == fc.fan.points * fc.count
    assert s.total == sum(fc.subtotal for fc in s.fans)
    assert s.total - s.total_without_flowers == w.context.flowers
    flowers = {fc.fan.name_zh: fc.count for fc in s.fans}.get("花牌", 0)
    assert flowers == w.context.flowers
    assert s.meets_8 == (s.total_without_flowers >= 8)
    assert s.total_without_flowers >= 1


# Exclusions of docs/rules.md §1.4 (and §3.2 for the kong fans) where the excluded fan goes
# entirely; partial ones ("the pungs of 大三元 do not count 幺九刻") are left out.
EXCLUDES = {
    "大四喜": "三风刻 碰碰和 圈风刻 门风刻 幺九刻 小四喜",
    "大三元": "双箭刻 箭刻 小三元",
    "绿一色": "混一色",
    "九莲宝灯": "清一色 不求人 门前清 无字",
    "四杠": "碰碰和 单钓将 三杠 双明杠 双暗杠 明暗杠 明杠 暗杠",
    "连七对": "清一色 七对 不求人 门前清 无字 单钓将",
    "十三幺": "五门齐 不求人 门前清 单钓将",
    "清幺九": "碰碰和 全带幺 双同刻 幺九刻 无字 混幺九",
    "小四喜": "三风刻",
    "小三元": "双箭刻 箭刻",
    "字一色": "碰碰和 全带幺 幺九刻",
    "四暗刻": "碰碰和 不求人 门前清 三暗刻 双暗刻",
    "一色双龙会": "七对 清一色 平和 一般高 老少副 无字",
    "一色四同顺": "一色三同顺 一色三节高 四归一 一般高",
    "一色四节高": "一色三同顺 一色三节高 碰碰和",
    "一色四步高": "一色三步高 连六 老少副",
    "三杠": "双明杠 双暗杠 明暗杠 明杠 暗杠",
    "混幺九": "碰碰和 全带幺 幺九刻",
    "七对": "不求人 门前清 单钓将",
    "七星不靠": "全不靠 五门齐 不求人 门前清",
    "全双刻": "碰碰和 断幺 无字",
    "清一色": "无字",
    "一色三同顺": "一色三节高 一般高",
    "一色三节高": "一色三同顺",
    "全大": "大于五 无字",
    "全中": "断幺",
    "全小": "小于五 无字",
    "清龙": "连六 老少副",
    "三色双龙会": "平和 老少副 喜相逢 无字",
    "全带五": "断幺 无字",
    "三同刻": "双同刻",
    "三暗刻": "双暗刻",
    "全不靠": "五门齐 不求人 门前清",
    "大于五": "无字",
    "小于五": "无字",
    "推不倒": "缺一门",
    "三色三同顺": "喜相逢",
    "妙手回春": "自摸",
    "杠上开花": "自摸",
    "抢杠和": "和绝张",
    "全求人": "单钓将",
    "双暗杠": "双暗刻 暗杠",
    "双箭刻": "箭刻",
    "不求人": "自摸 门前清",
    "双明杠": "明杠",
    "平和": "无字",
    "断幺": "无字",
    "明暗杠": "明杠 暗杠",
}


def test_exclusion_table_names_real_fans() -> None:
    for fan, excluded in EXCLUDES.items():
        assert fan in FAN_BY_NAME_ZH
        assert all(name in FAN_BY_NAME_ZH for name in excluded.split()), fan


@settings(max_examples=400, deadline=None)
@given(wins)
def test_excluded_fans_are_never_listed_together(w: Win) -> None:
    names = {fc.fan.name_zh for fc in w.score().fans}
    for fan in names & EXCLUDES.keys():
        assert not names & set(EXCLUDES[fan].split()), (fan, names)
    if "无番和" in names:
        assert names <= {"无番和", "花牌"}, names


def _fan_counts(s: Score) -> dict[str, int]:
    return {fc.fan.name_zh: fc.count for fc in s.fans}


def _map_hand(w: Win, f) -> Win:
    """The same win with every tile mapped by ``f`` (a suit permutation or mirror)."""
    melds = []
    for m in w.hand.melds:
        tiles = sorted(f(t) for t in m.tiles)
        melds.append(replace(m, tile=Tile(tiles[0])))
    hand = Hand(tuple(Tile(f(t)) for t in w.hand.concealed), tuple(melds))
    return Win(hand, replace(w.context, win_tile=Tile(f(w.context.win_tile))))


# 推不倒 and 绿一色 depend on the suit and the faces; every other fan is symmetric.
ASYMMETRIC = {"推不倒", "绿一色"}


@settings(max_examples=200, deadline=None)
@given(wins, st.sampled_from(SUIT_ORDERS[1:]))
def test_the_suits_are_interchangeable(w: Win, order: tuple[int, int, int]) -> None:
    def f(t: int) -> int:
        return 9 * order[t // 9] + t % 9 if t < 27 else t

    before, after = w.score(), _map_hand(w, f).score()
    if ASYMMETRIC & (set(_fan_counts(before)) | set(_fan_counts(after))):
        return
    # Totals, not fan lists: two splits may tie (边张 in one, 嵌张 in the other) and
    # which one is listed may follow the tile order.
    assert after.total == before.total, (_fan_counts(before), _fan_counts(after))


MIRRORED = {"全大": "全小", "全小": "全大", "大于五": "小于五", "小于五": "大于五"}


@settings(max_examples=200, deadline=None)
@given(wins)
def test_ranks_read_backwards_score_the_same(w: Win) -> None:
    """1↔9, 2↔8, ...: 全大 becomes 全小 and 大于五 becomes 小于五, the total stays."""

    def f(t: int) -> int:
        return t - t % 9 + 8 - t % 9 if t < 27 else t

    before, after = w.score(), _map_hand(w, f).score()
    if ASYMMETRIC & (set(_fan_counts(before)) | set(_fan_counts(after))):
        return
    mirrored = {MIRRORED.get(k, k): v for k, v in _fan_counts(before).items()}
    assert after.total == before.total, (mirrored, _fan_counts(after))
    # The rank fans depend on the tiles alone, never on a tie between splits.
    for name in MIRRORED:
        assert mirrored.get(name) == _fan_counts(after).get(name), (mirrored, _fan_counts(after))


@settings(max_examples=200, deadline=None)
@given(wins, st.randoms(use_true_random=False))
def test_meld_order_and_flowers_change_nothing_else(w: Win, r: random.Random) -> None:
    melds = list(w.hand.melds)
    r.shuffle(melds)
    base = w.score()
    shuffled = Win(Hand(w.hand.concealed, tuple(melds)), w.context).score()
    assert shuffled == base
    flowers = r.randint(0, 8)
    more = Win(w.hand, replace(w.context, flowers=flowers)).score()
    without = {k: v for k, v in _fan_counts(base).items() if k != "花牌"}
    assert {k: v for k, v in _fan_counts(more).items() if k != "花牌"} == without
    assert more.total_without_flowers == base.total_without_flowers
    assert more.total == base.total_without_flowers + flowers


@settings(max_examples=300, deadline=None)
@given(wins, st.randoms(use_true_random=False))
def test_the_best_decomposition_beats_a_declared_one(w: Win, r: random.Random) -> None:
    """Declaring one concealed set of the hand (a chow, or a pung as claimed) fixes part
    of the decomposition: the calculator, free to choose, must score the concealed hand
    higher (it keeps 门前清 or 不求人, its concealed pungs, and can pick the same sets; a
    narrower wait gains at most one fan). When the hand already shows a meld there is
    no 门前清 to lose, and the declared hand may win by that one fan at most. Skipped when
    the declared hand is a chicken hand (无番和 is worth 8)."""
    if not w.concealed_sets or len(w.hand.melds) > 2:
        return  # with four melds 全求人 would come into play
    win_tile = w.context.win_tile
    held = sum(1 for t in w.hand.all_tiles() if t == win_tile)
    if held == 3:
        return  # declaring may show the third copy: 和绝张 by the table, a new fan
    kind, t = r.choice(w.concealed_sets)
    tiles = (t, t + 1, t + 2) if kind == "chow" else (t, t, t)
    concealed = list(w.hand.concealed)
    try:
        for x in tiles:
            concealed.remove(Tile(x))
    except ValueError:
        return  # the winning tile was one of the set's: nothing left to declare
    meld = Meld(MeldKind(kind), Tile(t), claimed_from=1 if kind == "chow" else r.randint(1, 3))
    declared = Win(Hand(tuple(concealed), (*w.hand.melds, meld)), w.context).score()
    if "无番和" in _fan_counts(declared):
        return
    best = w.score()
    why = (_fan_counts(declared), _fan_counts(best))
    if all(m.concealed for m in w.hand.melds):
        assert declared.total < best.total, why
    else:  # nothing concealed to lose; the narrower wait may still gain one fan
        assert declared.total <= best.total + 1, why
