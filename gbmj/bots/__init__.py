"""Bot players for gbmj: ``make_bot(level, seed)`` gives a bot that plays for 8 fan.

A bot is anything with ``choose(view, legal_actions) -> ActionChoice``: ``view`` is the seat's
view from the engine (``views.make_view(state, seat)``), ``legal_actions`` its legal list (never
empty when asked). Bots are pure: no I/O, no clock, randomness only from their seed.

Levels: the protocol's ``BotLevel`` members ``easy``, ``normal`` and ``hard`` follow fan
plans (see ``strategy``), ``easy`` with much noise on its choices, fewer plans and fewer
claims, ``normal`` with a little noise, ``hard`` without. ``baseline`` minimises shanten
only: the yardstick the benchmarks measure the others against, never seated by the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from protocol.messages import ActionChoice
from protocol.vocabulary import BotLevel

from ..game.views import HandView
from .players import BaselineBot, PlanBot
from .strategy import Style

STYLES: dict[str, Style] = {
    # Noise on every option's value makes the weaker levels miss good plays now and then.
    BotLevel.EASY: Style(BotLevel.EASY, keep=4, noise=0.5, claim_margin=0.3, caution=0.0),
    BotLevel.NORMAL: Style(BotLevel.NORMAL, keep=8, noise=0.1, claim_margin=0.1),
    BotLevel.HARD: Style(BotLevel.HARD),
}
BASELINE = "baseline"
LEVELS: tuple[str, ...] = (BASELINE, *BotLevel)


class Bot(Protocol):
    level: str

    def choose(self, view: HandView, legal_actions: Sequence[ActionChoice]) -> ActionChoice: ...


def make_bot(level: str = "normal", seed: int = 0) -> Bot:
    """A bot of ``level`` (one of ``LEVELS``) drawing randomness from ``seed``.

    Raises ``ValueError`` for an unknown level.
    """
    if level == BASELINE:
        return BaselineBot(seed)
    if level not in STYLES:
        raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}")
    return PlanBot(STYLES[level], seed)


__all__ = ["LEVELS", "BaselineBot", "Bot", "PlanBot", "make_bot"]
