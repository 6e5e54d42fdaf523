"""Valuing a hand by the plans it can still reach, and choosing by that value.

The value of a 13-tile hand estimates the points its best plans are worth: for each plan
``W(fan) * feasible * live * q ** distance * horizon`` where ``W`` grows with the fan the
plan should score, ``feasible`` is low when the plan's own fans do not reach 8, ``live``
falls when the core tiles the plan still lacks are nearly all seen, ``q`` is the chance
of gaining one step and ``horizon`` shrinks as the wall runs out. A ready hand is valued
exactly: its waits are scored with ``score_hand``, and only waits that reach 8 fan count,
weighted by their unseen copies. The hand's value is its best plan plus a share of the
others, so that hands keeping two routes open are preferred.

A decision compares the values of the hands each legal action leads to. Per-position
work is cached: plan reaches within a decision, scored waits across decisions (they do
not depend on the tiles seen, only the weights applied to them do).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.tiles import Tile
from protocol.vocabulary import MeldKind

from ..rules.errors import HandError
from ..rules.hand import Hand, Meld
from ..rules.scoring import WinContext, score_hand
from ..rules.waits import concealed_waits
from .plans import (
    CORE,
    DEAD,
    FILTER,
    GENERIC,
    PLANS,
    PUNGS,
    MeldInfo,
    MeldKey,
    Plan,
    Reach,
    meld_info,
    reach,
    reach_bound,
)
from .position import Counts, Position

# The chance a core tile is still drawn or claimed, by its unseen copies beyond those
# already counted on.
_LIVE = (0.0, 0.45, 0.75, 0.9, 1.0)
_WAITS_LIMIT = 5_000


@dataclass(frozen=True, slots=True)
class Style:
    """How a level plays (``q``: chance of one step; ``share``: weight of second plans)."""

    name: str
    q: float = 0.3
    share: float = 0.2
    keep: int = 10  # plans followed per decision
    exact_ready: bool = True  # score a ready hand's waits
    noise: float = 0.0  # multiplicative noise on each option's value
    claims: bool = True
    claim_margin: float = 0.05
    ready_rate: float = 0.12  # a ready hand's chance of winning per live winning tile
    self_drawn_share: float = 0.3  # of a wait that reaches 8 fan only self-drawn
    # Weight of the risk of feeding another seat's win. Measured over 800-1,500 hands
    # its effect is within the noise (vs baselines: 0.1 best, 1.0 worse; among strong
    # bots 0.3 deals in less); kept small so bots still fold a hopeless hand late.
    caution: float = 0.2
    plan_ids: tuple[int, ...] = tuple(range(len(PLANS)))


def win_weight(fan: int) -> float:
    """What a win of ``fan`` is worth: about 24 + fan on a discard, 24 + 3 fan self-drawn."""
    return 24.0 + 2.0 * min(fan, 64)


class Caches:
    """Scored waits, kept across a bot's decisions (they depend only on the seat's tiles).

    Plan reaches are memoised for one decision only: across decisions they are seldom
    asked again, and a large long-lived cache makes every full garbage collection of
    the process slower (measured: 50,000 entries cost 14 ms a collection).
    """

    def __init__(self) -> None:
        self.waits: dict[tuple[Counts, MeldKey, int, int], tuple[tuple[int, int, int], ...]] = {}

    def trim(self) -> None:
        if len(self.waits) > _WAITS_LIMIT:
            self.waits.clear()


class Evaluator:
    """Values hands for one seat at one decision (its unseen tiles and winds fixed)."""

    def __init__(self, pos: Position, style: Style, caches: Caches, rng: random.Random) -> None:
        self.pos = pos
        self.style = style
        self.caches = caches
        self.rng = rng
        self.unseen = pos.unseen
        self.value_tiles = {31, 32, 33, int(pos.seat_wind), int(pos.prevailing_wind)}
        self.double_wind = int(pos.seat_wind) if pos.seat_wind == pos.prevailing_wind else -1
        self.reaches: dict[tuple[int, Counts, MeldKey], Reach] = {}
        caches.trim()

    # -- the parts ------------------------------------------------------------------------
    def reach(self, i: int, counts: Counts, melds: tuple[Meld, ...], info: MeldInfo) -> Reach:
        key = (i, counts, info.key)
        r = self.reaches.get(key)
        if r is None:
            r = self.reaches[key] = reach(PLANS[i], counts, info)
        return r

    def honour_fan(self, counts: Counts, info: MeldInfo) -> int:
        """Fan the value honours (dragons, own and prevailing wind) promise."""
        fan = 0
        for t in self.value_tiles:
            each = 4 if t == self.double_wind else 2
            if counts[t] >= 3 or (1, t) in info.sets:
                fan += each
            elif counts[t] == 2:
                fan += each // 2
        return fan

    def estimate(self, plan: Plan, honour_fan: int, info: MeldInfo) -> int:
        """The fan a win by ``plan`` should score (``honour_fan`` from ``honour_fan``)."""
        fan = plan.fan
        if plan.kind in (GENERIC, FILTER, PUNGS, CORE):
            if plan.honors_allowed:
                fan += honour_fan
            if not info.exposed:
                fan += 2  # 门前清 (or 不求人 self-drawn)
            if plan.kind == GENERIC:
                fan += 2  # the small fans most hands pick up
        return fan

    def horizon(self, distance: int) -> float:
        draws = self.pos.draws_left
        return min(1.0, (draws + 1) / (2 * distance + 3))

    def plan_value(self, i: int, r: Reach, fan: int) -> float:
        """The worth of following plan ``i``, ``r`` away, to a win of ``fan``."""
        value = win_weight(fan) * _feasible(PLANS[i], fan)
        if r[1]:
            unseen = self.unseen
            need: dict[int, int] = {}
            for t in r[1]:
                n = need.get(t, 0)
                value *= _LIVE[max(0, unseen[t] - n)]
                need[t] = n + 1
        d = max(r[0], 1)  # a ready plan is valued by its waits (``ready_value``)
        return value * self.style.q**d * self.horizon(d)

    def ready_value(self, counts: Counts, melds: tuple[Meld, ...]) -> float:
        """A ready hand's worth from its waits that reach 8 fan (0 if none)."""
        pos = self.pos
        key = (counts, meld_info(melds).key, int(pos.seat_wind), int(pos.prevailing_wind))
        scored = self.caches.waits.get(key)
        if scored is None:
            scored = self.caches.waits[key] = _score_waits(counts, melds, pos)
        total = 0.0
        best = 0.0
        for w, on_discard, self_drawn in scored:
            live = self.unseen[w]
            if not live:
                continue
            if on_discard:
                weight = win_weight(on_discard)
                total += live * weight
            elif self_drawn:
                weight = win_weight(self_drawn)
                total += live * weight * self.style.self_drawn_share
            else:
                continue
            best = max(best, weight)
        return min(total * self.style.ready_rate, 0.9 * best) * self.horizon(0)

    # -- hands ----------------------------------------------------------------------------
    def select(self, counts: Counts, melds: tuple[Meld, ...]) -> list[int]:
        """The plans worth following from this hand (13 or 14 tiles), best first.

        Plans are tried in the order of a cheap upper bound of their value, and the
        search stops once no plan left can enter the best ``keep``.
        """
        info = meld_info(melds)
        base = self.reach(0, counts, melds, info)[0]
        honours = self.honour_fan(counts, info)
        q = self.style.q
        bounds: list[tuple[float, int, int]] = []
        for i in self.style.plan_ids:
            plan = PLANS[i]
            low = reach_bound(plan, counts, info)
            if low > base + 3:
                continue
            fan = self.estimate(plan, honours, info)
            upper = win_weight(fan) * _feasible(plan, fan) * q ** max(low, 1)
            bounds.append((upper, i, fan))
        bounds.sort(reverse=True)
        keep = self.style.keep
        scored: list[float] = []
        chosen: list[tuple[float, int]] = []
        for upper, i, fan in bounds:
            if len(scored) >= keep and upper * self.horizon(1) < scored[keep - 1]:
                break
            r = self.reach(i, counts, melds, info)
            if r is DEAD or r[0] > base + 3:
                continue
            v = self.plan_value(i, r, fan)
            chosen.append((v, i))
            scored.append(v)
            scored.sort(reverse=True)
        chosen.sort(reverse=True)
        return [i for _, i in chosen[:keep]]

    def hand_value(
        self, counts: Counts, melds: tuple[Meld, ...], plans: Sequence[int]
    ) -> tuple[float, bool]:
        """Value of a 13-tile hand over ``plans`` and whether it keeps an 8-fan route
        worth at least half its best route."""
        info = meld_info(melds)
        honours = self.honour_fan(counts, info)
        values: list[float] = []
        ready = False
        best_8 = 0.0  # the best value among routes that reach 8 fan
        for i in plans:
            r = self.reach(i, counts, melds, info)
            if r[0] > 50:
                continue
            if r[0] <= 0:
                ready = True
            fan = self.estimate(PLANS[i], honours, info)
            v = self.plan_value(i, r, fan)
            values.append(v)
            if fan >= 8 and v > best_8:
                best_8 = v
        if not ready and self.reach(0, counts, melds, info)[0] <= 0:
            ready = True
        if ready and self.style.exact_ready:
            exact = self.ready_value(counts, melds)
            if exact > 0:
                values.append(exact)
                best_8 = max(best_8, exact)
        if not values:
            return 0.0, False
        top = max(values)
        # An 8-fan route is kept when it is among the hand's main routes, not a long shot.
        feasible = best_8 >= 0.5 * top
        return top + self.style.share * (sum(values) - top), feasible

    def risk(self, t: int) -> float:
        """Points a discard of ``t`` is expected to lose by feeding another seat's win.

        Each other seat is ready with a chance that grows with its exposed melds and
        the wall's progress; a tile it discarded itself is seldom its wait, an honour
        with few unseen copies seldom anyone's, middle tiles most often. Dealing in
        costs about 16 points more than someone else's win would.
        """
        pos = self.pos
        progress = 1.0 - min(1.0, pos.wall_remaining / 84)
        left = self.unseen[t]
        if t >= 27:
            danger = 0.3 * left / 3
        else:
            rank = t % 9
            danger = 0.6 if rank in (0, 8) else 0.8 if rank in (1, 7) else 1.0
            danger *= min(1.0, 0.5 + left / 4)
        loss = 0.0
        for opp in pos.opponents:
            ready = min(0.9, 0.05 + 0.2 * opp.shown_melds + 0.6 * progress)
            loss += ready * (0.15 if t in opp.discarded else danger)
        return loss * 0.1 * 16.0

    def noisy(self, value: float) -> float:
        if self.style.noise:
            return value * self.rng.lognormvariate(0.0, self.style.noise)
        return value

    def discard_values(
        self, counts: Counts, melds: tuple[Meld, ...], choices: Sequence[int] | None = None
    ) -> list[tuple[int, float, bool]]:
        """Each discard from a 14-tile hand with its value (risk of feeding a win taken
        off) and whether it keeps an 8-fan route: (tile, value, feasible), in tile order
        (the coach's review judges a player's discards by these)."""
        plans = self.select(counts, melds)
        out = []
        c = list(counts)
        tiles = choices if choices is not None else [t for t in range(34) if c[t]]
        caution = self.style.caution
        for t in tiles:
            c[t] -= 1
            v, feasible = self.hand_value(tuple(c), melds, plans)
            c[t] += 1
            if caution:
                v -= caution * self.risk(t)
            out.append((t, v, feasible))
        return out

    def best_discard(
        self, counts: Counts, melds: tuple[Meld, ...], choices: Sequence[int] | None = None
    ) -> tuple[int, float, bool]:
        """The discard from a 14-tile hand with the best value: (tile, value, feasible)."""
        best = (-1, -math.inf, False)
        for t, v, feasible in self.discard_values(counts, melds, choices):
            # Between equal hands, let go of the tile most seen (the safest).
            v = self.noisy(v) + 1e-6 * (4 - self.unseen[t])
            if v > best[1]:
                best = (t, v, feasible)
        return best


def _feasible(plan: Plan, fan: int) -> float:
    """How likely a plan estimated at ``fan`` really ends with 8 fan."""
    return 1.0 if fan >= 8 else 0.15 if plan.kind == GENERIC else 0.35


def _score_waits(
    counts: Counts, melds: tuple[Meld, ...], pos: Position
) -> tuple[tuple[int, int, int], ...]:
    """(wait, fan on a discard or 0, fan self-drawn or 0) for each tile completing the hand."""
    out = []
    c = list(counts)
    waits = concealed_waits(c, len(melds))
    if not waits:
        return ()
    hand = Hand(tuple(Tile(t) for t in range(34) for _ in range(counts[t])), melds)
    for w in waits:
        fans = []
        for self_drawn in (False, True):
            ctx = WinContext(
                Tile(w),
                self_drawn=self_drawn,
                seat_wind=pos.seat_wind,
                prevailing_wind=pos.prevailing_wind,
            )
            try:
                score = score_hand(hand, ctx)
            except HandError:  # a fifth copy: no such win
                fans.append(0)
                continue
            fans.append(score.total_without_flowers if score.meets_8 else 0)
        out.append((w, fans[0], fans[1]))
    return tuple(out)


def with_meld(melds: tuple[Meld, ...], meld: Meld) -> tuple[Meld, ...]:
    return (*melds, meld)


def with_added_kong(melds: tuple[Meld, ...], tile: int) -> tuple[Meld, ...]:
    out = []
    for m in melds:
        if m.kind is MeldKind.PUNG and m.tile == tile:
            m = Meld(
                MeldKind.KONG,
                m.tile,
                claimed_from=m.claimed_from,
                claimed_tile=m.claimed_tile,
                added=True,
            )
        out.append(m)
    return tuple(out)
