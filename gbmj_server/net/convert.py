"""The engine's values in the wire forms of ``protocol.messages``.

The protocol's game records follow the engine's names (events' ``to_dict``, the
``HandView``), so this module only drops what a wire form does not carry and adds what
the table knows (players, the clock). What a viewer may see was decided by the engine
(``for_viewer``, ``view``), never here.
"""

from __future__ import annotations

from typing import Any

from gbmj.game import events as E
from gbmj.game.hand_state import HandState

# HandView fields that are not part of the wire GameView: the prompt carries the legal
# actions, and hand_result/hand_end carry the result and the revealed wall.
_NOT_IN_GAME_VIEW = ("viewer", "legal_actions", "result", "wall_order", "salt")


def event_wire(event: E.Event) -> dict[str, Any]:
    """An engine event (already in the viewer's form) as a protocol event body."""
    return event.to_dict()


def game_view_wire(state: HandState, viewer: int, ms_left: int | None) -> dict[str, Any]:
    """``GameView``: the hand as ``viewer`` (a seat or SPECTATOR) may see it now."""
    view = state.view(viewer).to_dict()
    for key in _NOT_IN_GAME_VIEW:
        view.pop(key, None)
    view["ms_left"] = ms_left if view.get("timer") is not None else None
    return view
