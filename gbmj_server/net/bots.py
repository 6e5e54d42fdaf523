"""Bot players for the tables, behind one small interface.

A bot is anything with ``choose(view, legal_actions) -> Action``: ``view`` is what its
seat may see (the engine's per-seat view), ``legal_actions`` the engine's legal list for
the seat (never empty when asked). ``make_bot`` gives the real bots of
``gbmj_server.bots`` (plan-following, per level, seeded from a secure source);
``SimpleBot`` is the fallback for a level those do not know: it plays legally and not at
random (takes every win, discards the tile worst connected to the rest of its hand).
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from gbmj_server.game.actions import Action, ActionKind


class Bot(Protocol):
    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action: ...


def _usefulness(tile: int, counts: Counter[int]) -> int:
    """How much a tile helps the hand: copies held, and suited neighbours within two."""
    score = 4 * (counts[tile] - 1)
    if tile < 27:  # suited: neighbours in the same suit count
        suit, rank = divmod(tile, 9)
        for step, weight in ((-2, 1), (-1, 2), (1, 2), (2, 1)):
            if 0 <= rank + step < 9 and counts[suit * 9 + rank + step]:
                score += weight
        score += 1 if rank in (0, 8) else 2  # middle tiles chow more ways
    return score


def concealed_tiles(view: Any) -> list[int]:
    """The seat's own concealed tiles from an engine ``HandView`` (empty if hidden)."""
    own = view.seats[view.viewer]
    return [int(t) for t in own.concealed or ()]


class SimpleBot:
    """A legal, greedy-but-sensible policy until the real bot lands."""

    level = "simple"

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action:
        by_kind: dict[ActionKind, list[Action]] = {}
        for action in legal_actions:
            by_kind.setdefault(action.kind, []).append(action)
        if ActionKind.WIN in by_kind:
            return by_kind[ActionKind.WIN][0]
        counts = Counter(concealed_tiles(view))
        for kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG):
            if kind in by_kind:
                return by_kind[kind][0]
        discards = by_kind.get(ActionKind.DISCARD)
        if discards:
            return min(
                discards,
                key=lambda a: (_usefulness(int(a.tile), counts), -int(a.tile)),  # type: ignore[arg-type]
            )
        # A claim window: pung or kong an honour pair (value tiles), otherwise pass.
        for kind in (ActionKind.EXPOSED_KONG, ActionKind.PUNG):
            if kind in by_kind and _offered_is_honour(view):
                return by_kind[kind][0]
        for action in legal_actions:
            if action.kind is ActionKind.PASS:
                return action
        return legal_actions[0]


def _offered_is_honour(view: Any) -> bool:
    """The tile on offer in a claim window is a wind or a dragon."""
    return view.offer is not None and 27 <= int(view.offer[1]) <= 33


def make_bot(level: str = "normal") -> Bot:
    """A bot of the named level (the protocol's easy, normal, hard); a level the real
    bots do not know gets ``SimpleBot``."""
    from gbmj_server import bots

    try:
        return bots.make_bot(level, seed=secrets.randbits(64))
    except ValueError:
        return SimpleBot()
