"""Playing whole hands with bots at every seat (for tests, the bench and tuning).

``play_hand`` drives a ``HandState`` until it ends, asking each seat's bot whenever the
seat must act, and returns the finished state. ``on_decision`` (if given) wraps every
call to a bot, so a caller can time decisions or check them without the arena knowing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol.tiles import WINDS

from ..game.actions import Action
from ..game.hand_state import HandState
from ..game.wall import Wall

Decide = Callable[[object, object, tuple[Action, ...]], Action]


def _ask(bot, view, legal: tuple[Action, ...]) -> Action:
    return bot.choose(view, legal)


def play_hand(
    bots: Sequence,
    seed: bytes,
    *,
    dealer: int = 0,
    prevailing: int = 0,
    on_decision: Decide = _ask,
) -> HandState:
    """Play one hand from the wall of ``seed``; seat ``s`` is played by ``bots[s]``."""
    state = HandState(Wall.from_seed(seed, dealer), prevailing_wind=WINDS[prevailing])
    while not state.ended:
        seat = state.to_act[0]
        view = state.view(seat)
        action = on_decision(bots[seat], view, view.legal_actions)
        state.apply(seat, action)
    return state
