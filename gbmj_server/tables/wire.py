"""The frames a table sends: events, prompts, snapshots' game views.

What a viewer may see was decided by the engine (``events.for_viewer``,
``views.make_view``), whose values are the protocol's records already: these only wrap
them in their messages. Events and prompts are the server's hot path: their frames are
packed without a second check (``CHECK_OUTGOING`` turns it on), events once per distinct
form.
"""

from __future__ import annotations

from msgspec.structs import replace

from gbmj.game.events import SPECTATOR
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from gbmj_server.net.connection import CHECK_OUTGOING
from protocol import messages as m
from protocol.framing import encode
from protocol.vocabulary import TimerClass


def event_frame(table_id: int, seq: int, event: m.EventBody) -> bytes:
    """One ``event`` frame for an event already in its viewer's form."""
    return encode(m.Event(table_id=table_id, seq=seq, event=event), check=CHECK_OUTGOING)


def prompt_frame(
    table_id: int,
    seq: int,
    actions: tuple[m.ActionChoice, ...],
    timer: TimerClass,
    ms_left: int | None,
    reserve_ms: int | None = None,
) -> bytes:
    """One ``prompt`` frame: the seat's legal ``actions`` at the table's ``seq``."""
    prompt = m.Prompt(
        table_id=table_id,
        seq=seq,
        actions=actions,
        timer=timer,
        ms_left=ms_left,
        reserve_ms=reserve_ms or None,
    )
    return encode(prompt, check=CHECK_OUTGOING)


def game_view(state: HandState, viewer: int, ms_left: int | None) -> m.GameView:
    """The hand in play as ``viewer`` (a seat, or ``SPECTATOR``) may see it now: the
    engine's record with the time left on its timer (the prompt carries the legal
    actions, ``hand_result`` the result and the revealed wall)."""
    game = make_view(state, viewer).game
    if ms_left is None or game.timer is None:
        return game
    return replace(game, ms_left=ms_left)


__all__ = ["SPECTATOR", "event_frame", "game_view", "prompt_frame"]
