"""The review after a hand (docs/rules.md §2.13): a player's costliest discards, judged by
the strongest bot's evaluation.

``review(hand, seat)`` replays a recorded hand (``gbmj.replay``) and, at each of the
seat's discards, values every discard it could have made as the hard bot values them
(``Evaluator.discard_values``: the plans toward 8 fan, a ready hand's scored waits, the
risk of feeding another win), from that seat's view only. The discards that lost most
value against the bot's choice, at most ``limit`` and each losing at least
``MIN_LOSS`` of the best value, come back with what the better discard kept: useful
tiles and plans.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from protocol.vocabulary import ActionKind, BotLevel

from ..bots import STYLES
from ..bots.plans import Plan
from ..bots.position import position_of
from ..bots.strategy import Caches, Evaluator
from ..game.actions import action_of
from ..game.views import make_view
from ..replay.build import hand_state
from ..replay.format import ReplayHand
from .hints import PlanHint, Sight, hints, plan_hints, sight_of

MIN_LOSS = 0.15  # a share of the best discard's value
LIMIT = 3


class Decision(NamedTuple):
    """One costly discard: the replay step it was made at (the state before it), the
    seat's turn number, the tile discarded and the bot's choice, the value lost (a share
    of the bot's choice's value), and for both discards the shanten after it, the unseen
    useful tiles, and the plans nearer after the better one."""

    step: int
    turn: int
    chosen: int
    better: int
    loss: float
    shanten_chosen: int
    shanten_better: int
    useful_chosen: int
    useful_better: int
    plans_kept: tuple[Plan, ...]


def review(hand: ReplayHand, seat: int, limit: int = LIMIT) -> tuple[Decision, ...]:
    """The seat's costliest discards in ``hand``, costliest first."""
    state = hand_state(hand, 0)
    style = STYLES[BotLevel.HARD]
    caches = Caches()
    found: list[Decision] = []
    turn = 0
    for step, a in enumerate(hand.actions):
        if a.seat == seat and a.kind is ActionKind.DISCARD and a.tile is not None:
            turn += 1
            view = make_view(state, seat)
            pos = position_of(view)
            ev = Evaluator(pos, style, caches, random.Random(0))
            values = {t: v for t, v, _ in ev.discard_values(pos.counts, pos.melds)}
            better = max(values, key=lambda t: (values[t], -pos.unseen[t]))
            top = values[better]
            chosen = int(a.tile)
            if chosen in values and top > 0:
                loss = (top - values[chosen]) / top
                if loss >= MIN_LOSS:
                    found.append(_decision(step, turn, chosen, better, loss, sight_of(view)))
        state.apply(a.seat, action_of(a.kind, a.tile))
    found.sort(key=lambda d: -d.loss)
    return tuple(found[:limit])


def _decision(step: int, turn: int, chosen: int, better: int, loss: float, seen: Sight) -> Decision:
    by_tile = {d.tile: d for d in hints(seen).discards}
    c, b = by_tile[chosen], by_tile[better]
    lost = {p.plan.name: p.distance for p in _plans_after(seen, chosen)}
    kept = tuple(
        p.plan
        for p in _plans_after(seen, better)
        if p.distance < lost.get(p.plan.name, p.distance + 1)
    )
    return Decision(
        step, turn, chosen, better, loss, c.shanten, b.shanten, c.useful_tiles, b.useful_tiles, kept
    )


def _plans_after(seen: Sight, tile: int) -> tuple[PlanHint, ...]:
    counts = list(seen.concealed)
    counts[tile] -= 1
    return plan_hints(tuple(counts), seen.melds, seen.unseen)
