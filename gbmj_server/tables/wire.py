"""The wire forms a table sends: events, prompts, snapshots' game views.

What a viewer may see was decided by the engine (``Event.for_viewer``, ``views.make_view``);
these only put it in the protocol's shapes. Events and prompts are the server's hot path:
their maps are the engine's own ``to_dict`` (whose shape the tests hold to the schema,
``CHECK_OUTGOING``) and are packed without a second check, events once per distinct
form.
"""

from __future__ import annotations

from typing import Any

from gbmj.game.actions import to_plain
from gbmj.game.events import SPECTATOR, Event
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from gbmj_server.net.connection import CHECK_OUTGOING
from protocol import messages as m
from protocol.framing import encode_map
from protocol.messages import ActionChoice
from protocol.vocabulary import TimerClass

# HandView fields the wire GameView does not carry: the prompt carries the legal
# actions, and hand_result the result and the revealed wall.
_NOT_IN_GAME_VIEW = ("viewer", "legal_actions", "result", "wall_order", "salt")


def event_frame(table_id: int, seq: int, event: Event) -> bytes:
    """One ``event`` frame for an event already in its viewer's form."""
    wire = {"type": "event", "table_id": table_id, "seq": seq, "event": event.to_dict()}
    if CHECK_OUTGOING:
        m.Message.from_wire(wire)
    return encode_map(wire, "event")


def prompt_frame(
    table_id: int,
    seq: int,
    actions: tuple[ActionChoice, ...],
    timer: TimerClass,
    ms_left: int | None,
    reserve_ms: int | None = None,
) -> bytes:
    """One ``prompt`` frame: the seat's legal ``actions`` at the table's ``seq``."""
    wire: dict[str, Any] = {
        "type": "prompt",
        "table_id": table_id,
        "seq": seq,
        "actions": [to_plain(a) for a in actions],
        "timer": timer,
    }
    if ms_left is not None:
        wire["ms_left"] = ms_left
    if reserve_ms:
        wire["reserve_ms"] = reserve_ms
    if CHECK_OUTGOING:
        m.Message.from_wire(wire)
    return encode_map(wire, "prompt")


def game_view(state: HandState, viewer: int, ms_left: int | None) -> m.GameView:
    """The hand in play as ``viewer`` (a seat, or ``SPECTATOR``) may see it now."""
    view: dict[str, Any] = make_view(state, viewer).to_dict()
    for key in _NOT_IN_GAME_VIEW:
        view.pop(key, None)
    view["ms_left"] = ms_left if view.get("timer") is not None else None
    return m.GameView.from_wire(view)


__all__ = ["SPECTATOR", "event_frame", "game_view", "prompt_frame"]
