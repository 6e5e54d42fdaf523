"""The table's bot players, behind one small interface.

A bot is anything with ``choose(view, legal_actions) -> Action``: ``view`` is what its
seat may see (the engine's per-seat view), ``legal_actions`` the engine's legal list for
the seat (never empty when asked). The players themselves are the pure bots of
``gbmj.bots``; the server only seeds each from a secure source.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, Protocol

from gbmj import bots
from gbmj.game.actions import Action


class Bot(Protocol):
    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action: ...


def make_bot(level: str = "normal") -> Bot:
    """A bot of one of the protocol's levels (easy, normal, hard); ``ValueError`` for
    another word (the protocol lets no other level through)."""
    return bots.make_bot(level, seed=secrets.randbits(64))
