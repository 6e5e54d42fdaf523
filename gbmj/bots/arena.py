"""Playing whole hands with bots at every seat (for tests, the bench and tuning).

``play_hand`` drives a ``HandState`` until it ends, asking each seat's bot whenever the
seat must act, and returns the finished state. ``on_decision`` (if given) wraps every
call to a bot, so a caller can time decisions or check them without the arena knowing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from protocol.messages import ActionChoice
from protocol.tiles import WINDS

from ..game.hand_state import HandState
from ..game.personal_walls import PersonalWalls
from ..game.views import HandView, make_view
from ..game.wall import Wall

if TYPE_CHECKING:
    from . import Bot

Decide = Callable[["Bot", HandView, tuple[ActionChoice, ...]], ActionChoice]


def _ask(bot: Bot, view: HandView, legal: tuple[ActionChoice, ...]) -> ActionChoice:
    return bot.choose(view, legal)


def play_hand(
    bots: Sequence[Bot],
    seed: bytes,
    *,
    dealer: int = 0,
    prevailing: int = 0,
    on_decision: Decide = _ask,
    personal_walls: bool = False,
) -> HandState:
    """Play one hand from the wall of ``seed`` (or, with ``personal_walls``, the four
    walls of duplicate play); seat ``s`` is played by ``bots[s]``."""
    wall = PersonalWalls.from_seed(seed, dealer) if personal_walls else Wall.from_seed(seed, dealer)
    state = HandState(wall, prevailing_wind=WINDS[prevailing])
    while not state.ended:
        seat = state.to_act[0]
        view = make_view(state, seat)
        action = on_decision(bots[seat], view, view.legal_actions)
        state.apply(seat, action)
    return state
