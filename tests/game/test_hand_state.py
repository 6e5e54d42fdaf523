"""Scripted hands from fixed walls: one named test per rule of the game engine (issue 3)."""

from collections import Counter
from dataclasses import replace

import pytest

from gbmj.game.actions import EXPOSED_KONG, PASS, PUNG, WIN, parse_action
from gbmj.game.actions import added_kong as added_kong_action
from gbmj.game.actions import chow as chow_action
from gbmj.game.actions import concealed_kong as concealed_kong_action
from gbmj.game.actions import discard as discard_action
from gbmj.game.events import SPECTATOR, for_viewer, meld_view
from gbmj.game.hand_state import HandState, IllegalAction, TurnKind
from gbmj.game.invariants import check_replay, check_step
from gbmj.game.views import all_views, make_view
from gbmj.game.wall import FULL_SET, Wall
from gbmj.rules.hand import parse_tiles
from protocol.fans import FAN_BY_NAME_ZH
from protocol.messages import EventBody
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, MeldKind, Phase, TimerClass

T = Tile.parse


def hand(hands, draws="", back="", dealer=0, **kw) -> HandState:
    return HandState(Wall.scripted(hands, draws=draws, back=back, dealer=dealer), **kw)


def act(state: HandState, seat: int, text: str):
    """Apply an action written as in ``parse_action`` and check the invariants."""
    events = state.apply(seat, parse_action(text))
    check_step(state, events)
    return events


def fan_names(state: HandState) -> set[str]:
    assert state.result is not None and state.result.score is not None
    return {fc.fan.name_zh for fc in state.result.score.fans}


def kinds(events) -> list[str]:
    return [e.TAG for e in events]


# Seat 1 waits on 5m (清一色 + 清龙) and may chow it; seat 2 waits on 5m (七对).
TWO_WINS = [
    "5m EEE SSS WWW NNN C",
    "123m 456m 789m 234m 5m",
    "11m 33m 66m 77m 99m 22p 5m",
    "123456789s 1234s",
]


def test_two_wins_on_one_discard_the_first_counter_clockwise_wins():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    assert state.phase is Phase.CLAIM and state.timer is TimerClass.CLAIM_WINDOW
    assert state.to_act == (1, 2)
    assert WIN in state.legal_actions(1) and WIN in state.legal_actions(2)
    act(state, 2, "win")  # seat 2 answers first, but seat 1 comes first from the discarder
    assert not state.ended and state.to_act == (1,)
    act(state, 1, "win")
    assert state.ended and state.result.winner == 1 and state.result.from_seat == 0


def test_two_wins_the_later_seat_wins_when_the_first_passes():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    act(state, 2, "win")
    act(state, 1, "pass")
    assert state.result.winner == 2 and state.result.win_tile == Tile.M5
    assert "七对" in fan_names(state)


def test_the_first_seat_counter_clockwise_winning_settles_at_once():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    events = act(state, 1, "win")
    assert state.ended and kinds(events) == ["win", "hand_end"]
    assert state.legal_actions(2) == ()


def test_a_win_on_a_discard_pays_8_plus_total_from_the_discarder_and_8_from_the_others():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    act(state, 1, "win")
    total = state.result.score.total
    assert total >= 8 and "清一色" in fan_names(state)
    assert state.result.points == (-(8 + total), 8 + total + 16, -8, -8)
    assert sum(state.result.points) == 0


WIN_BEATS_PUNG = [
    "5p EEE SSS WW NN C F P",
    "11m 99m 11s 99s CFP 3m 7m",
    "55p 123s 456s 8s 246m P",
    "123p 46p 678p 999p 11p",
]


def test_a_win_beats_a_pung_answered_first():
    state = hand(WIN_BEATS_PUNG)
    act(state, 0, "discard 5p")
    assert state.legal_actions(2) == (PUNG, PASS)
    assert state.legal_actions(3) == (WIN, PASS)
    act(state, 2, "pung")
    assert not state.ended and state.to_act == (3,)  # the pung waits for the win
    act(state, 3, "win")
    assert state.result.winner == 3 and not state.melds(2)


def test_a_pung_goes_ahead_when_the_win_is_passed():
    state = hand(WIN_BEATS_PUNG)
    act(state, 0, "discard 5p")
    act(state, 3, "pass")
    act(state, 2, "pung")
    assert state.phase is Phase.TURN and state.turn_seat == 2
    (meld,) = state.melds(2)
    assert meld.kind is MeldKind.PUNG and meld.claimed_from == 2 and meld.claimed_tile == Tile.P5
    assert state.discards(0) == ()  # the claimed discard moved into the meld


PUNG_BEATS_CHOW = [
    "5p EEE SSS WW NN C F P",
    "46p 11m 99m 11s 99s CF 3m",
    "55p 123s 456s 8s 246m P",
    "77s 389p 5m 378m FP WN",
]


def test_a_pung_beats_a_chow_answered_first():
    state = hand(PUNG_BEATS_CHOW)
    act(state, 0, "discard 5p")
    assert chow_action(T("4p")) in state.legal_actions(1)
    act(state, 1, "chow 4p")
    assert not state.ended and state.to_act == (2,)  # a chow cannot go before the pung
    act(state, 2, "pung")
    assert state.turn_seat == 2 and state.melds(1) == () and len(state.melds(2)) == 1


def test_a_chow_goes_ahead_when_the_pung_is_passed():
    state = hand(PUNG_BEATS_CHOW)
    act(state, 0, "discard 5p")
    act(state, 2, "pass")
    assert state.to_act == (1,)
    act(state, 1, "chow 4p")
    (meld,) = state.melds(1)
    assert meld.kind is MeldKind.CHOW and meld.tiles == tuple(parse_tiles("456p"))
    assert meld.claimed_from == 1 and meld.claimed_tile == Tile.P5


# Seats 2 and 3 hold tiles that chow 5m too, but only the left seat (1) may chow.
CHOWS = [
    "5m EEE SSS WWW NNN C",
    "3467m 11s 99s FFFF 9p",
    "11p 22p 33p 77p 88p 4m 6m 1m",
    "13579s 2468s C 6m 7m P",
]


def test_every_chow_variant_is_offered_to_the_left_seat_only():
    state = hand(CHOWS)
    act(state, 0, "discard 5m")
    chows = {a.tile for a in state.legal_actions(1) if a.kind is ActionKind.CHOW}
    assert chows == {T("3m"), T("4m"), T("5m")}
    assert state.to_act == (1,)  # seats 2 and 3 hold nothing to claim


@pytest.mark.parametrize("lowest", ["3m", "4m", "5m"])
def test_each_chow_variant_makes_its_meld(lowest):
    state = hand(CHOWS)
    act(state, 0, "discard 5m")
    act(state, 1, f"chow {lowest}")
    (meld,) = state.melds(1)
    assert meld.tile == T(lowest) and T("5m") in meld.tiles


def test_after_a_chow_the_claimant_must_discard_no_kong_no_win():
    state = hand(CHOWS)
    act(state, 0, "discard 5m")
    act(state, 1, "chow 4m")
    legal = state.legal_actions(1)
    assert state.turn_kind is TurnKind.CLAIM and state.timer is TimerClass.TURN
    assert all(a.kind is ActionKind.DISCARD for a in legal)  # four F held, yet no kong
    with pytest.raises(IllegalAction):
        state.apply(1, concealed_kong_action(T("F")))


def test_the_timeout_after_a_chow_discards_the_rightmost_tile():
    state = hand(CHOWS)
    act(state, 0, "discard 5m")
    act(state, 1, "chow 4m")
    events = state.timeout(1)
    assert events[0].TAG == "discard" and events[0].tile == max(state.discards(1))
    assert state.discards(1) == (T("F"),)


# Robbing the kong: seat 1 pungs 5p, later draws the fourth and adds it; seat 3 waits on 5p.
ROB = [
    "5p EEE SSS WW NN C F P",
    "55p 11m 99m 11s 99s CFP",
    "23s 77s 346m 5s 9s 2p 3p 8p 7p",
    "123p 46p 678p 999p 11p",
]
ROB_DRAWS = "2m 8m N 5p"


def _to_added_kong(state: HandState) -> None:
    act(state, 0, "discard 5p")
    assert state.legal_actions(3) == (WIN, PASS)
    act(state, 3, "pass")  # seat 3 lets this win go (漏和) ...
    act(state, 1, "pung")
    act(state, 1, "discard C")
    act(state, 2, "discard 2m")
    act(state, 3, "discard 8m")
    act(state, 0, "discard N")
    assert state.turn_seat == 1 and state.last_drawn(1) == Tile.P5
    assert added_kong_action(T("5p")) in state.legal_actions(1)


def test_robbing_the_kong():
    state = hand(ROB, draws=ROB_DRAWS)
    _to_added_kong(state)
    events = act(state, 1, "added_kong 5p")
    assert kinds(events) == ["added_kong"]
    assert state.phase is Phase.CLAIM and state.to_act == (3,)
    assert state.legal_actions(3) == (WIN, PASS) and state.offer == (1, Tile.P5, True)
    act(state, 3, "win")
    result = state.result
    assert result.winner == 3 and result.from_seat == 1 and result.win_tile == Tile.P5
    assert "抢杠和" in fan_names(state) and "和绝张" not in fan_names(state)
    (meld,) = state.melds(1)
    assert meld.kind is MeldKind.PUNG  # the kong did not happen
    total = result.score.total
    assert result.points == (-8, -(8 + total), -8, 8 + total + 16)


def test_an_added_kong_nobody_robs_completes_with_a_replacement_draw():
    state = hand(ROB, draws=ROB_DRAWS, back="7m")
    _to_added_kong(state)
    act(state, 1, "added_kong 5p")
    events = act(state, 3, "pass")
    (meld,) = state.melds(1)
    assert meld.kind is MeldKind.KONG and meld.added and meld.claimed_from == 1
    assert [(e.TAG, getattr(e, "replacement", None)) for e in events] == [("draw", True)]
    assert state.turn_seat == 1 and state.turn_kind is TurnKind.KONG
    assert state.last_drawn(1) == Tile.M7


def test_a_concealed_kong_cannot_be_robbed():
    hands = ["5p EEEE SSS WWW NN C", *ROB[1:]]
    state = hand(hands, back="7m")
    events = act(state, 0, "concealed_kong E")
    assert kinds(events) == ["concealed_kong", "draw"] and state.turn_seat == 0


# Four kongs: the dealer declares three concealed kongs, then an exposed kong, and wins
# on the replacement (四杠 + 杠上开花).
FOUR_KONGS = [
    "1111m 2222m 3333m 4m 5m",
    "E 66p 88s 11s 99s CFP 5p",
    "23s 77s 678m 5s 9s 2p 3p 8p 7p",
    "123p 46p 678p 999p 66s",
]


def test_four_kongs():
    state = hand(FOUR_KONGS, draws="6m", back="E E E 4m")
    for t in ("1m", "2m", "3m"):
        act(state, 0, f"concealed_kong {t}")
        assert state.timer is TimerClass.FIRST_DISCARD  # still the dealer's first discard
    assert state.concealed(0) == tuple(parse_tiles("4m 5m EEE"))
    act(state, 0, "discard 5m")
    act(state, 1, "discard E")  # seat 1 drew 6m and gives up its E
    assert EXPOSED_KONG in state.legal_actions(0)
    events = act(state, 0, "exposed_kong")
    assert kinds(events) == ["exposed_kong", "draw"] and events[1].tile == Tile.M4
    assert state.turn_kind is TurnKind.KONG and WIN in state.legal_actions(0)
    act(state, 0, "win")
    assert {"四杠", "杠上开花"} <= fan_names(state)
    total = state.result.score.total
    assert state.result.points == (3 * (8 + total), -(8 + total), -(8 + total), -(8 + total))


def test_a_flower_drawn_as_a_kong_replacement_still_gives_the_kong_win():
    hands = ["1111m 234m 567m 888m 9m", *FOUR_KONGS[1:]]
    state = hand(hands, back="f1 9m")
    events = act(state, 0, "concealed_kong 1m")
    assert kinds(events) == ["concealed_kong", "draw", "flower", "draw"]
    assert events[2].tile == Tile.F1 and events[3].replacement
    assert state.flowers(0) == (Tile.F1,) and state.turn_kind is TurnKind.KONG
    act(state, 0, "win")
    assert {"杠上开花", "清一色", "花牌"} <= fan_names(state)


# The end of the wall: hands far from ready, all flowers dealt (so the front of the wall
# holds none), the tiles of ``tail`` at the very end of the front draws. With no claims
# the last front tile goes to seat 3, the one before to seat 2, the one before to seat 1.
END_0 = "f1 f2 1m 5m 9m 1p 5p 9p 1s 5s 9s E S W"
END_1 = "f3 f4 2m 6m 2p 6p 2s 6s N F P 3m 3p"
CCC = "f5 f6 CCC 4m 8m 4p 8p 4s 8s E S"  # + E S from the back
JUNK = "f7 f8 7m 7p 7s 3s W N F P 2m 2p 6m"  # + W N from the back
READY = "f7 f8 123m 456m 789m 23p"  # + 4p 9p from the back: waits on 9p alone


def end_wall(h2: str, h3: str, back23: str, tail: str) -> HandState:
    hands = [END_0, END_1, h2, h3]
    back = "E S W N " + back23
    used = Counter(t for h in hands for t in parse_tiles(h))
    used += Counter(parse_tiles(back)) + Counter(parse_tiles(tail))
    rest = sorted((Counter(FULL_SET) - used).elements())
    draws = " ".join(t.notation for t in rest) + " " + tail
    return hand(hands, draws=draws, back=back)


def drive_until(state: HandState, seat: int, remaining: int) -> None:
    """Play on (discard the drawn tile, pass every claim and win) until ``seat`` is on
    turn with ``remaining`` tiles left in the wall."""
    while not (
        state.phase is Phase.TURN and state.turn_seat == seat and state.wall_remaining == remaining
    ):
        assert not state.ended
        s = state.to_act[0]
        action = PASS if state.phase is Phase.CLAIM else discard_action(state.last_drawn(s))
        check_step(state, state.apply(s, action))


def test_no_kong_on_the_last_tile():
    state = end_wall(JUNK, CCC, "W N E S", tail="C")
    drive_until(state, 3, remaining=0)
    assert state.last_drawn(3) == Tile.C and state.concealed(3).count(Tile.C) == 4
    legal = state.legal_actions(3)
    assert concealed_kong_action(T("C")) not in legal and discard_action(T("C")) in legal


def test_a_kong_with_one_tile_left_draws_the_last_tile_as_replacement():
    state = end_wall(CCC, JUNK, "E S W N", tail="C 1p")
    drive_until(state, 2, remaining=1)
    assert state.last_drawn(2) == Tile.C
    events = act(state, 2, "concealed_kong C")
    assert kinds(events) == ["concealed_kong", "draw"] and events[1].replacement
    assert events[1].tile == Tile.P1  # the last tile of the wall
    assert state.wall_remaining == 0 and state.turn_kind is TurnKind.KONG
    assert all(a.kind is ActionKind.DISCARD for a in state.legal_actions(2))


def test_the_last_discard_may_only_be_claimed_for_a_win_then_the_hand_is_drawn():
    state = end_wall(CCC, JUNK, "E S W N", tail="C")
    drive_until(state, 3, remaining=0)
    events = act(state, 3, "discard C")  # seat 2 holds CCC, but the wall is empty
    assert kinds(events) == ["discard", "exhaustive_draw", "hand_end"]
    assert state.result.outcome == "exhaustive_draw" and state.result.points == (0, 0, 0, 0)


def test_a_discard_before_the_last_may_be_punged_and_konged():
    state = end_wall(CCC, JUNK, "E S W N", tail="C 1p 1p")
    drive_until(state, 1, remaining=2)
    act(state, 1, "discard C")
    assert state.legal_actions(2) == (PUNG, EXPOSED_KONG, PASS)


def test_an_exhaustive_draw_reveals_everything():
    state = end_wall(JUNK, CCC, "W N E S", tail="C")
    drive_until(state, 3, remaining=0)
    end = state.timeout(3)[-1]
    assert end.TAG == "hand_end" and end.wall_order == state.wall.order
    assert end.salt == state.wall.salt.hex() and end.points == (0, 0, 0, 0)
    assert make_view(state, SPECTATOR).game.seats[2].concealed == state.concealed(2)


def test_a_self_drawn_win_on_the_last_tile_scores_妙手回春():
    state = end_wall(CCC, READY, "E S 4p 9p", tail="9p")
    drive_until(state, 3, remaining=0)
    assert WIN in state.legal_actions(3)
    act(state, 3, "win")
    assert "妙手回春" in fan_names(state) and "自摸" not in fan_names(state)


def test_a_win_on_the_last_discard_scores_海底捞月():
    state = end_wall(READY, CCC, "4p 9p E S", tail="9p")
    drive_until(state, 3, remaining=0)
    act(state, 3, "discard 9p")
    assert state.to_act == (2,) and state.legal_actions(2) == (WIN, PASS)
    act(state, 2, "win")
    assert "海底捞月" in fan_names(state) and state.result.from_seat == 3


# A win held back (漏和) and taken later on the last copy: 和绝张.
FOURTH = [
    "9p EEE SSS WW NN C F P",
    "123m 456m 789m 234p 9p",
    "9p 11s 22s 33s 77s 5s 6s 8s P",
    "9p 6m 6m 7s 7s 8s 8s 1s 2s 3s C C F",
]


def test_a_passed_win_may_be_taken_later_and_the_fourth_tile_is_counted():
    state = hand(FOURTH, draws="F 5p 4s")
    act(state, 0, "discard 9p")
    assert state.legal_actions(1) == (WIN, PASS)
    act(state, 1, "pass")  # 漏和: allowed
    act(state, 1, "discard F")
    act(state, 2, "discard 9p")
    act(state, 1, "pass")  # and again
    act(state, 3, "discard 9p")  # the last 9p: two in the pools, one in seat 1's hand
    assert state.legal_actions(1)[0] == WIN
    act(state, 1, "win")
    assert state.result.winner == 1 and state.result.from_seat == 3
    assert "和绝张" not in fan_names(state)  # the winner holds the third copy itself


def test_the_fourth_tile_win_when_three_copies_are_on_the_table():
    hands = [
        "5p EEE SSS WW NN C F P",
        "123m 456m 789m 11p 46p",
        "55p 123s 456s 8s 246m P",
        "5p 1s 77s 99s CC FF P 3m 3p",
    ]
    state = hand(hands, draws="9m")
    act(state, 0, "discard 5p")
    act(state, 1, "pass")
    act(state, 2, "pung")  # three 5p in an exposed meld
    act(state, 2, "discard P")
    act(state, 3, "discard 5p")  # the last 5p
    act(state, 1, "win")
    assert "和绝张" in fan_names(state)


def test_the_dealer_alone_has_the_first_discard_timer():
    state = hand(TWO_WINS, draws="E")
    assert state.to_act == (0,) and state.timer is TimerClass.FIRST_DISCARD
    act(state, 0, "discard C")
    assert state.to_act == (1,) and state.timer is TimerClass.TURN
    assert TimerClass.FIRST_DISCARD not in {state.timer}


def test_the_first_discard_timer_belongs_to_whichever_seat_deals():
    hands = [TWO_WINS[3], TWO_WINS[0], TWO_WINS[1], TWO_WINS[2]]
    state = hand(hands, dealer=1)
    assert state.dealer == 1 and state.to_act == (1,)
    assert state.timer is TimerClass.FIRST_DISCARD
    assert state.seat_winds == (Tile.N, Tile.E, Tile.S, Tile.W)


def test_a_false_win_is_refused_and_changes_nothing():
    state = hand(TWO_WINS)
    before = state.snapshot()
    with pytest.raises(IllegalAction) as err:
        state.apply(0, WIN)
    assert err.value.code == "illegal_action"
    with pytest.raises(IllegalAction) as err:
        state.apply(1, discard_action(T("1m")))
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalAction):
        state.apply(0, discard_action(T("9s")))  # not held
    assert state.snapshot() == before


def test_nothing_is_accepted_after_the_hand_ends():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    act(state, 1, "win")
    with pytest.raises(IllegalAction) as err:
        state.apply(2, PASS)
    assert err.value.code == "hand_over"


def test_the_timeout_discards_the_drawn_tile():
    state = hand(TWO_WINS, draws="F")
    assert state.default_action(0) == discard_action(T("C"))  # the dealer's last tile
    state.timeout(0)
    assert state.last_drawn(1) == Tile.F
    events = state.timeout(1)
    assert events[0].TAG == "discard" and events[0].tile == Tile.F


def test_the_timeout_declares_a_valid_win_and_passes_other_claims():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    state.timeout(2)  # seat 2's default is its win, but seat 1 comes first
    state.timeout(1)
    assert state.result.winner == 1
    state = hand(WIN_BEATS_PUNG)
    act(state, 0, "discard 5p")
    assert state.default_action(2) == PASS
    assert state.default_action(3) == WIN


def test_a_self_drawn_win_pays_8_plus_total_from_each_other_seat():
    hands = ["1111m 234m 567m 888m 9m", *FOUR_KONGS[1:]]
    state = hand(hands, back="9m")
    act(state, 0, "concealed_kong 1m")
    act(state, 0, "win")
    total = state.result.score.total
    assert state.result.from_seat is None
    assert state.result.points == (3 * (8 + total), -(8 + total), -(8 + total), -(8 + total))


def test_deal_and_flower_replacement_dealer_first():
    hands = [
        "f1 5m EEE SSS WWW NNN",
        "f2 123m 456m 789m 234m",
        "11m 33m 66m 77m 99m 22p 5m",
        "123456789s 1234s",
    ]
    state = hand(hands, back="C f3 5p 5s")
    kinds_seats = [(e.TAG, getattr(e, "seat", None)) for e in state.events]
    assert kinds_seats[0] == ("hand_start", None)
    assert kinds_seats[1:5] == [("deal", 0), ("deal", 1), ("deal", 2), ("deal", 3)]
    flowers = [(e.seat, e.tile) for e in state.events if e.TAG == "flower"]
    # dealer's f1 (replaced by C), seat 1's f2 (replaced by f3), then seat 1's f3 again
    assert flowers == [(0, Tile.F1), (1, Tile.F2), (1, Tile.F3)]
    assert state.flowers(1) == (Tile.F2, Tile.F3) and Tile.P5 in state.concealed(1)
    assert Tile.C in state.concealed(0)
    assert state.wall_remaining == 144 - 53 - 3


def test_views_show_each_viewer_only_what_it_may_see():
    hands = ["5p EEEE SSS WWW NN C", *ROB[1:]]
    state = hand(hands, back="7m")
    act(state, 0, "concealed_kong E")
    own, other, spec = make_view(state, 0), make_view(state, 1), make_view(state, SPECTATOR)
    assert own.game.seats[0].concealed == state.concealed(0)
    assert own.game.seats[0].drawn == Tile.M7 and own.legal_actions
    assert own.game.seats[1].concealed is None and own.game.seats[1].concealed_count == 13
    assert other.game.seats[0].concealed is None and other.game.seats[0].melds == (None,)
    assert other.game.seats[0].drawn is None and other.legal_actions == ()
    assert spec.game.seats[0].melds == (None,)
    assert all(s.concealed is None for s in spec.game.seats)
    assert spec.wall_order is None and spec.salt is None
    draw = state.events[-1]
    assert for_viewer(draw, 0).tile == Tile.M7 and for_viewer(draw, 1).tile is None
    kong = state.events[-2]
    assert for_viewer(kong, SPECTATOR).tile is None and for_viewer(kong, 0).tile == Tile.E


def test_a_claim_window_does_not_show_who_else_may_claim():
    state = hand(WIN_BEATS_PUNG)
    act(state, 0, "discard 5p")
    assert make_view(state, 2).game.to_act == (2,) and make_view(state, 3).game.to_act == (3,)
    assert make_view(state, 1).game.to_act == () and make_view(state, SPECTATOR).game.to_act == ()
    assert make_view(state, SPECTATOR).game.timer == "claim_window"


def test_a_seats_record_is_the_spectators_but_for_its_own_seat_and_turn():
    """One record per viewer; a seat's differs from the spectator's only in its own seat
    (and its own turn to answer a claim), and shares the others' forms with it."""
    state = hand(WIN_BEATS_PUNG)
    act(state, 0, "discard 5p")  # a claim window: seats 2 and 3 are asked
    views = all_views(state)
    public = views[SPECTATOR].game
    assert public == make_view(state, SPECTATOR).game and public.ms_left is None
    for viewer in range(4):
        game = views[viewer].game
        assert game == make_view(state, viewer).game
        assert replace(game, seats=public.seats, to_act=public.to_act) == public
        assert game.seats[viewer] != public.seats[viewer]  # its own tiles shown
        assert all(game.seats[s] is public.seats[s] for s in range(4) if s != viewer)
        assert game.to_act == ((viewer,) if viewer in (2, 3) else ())


def test_after_the_hand_everything_is_revealed():
    hands = ["1111m 234m 567m 888m 9m", *FOUR_KONGS[1:]]
    state = hand(hands, back="9m")
    act(state, 0, "concealed_kong 1m")
    act(state, 0, "win")
    spec = make_view(state, SPECTATOR)
    assert (
        spec.game.seats[0].melds == tuple(map(meld_view, state.melds(0)))
        and spec.game.seats[0].melds[0].concealed
    )
    assert spec.game.seats[3].concealed == state.concealed(3)
    assert spec.wall_order == state.wall.order and spec.salt == state.wall.salt
    assert spec.result["winner"] == 0 and spec.result["total"] == state.result.score.total


def test_an_escape_ends_the_hand_and_the_escaper_pays_80_to_the_house():
    state = hand(TWO_WINS)
    act(state, 0, "discard 5m")
    events = state.escape(2)
    check_step(state, events)
    assert kinds(events) == ["escape", "hand_end"]
    assert state.result.outcome == "escape" and state.result.points == (0, 0, -80, 0)
    check_replay(state)


def test_an_escape_during_a_robbing_window_gives_the_kong_tile_back():
    state = hand(ROB, draws=ROB_DRAWS)
    _to_added_kong(state)
    act(state, 1, "added_kong 5p")
    events = state.escape(3)
    check_step(state, events)  # all 144 tiles still accounted for
    assert state.concealed(1).count(Tile.P5) == 1 and state.melds(1)[0].kind is MeldKind.PUNG
    check_replay(state)


def test_a_hand_replays_from_its_log_and_restores_from_plain_data():
    import json

    state = hand(ROB, draws=ROB_DRAWS)
    _to_added_kong(state)
    act(state, 1, "added_kong 5p")  # mid claim window
    data = json.loads(json.dumps(state.to_dict()))
    restored = HandState.from_dict(data)
    assert restored.snapshot() == state.snapshot()
    assert restored.to_act == (3,)
    act(restored, 3, "win")
    assert restored.result.winner == 3
    replayed = HandState.replay(state.wall, state.log)
    assert replayed.snapshot() == state.snapshot()


def test_a_seeded_hand_replays_from_its_seed():
    state = HandState(Wall.from_seed(b"seeded", dealer=2))
    for _ in range(12):
        state.timeout(state.to_act[0])
    again = HandState.replay(b"seeded", state.log, dealer=2)
    assert again.snapshot() == state.snapshot()


def test_events_as_each_viewer_gets_them_are_the_protocols_and_views_plain_data():
    import json

    state = hand(ROB, draws=ROB_DRAWS)
    _to_added_kong(state)
    act(state, 1, "added_kong 5p")
    act(state, 3, "win")
    for e in state.events:
        for viewer in (0, 1, SPECTATOR):
            assert EventBody.from_wire(for_viewer(e, viewer).to_wire()) == for_viewer(e, viewer)
    json.dumps(make_view(state, 1).to_dict())
    assert state.events[-2].to_wire()["fans"]
    assert FAN_BY_NAME_ZH["抢杠和"].id in [f for f, _ in state.events[-2].fans]
