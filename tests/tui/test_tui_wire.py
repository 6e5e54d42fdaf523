"""Filling the view model from the protocol's own example messages."""

from __future__ import annotations

from dataclasses import replace

from gbmj_tui.model import Choice, MeldView, TableView
from gbmj_tui.wire import (
    action_message,
    apply_event_message,
    apply_hand_result,
    apply_prompt,
    from_snapshot,
)
from protocol import messages as m
from protocol.examples import EVENT_EXAMPLES, MESSAGE_EXAMPLES
from protocol.framing import FrameDecoder, encode
from protocol.tiles import Tile as T


def _example(cls: type) -> m.Message:
    return next(x for x in MESSAGE_EXAMPLES if isinstance(x, cls))


def _snapshot_view() -> TableView:
    return from_snapshot(_example(m.Snapshot))  # type: ignore[arg-type]


def test_snapshot_fills_seats_hand_and_timer() -> None:
    view = _snapshot_view()
    assert view.me == 0 and view.table_id == 7 and view.seq == 57
    assert [s.name for s in view.seats] == ["alice", "bot-1", "carol", "bob"]
    assert view.seats[1].bot and view.seats[1].auto_play and not view.seats[2].connected
    assert view.drawn == T.W and T.W not in view.hand and len(view.hand) == 10
    assert view.hand == tuple(sorted(view.hand))
    assert view.seats[3].melds == (MeldView("kong", None, concealed=True),)
    assert view.seats[0].melds[0].claimed_from == 1
    assert view.wall_count == 83 and view.hand_number == 2 and view.playing
    assert view.timer is not None and view.timer.ms_left == 12_400
    assert view.timer.total_ms == 15_000  # the table's turn timer
    assert view.turn == 0


def test_every_example_event_applies() -> None:
    view = _snapshot_view()
    for seq, body in enumerate(EVENT_EXAMPLES, start=58):
        view = apply_event_message(view, m.Event(table_id=7, seq=seq, event=body))
        assert view.seq == seq
    assert view.result is not None
    assert all(isinstance(x, MeldView) for ms in view.result.melds for x in ms)


def test_event_discard_then_prompt_names_the_tile() -> None:
    view = replace(_snapshot_view(), drawn=None)
    view = apply_event_message(
        view, m.Event(table_id=7, seq=58, event=m.Discard(seat=3, tile=T.S1))
    )
    view = apply_prompt(view, _example(m.Prompt))  # type: ignore[arg-type]
    assert view.prompt is not None and view.prompt.is_claim
    assert view.prompt.tile == T.S1 and view.prompt.from_seat == 3
    assert view.prompt.actions == (Choice("chow", T.S1), Choice("pung"), Choice("pass"))
    action = action_message(view, Choice("chow", T.S1))
    assert (action.table_id, action.seq, action.kind, action.tile) == (7, 58, "chow", T.S1)
    # the action is a valid frame
    assert FrameDecoder().feed(encode(action)) == [action]


def test_hand_result_reveals_and_sets_scores() -> None:
    view = apply_hand_result(_snapshot_view(), _example(m.HandResult))  # type: ignore[arg-type]
    result = view.result
    assert result is not None and result.winner == 0 and result.from_seat == 1
    assert result.total == 11 and result.fans[0].fan_id == 39
    assert [s.score for s in view.seats] == [59, -27, -16, -16]
    assert result.melds[3][0].concealed and result.melds[3][0].tile == T.F
    assert not view.playing and view.prompt is None
