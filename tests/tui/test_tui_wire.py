"""Filling the view model from the protocol's own example messages."""

from __future__ import annotations

from dataclasses import replace

from gbmj_tui.model import FACE_DOWN_KONG, MeldModel, TableView
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
from protocol.messages import ActionChoice
from protocol.tiles import Tile as T
from protocol.vocabulary import ActionKind


def _example(cls: type) -> m.Message:
    return next(x for x in MESSAGE_EXAMPLES if isinstance(x, cls))


def _snapshot_view() -> TableView:
    snapshot = _example(m.Snapshot)
    assert isinstance(snapshot, m.Snapshot)
    return from_snapshot(snapshot)


def test_snapshot_fills_seats_hand_and_timer() -> None:
    view = _snapshot_view()
    assert view.me == 0 and view.table_id == 7 and view.seq == 57
    assert [s.name for s in view.seats] == ["alice", "bot-1", "carol", "bob"]
    assert view.seats[1].bot and view.seats[1].auto_play and not view.seats[2].connected
    assert view.drawn == T.W and T.W not in view.hand and len(view.hand) == 10
    assert view.hand == tuple(sorted(view.hand))
    assert view.seats[3].melds == (MeldModel("kong", None, concealed=True),)
    assert view.seats[0].melds[0].claimed_from == 1
    assert view.wall_count == 83 and view.hand_number == 2 and view.playing
    assert view.timer is not None and view.timer.ms_left == 12_400
    assert view.timer.total_ms == 15_000  # the table's turn timer
    assert view.turn == 0


def _check_hand_start(before: TableView, after: TableView) -> None:
    assert after.hand_number == 2 and after.dealer == 0 and after.playing
    assert after.hand == () and all(not s.discards and not s.melds for s in after.seats)
    assert after.wall_count == 144 and after.turn == 0


def _check_own_deal(before: TableView, after: TableView) -> None:
    assert len(after.hand) == 13 and after.hand == tuple(sorted(after.hand))
    assert after.seats[0].concealed_count == 13 and after.wall_count == before.wall_count - 13


def _check_other_deal(before: TableView, after: TableView) -> None:
    assert after.hand == before.hand and after.seats[1].concealed_count == 13


def _check_flower(before: TableView, after: TableView) -> None:
    assert T.F1 not in after.hand and after.seats[0].flowers[-1] == T.F1
    assert after.seats[0].concealed_count == before.seats[0].concealed_count - 1


def _check_own_draw(before: TableView, after: TableView) -> None:
    assert after.drawn == T.C and after.wall_count == before.wall_count - 1
    assert after.turn == before.turn  # a replacement keeps the turn


def _check_other_draw(before: TableView, after: TableView) -> None:
    assert after.turn == 2 and after.seats[2].concealed_count == before.seats[2].concealed_count + 1
    assert after.drawn == before.drawn  # another seat's tile is not seen


def _check_discard(before: TableView, after: TableView) -> None:
    assert after.seats[1].discards[-1] == T.M2 and after.offer == (1, T.M2)
    assert after.last_discard == 1


def _check_chow(before: TableView, after: TableView) -> None:
    meld = after.seats[0].melds[-1]
    assert (meld.kind, meld.tile, meld.claimed_tile, meld.claimed_from) == ("chow", T.M1, T.M2, 1)
    assert after.turn == 0 and after.offer is None


def _check_pung(before: TableView, after: TableView) -> None:
    meld = after.seats[1].melds[-1]
    assert (meld.kind, meld.tile, meld.claimed_from) == ("pung", T.E, 2)


def _check_exposed_kong(before: TableView, after: TableView) -> None:
    meld = after.seats[2].melds[-1]
    assert (meld.kind, meld.tile, meld.claimed_from) == ("kong", T.P5, 2)
    assert after.seats[2].concealed_count == max(before.seats[2].concealed_count - 3, 0)


def _check_hidden_kong(before: TableView, after: TableView) -> None:
    assert after.seats[3].melds[-1] == MeldModel("kong", None, concealed=True)
    assert after.seats[3].concealed_count == max(before.seats[3].concealed_count - 4, 0)


def _check_shown_kong(before: TableView, after: TableView) -> None:
    assert after.seats[3].melds[-1] == MeldModel("kong", T.F, concealed=True)


def _check_added_kong(before: TableView, after: TableView) -> None:
    kong = next(x for x in after.seats[1].melds if x.tile == T.E)
    assert kong.kind == "kong" and kong.added and after.offer == (1, T.E)


def _check_win(before: TableView, after: TableView) -> None:
    r = after.result
    assert r is not None and r.winner == 0 and r.from_seat == 1 and r.win_tile == T.C
    assert r.total == 11 and r.points == (35, -19, -8, -8)


def _check_self_drawn_win(before: TableView, after: TableView) -> None:
    assert after.result is not None and after.result.winner == 2
    assert after.result.from_seat is None


def _check_draw_game(before: TableView, after: TableView) -> None:
    assert after.result is not None and after.result.outcome == "exhaustive_draw"


def _check_escape(before: TableView, after: TableView) -> None:
    assert after.result is not None and after.result.escaper == 3


def _check_hand_end(before: TableView, after: TableView) -> None:
    assert not after.playing and after.result is not None
    assert after.result.hands[3] == tuple(sorted(after.result.hands[3]))
    assert all(isinstance(x, MeldModel) for ms in after.result.melds for x in ms)
    assert after.result.melds[3][0].tile == T.F  # the concealed kong shown at the end


def _check_sealed_hand_end(before: TableView, after: TableView) -> None:
    """A duplicate deal still to be played elsewhere: the others' tiles hidden, their
    concealed kong face down (a model meld, as in play)."""
    assert after.result is not None
    assert after.result.hands[2] == () and after.result.hands[3] == ()
    assert after.result.melds[3] == (FACE_DOWN_KONG,)


CHECKS = (
    _check_hand_start,
    _check_own_deal,
    _check_other_deal,
    _check_flower,
    _check_own_draw,
    _check_other_draw,
    _check_discard,
    _check_chow,
    _check_pung,
    _check_exposed_kong,
    _check_hidden_kong,
    _check_shown_kong,
    _check_added_kong,
    _check_win,
    _check_self_drawn_win,
    _check_draw_game,
    _check_escape,
    _check_hand_end,
    _check_sealed_hand_end,
)


def test_every_example_event_applies() -> None:
    """Each example event, applied in turn from the example snapshot, does what its
    reducer is for (a reducer that did nothing would fail its check)."""
    assert len(CHECKS) == len(EVENT_EXAMPLES)
    view = _snapshot_view()
    for seq, (body, check) in enumerate(zip(EVENT_EXAMPLES, CHECKS, strict=True), start=58):
        after = apply_event_message(view, m.Event(table_id=7, seq=seq, event=body))
        assert after.seq == seq
        check(view, after)
        view = after


def test_event_discard_then_prompt_names_the_tile() -> None:
    view = replace(_snapshot_view(), drawn=None)
    view = apply_event_message(
        view, m.Event(table_id=7, seq=58, event=m.Discard(seat=3, tile=T.S1))
    )
    prompt = _example(m.Prompt)
    assert isinstance(prompt, m.Prompt)
    view = apply_prompt(view, prompt)
    assert view.prompt is not None and view.prompt.is_claim
    assert view.prompt.tile == T.S1 and view.prompt.from_seat == 3
    assert view.prompt.actions == (
        ActionChoice(kind=ActionKind.CHOW, tile=T.S1),
        ActionChoice(kind=ActionKind.PUNG),
        ActionChoice(kind=ActionKind.PASS),
    )
    action = action_message(view, ActionChoice(kind=ActionKind.CHOW, tile=T.S1))
    assert (action.table_id, action.seq, action.kind, action.tile) == (7, 58, "chow", T.S1)
    # the action is a valid frame
    assert FrameDecoder().feed(encode(action)) == [action]


def test_hand_result_reveals_and_sets_scores() -> None:
    result = _example(m.HandResult)
    assert isinstance(result, m.HandResult)
    view = apply_hand_result(_snapshot_view(), result)
    result = view.result
    assert result is not None and result.winner == 0 and result.from_seat == 1
    assert result.total == 11 and result.fans[0].fan_id == 39
    assert [s.score for s in view.seats] == [59, -27, -16, -16]
    assert result.melds[3][0].concealed and result.melds[3][0].tile == T.F
    assert not view.playing and view.prompt is None
