"""The client's view model: one reducer per event kind keeps a viewer's table right."""

from __future__ import annotations

from dataclasses import replace

from tui_sample import sample_view

from gbmj_tui.model import BOTTOM, LEFT, RIGHT, TOP, MeldModel, TableView, round_label
from gbmj_tui.reducers import apply_event, on_prompt
from protocol.messages import ActionChoice
from protocol.tiles import Tile as T
from protocol.vocabulary import ActionKind


def test_positions_are_relative_to_the_viewer() -> None:
    view = replace(sample_view(), me=2)
    assert view.seat_at(BOTTOM).seat == 2
    assert view.seat_at(RIGHT).seat == 3  # the next in turn (下家)
    assert view.seat_at(TOP).seat == 0
    assert view.seat_at(LEFT).seat == 1  # the previous in turn (上家)
    spectator = sample_view(me=None)
    assert spectator.seat_at(BOTTOM).seat == 0


def test_round_label() -> None:
    view = sample_view()
    assert round_label(view, "zh") == "南风西局"
    assert round_label(view, "en") == "South round, hand 3"


def test_hand_start_and_deal() -> None:
    view = apply_event(
        replace(TableView(me=1), timer_ms=(30_000, 15_000, 5_000)),
        "hand_start",
        round_number=1,
        hand_number=2,
        dealer=1,
        seat_winds=(T.N, T.E, T.S, T.W),
        prevailing_wind=T.E,
        dice=((2, 6), (1, 1)),
        second_roller=2,
    )
    assert view.dealer == 1 and view.hand_number == 2 and view.playing
    assert [s.wind for s in view.seats] == [T.N, T.E, T.S, T.W]
    tiles = (T.E, T.M1, T.P5, T.M1, T.S9, T.C, T.C, T.N, T.M7, T.P1, T.P2, T.P3, T.F, T.S2)
    view = apply_event(view, "deal", seat=0, count=13)
    view = apply_event(view, "deal", seat=1, count=14, tiles=tiles)
    assert view.hand == tuple(sorted(tiles))
    assert view.seats[1].concealed_count == 14
    assert view.seats[0].concealed_count == 13
    assert view.wall_count == 144 - 27
    # the dealer's first discard is timed
    assert view.timer is not None and view.timer.timer == "first_discard"
    assert view.timer.seats == (1,) and view.timer.total_ms == 30_000


def test_flower_and_replacement_draw_for_the_viewer() -> None:
    view = replace(TableView(me=0, hand=(T.M1, T.F2, T.P3)), wall_count=80)
    view = view.with_seat(0, concealed_count=3)
    view = apply_event(view, "flower", seat=0, tile=T.F2)
    assert view.hand == (T.M1, T.P3)
    assert view.seats[0].flowers == (T.F2,)
    view = apply_event(view, "draw", seat=0, tile=T.S4, replacement=True)
    assert view.drawn == T.S4 and view.seats[0].concealed_count == 3
    assert view.wall_count == 79


def test_others_draw_shows_no_tile() -> None:
    view = apply_event(sample_view(), "draw", seat=1)
    assert view.seats[1].concealed_count == 11
    assert view.drawn is None and view.turn == 1


def test_discard_of_a_held_tile_sorts_the_drawn_tile_in() -> None:
    view = replace(sample_view(), drawn=T.P5)
    view = view.with_seat(0, concealed_count=11)
    after = apply_event(view, "discard", seat=0, tile=T.E)
    assert after.drawn is None
    assert after.hand == (T.M2, T.M3, T.P4, T.P5, T.P6, T.P7, T.S5, T.S5, T.S6, T.S7)
    assert after.seats[0].discards[-1] == T.E
    assert after.last_discard == 0
    assert after.seats[0].concealed_count == 10
    tsumogiri = apply_event(view, "discard", seat=0, tile=T.P5)
    assert tsumogiri.hand == view.hand and tsumogiri.drawn is None


def test_chow_marks_the_discard_taken_and_takes_tiles_off_the_hand() -> None:
    view = apply_event(sample_view(), "discard", seat=3, tile=T.M4)
    view = apply_event(
        view, "chow", seat=0, tiles=(T.M2, T.M3, T.M4), claimed_tile=T.M4, from_seat=3
    )
    # the claimed tile stays in Dan's pool, marked as taken: whose discard it was shows
    assert view.seats[3].discards == (T.N, T.P2, T.M8, T.M4, T.M4)
    assert view.seats[3].taken == (4,)
    after = apply_event(view, "discard", seat=0, tile=T.E)
    after = apply_event(after, "discard", seat=1, tile=T.E)
    after = apply_event(after, "discard", seat=2, tile=T.E)
    after = apply_event(after, "discard", seat=3, tile=T.P9)
    assert after.seats[3].discards[-1] == T.P9 and after.seats[3].taken == (4,)
    meld = view.seats[0].melds[-1]
    assert (meld.kind, meld.tile, meld.claimed_from, meld.claimed_tile) == ("chow", T.M2, 1, T.M4)
    assert T.M2 not in view.hand and T.M3 not in view.hand
    assert view.seats[0].concealed_count == 9
    assert view.turn == 0 and view.last_discard is None


def test_pung_from_the_right_seat_records_relative_three() -> None:
    view = apply_event(sample_view(), "discard", seat=1, tile=T.S5)
    view = apply_event(view, "pung", seat=0, tiles=(T.S5,) * 3, claimed_tile=T.S5, from_seat=1)
    assert view.seats[0].melds[-1].claimed_from == 3
    assert view.hand.count(T.S5) == 0


def test_others_concealed_kong_is_face_down_and_added_kong_upgrades_a_pung() -> None:
    view = apply_event(sample_view(), "concealed_kong", seat=3)
    assert view.seats[3].melds[-1].tile is None
    assert view.seats[3].melds[-1].tiles == (None,) * 4
    assert view.seats[3].concealed_count == 9
    view = apply_event(replace(view, drawn=T.C), "added_kong", seat=0, tile=T.C)
    assert view.seats[0].melds[0].kind == "kong" and view.seats[0].melds[0].added
    assert view.drawn is None


def test_win_and_hand_end_reveal_everything() -> None:
    view = apply_event(
        sample_view(),
        "win",
        seat=2,
        win_tile=T.P3,
        fans=((49, 1), (81, 2)),
        total=8,
        points=(-16, -16, 48, -16),
    )
    assert view.result is not None and view.result.winner == 2
    assert view.result.from_seat is None and view.result.fans[1].count == 2
    hidden = MeldModel("kong", T.P9, concealed=True)
    view = apply_event(
        view,
        "hand_end",
        outcome="win",
        concealed=((T.M1,), (), (T.P3, T.P1), ()),
        melds=((), (hidden,), (), ()),
        seq=99,
    )
    assert view.result is not None and view.result.hands[2] == (T.P1, T.P3)
    assert view.result.melds[1] == (hidden,)
    assert view.result.flowers[2] == (T.F5, T.F6)
    assert not view.playing and view.seq == 99


def test_discard_opens_a_claim_window_that_a_prompt_names() -> None:
    view = apply_event(sample_view(), "discard", seat=1, tile=T.S8)
    assert view.offer == (1, T.S8)
    assert view.timer is not None and view.timer.seats == (0, 2, 3)
    view = on_prompt(
        view, actions=(ActionChoice(kind=ActionKind.PASS),), timer="claim_window", ms_left=4000
    )
    assert view.prompt is not None and view.prompt.tile == T.S8 and view.prompt.from_seat == 1
    assert view.timer is not None and view.timer.seats == (0,) and view.timer.ms_left == 4000


def test_unknown_event_kind_changes_nothing() -> None:
    view = sample_view()
    assert apply_event(view, "no_such_event", seat=1) is view


def test_prompt_sets_the_timer() -> None:
    view = on_prompt(
        sample_view(),
        actions=(ActionChoice(kind=ActionKind.PASS),),
        timer="claim_window",
        ms_left=4200,
    )
    assert view.prompt is not None and view.prompt.is_claim
    assert view.timer is not None and view.timer.ms_left == 4200


def test_own_deal_says_which_seat_is_the_viewer() -> None:
    view = TableView(me=0)
    view = apply_event(view, "deal", seat=2, count=13, tiles=(T.M1,) * 4 + (T.P2,) * 9)
    assert view.me == 2 and len(view.hand) == 13
    spectator = apply_event(TableView(), "deal", seat=2, count=13)
    assert spectator.me is None


def test_replacement_draw_keeps_the_turn() -> None:
    view = apply_event(sample_view(), "draw", seat=1, replacement=True)
    assert view.turn == 0 and view.seats[1].concealed_count == 11
