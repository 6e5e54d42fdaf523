"""The bot players: a shanten-only baseline and the plan-following bot at three levels.

Every bot is pure: ``choose(view, legal_actions)`` reads only the seat's view and the
legal list, uses no clock, and draws randomness only from its own seeded generator.
Every bot declares every win it is offered (the engine offers only wins of 8 fan).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from protocol.messages import ActionChoice
from protocol.vocabulary import ActionKind, MeldKind

from ..game.actions import PASS, WIN, tile_of
from ..game.views import HandView
from ..rules.hand import Meld
from ..rules.shanten import shape_shanten
from .position import Counts, Position, position_of
from .strategy import Caches, Evaluator, Style, with_added_kong, with_meld


def _by_kind(legal: Sequence[ActionChoice]) -> dict[ActionKind, list[ActionChoice]]:
    out: dict[ActionKind, list[ActionChoice]] = {}
    for a in legal:
        out.setdefault(a.kind, []).append(a)
    return out


def _minus(counts: Counts, *tiles: int) -> Counts:
    c = list(counts)
    for t in tiles:
        c[t] -= 1
    return tuple(c)


def claimed_meld(pos: Position, action: ActionChoice) -> tuple[Counts, Meld]:
    """The concealed tiles left and the meld made by claiming the offered tile."""
    assert pos.offer is not None
    discarder, t, _ = pos.offer
    rel = (pos.seat - discarder) % 4
    kind = action.kind
    if kind is ActionKind.CHOW:
        lo = int(tile_of(action))
        used = [x for x in (lo, lo + 1, lo + 2) if x != t]
        meld = Meld(MeldKind.CHOW, tile_of(action), claimed_from=rel, claimed_tile=t)
        return _minus(pos.counts, *used), meld
    if kind is ActionKind.PUNG:
        return _minus(pos.counts, t, t), Meld(MeldKind.PUNG, t, claimed_from=rel, claimed_tile=t)
    return _minus(pos.counts, t, t, t), Meld(MeldKind.KONG, t, claimed_from=rel, claimed_tile=t)


def _isolation(t: int, counts: Counts) -> int:
    """How much a tile is connected to the rest of the hand (lower: let it go first)."""
    score = 4 * (counts[t] - 1)
    if t < 27:
        r = t % 9
        for step, weight in ((-2, 1), (-1, 2), (1, 2), (2, 1)):
            if 0 <= r + step < 9 and counts[t + step]:
                score += weight
        score += 1 if r in (0, 8) else 2
    return score


class BaselineBot:
    """Minimises shanten (over every winning shape) and nothing else.

    It discards to the lowest shanten (ties: the least connected tile), claims whenever
    a claim lowers its shanten and makes every kong that does not raise it.
    """

    level = "baseline"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: HandView, legal_actions: Sequence[ActionChoice]) -> ActionChoice:
        kinds = _by_kind(legal_actions)
        if ActionKind.WIN in kinds:
            return WIN
        pos = position_of(view)
        n = len(pos.melds)
        counts = pos.counts
        if ActionKind.DISCARD in kinds:
            best: tuple[int, int] | None = None
            choice = kinds[ActionKind.DISCARD][0]
            for a in kinds[ActionKind.DISCARD]:
                t = int(tile_of(a))
                key = (shape_shanten(list(_minus(counts, t)), n), _isolation(t, counts))
                if best is None or key < best:
                    best, choice = key, a
            assert best is not None
            for a in kinds.get(ActionKind.CONCEALED_KONG, ()):
                t = int(tile_of(a))
                if shape_shanten(list(_minus(counts, t, t, t, t)), n + 1) <= best[0]:
                    return a
            for a in kinds.get(ActionKind.ADDED_KONG, ()):
                if shape_shanten(list(_minus(counts, int(tile_of(a)))), n) <= best[0]:
                    return a
            return choice
        now = shape_shanten(list(counts), n)
        for kind in (ActionKind.EXPOSED_KONG, ActionKind.PUNG, ActionKind.CHOW):
            for a in kinds.get(kind, ()):
                rest, _ = claimed_meld(pos, a)
                after = shape_shanten(list(rest), n + 1)
                if after < now or (kind is ActionKind.EXPOSED_KONG and after <= now):
                    return a
        return PASS


class PlanBot:
    """Plays for 8 fan: follows the plans its hand can reach (see ``strategy``)."""

    def __init__(self, style: Style, seed: int = 0) -> None:
        self.style = style
        self.level = style.name
        self.rng = random.Random(seed)
        self.caches = Caches()

    def choose(self, view: HandView, legal_actions: Sequence[ActionChoice]) -> ActionChoice:
        kinds = _by_kind(legal_actions)
        if ActionKind.WIN in kinds:
            return WIN  # the engine lists only wins of 8 fan: never pass one
        pos = position_of(view)
        ev = Evaluator(pos, self.style, self.caches, self.rng)
        if ActionKind.DISCARD in kinds:
            return self._turn(pos, ev, kinds)
        return self._claim(pos, ev, kinds)

    def _turn(
        self, pos: Position, ev: Evaluator, kinds: dict[ActionKind, list[ActionChoice]]
    ) -> ActionChoice:
        discards = {int(tile_of(a)): a for a in kinds[ActionKind.DISCARD]}
        tile, value, _ = ev.best_discard(pos.counts, pos.melds, list(discards))
        choice, best = discards[tile], value
        # A kong keeps the hand and draws a tile more: take it unless it spoils the plan.
        for a in kinds.get(ActionKind.CONCEALED_KONG, ()):
            t = int(tile_of(a))
            rest = _minus(pos.counts, t, t, t, t)
            melds = with_meld(pos.melds, Meld(MeldKind.KONG, tile_of(a), concealed=True))
            v, _ = ev.hand_value(rest, melds, ev.select(rest, melds))
            if v * 1.05 >= best:
                choice, best = a, v * 1.05
        for a in kinds.get(ActionKind.ADDED_KONG, ()):
            t = int(tile_of(a))
            rest = _minus(pos.counts, t)
            melds = with_added_kong(pos.melds, t)
            v, _ = ev.hand_value(rest, melds, ev.select(rest, melds))
            if v * 1.05 >= best:
                choice, best = a, v * 1.05
        return choice

    def _claim(
        self, pos: Position, ev: Evaluator, kinds: dict[ActionKind, list[ActionChoice]]
    ) -> ActionChoice:
        if not self.style.claims or pos.offer is None:
            return PASS
        stay, _ = ev.hand_value(pos.counts, pos.melds, ev.select(pos.counts, pos.melds))
        choice, best = PASS, stay * (1.0 + self.style.claim_margin)
        for kind in (ActionKind.EXPOSED_KONG, ActionKind.PUNG, ActionKind.CHOW):
            for a in kinds.get(kind, ()):
                rest, meld = claimed_meld(pos, a)
                melds = with_meld(pos.melds, meld)
                if kind is ActionKind.EXPOSED_KONG:
                    v, feasible = ev.hand_value(rest, melds, ev.select(rest, melds))
                    v *= 1.05  # the replacement draw
                else:
                    _, v, feasible = ev.best_discard(rest, melds)
                # Claim only toward a plan that still reaches 8 fan.
                if feasible and v > best:
                    choice, best = a, v
        return choice
