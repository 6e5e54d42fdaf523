"""Bots: legal play over simulated hands, wins always taken, named positions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gbmj.bots import LEVELS, make_bot
from gbmj.bots.arena import play_hand
from gbmj.bots.position import position_of
from gbmj.game.actions import PASS, PUNG, WIN, chow, discard
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from gbmj.game.wall import Wall
from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind

T = Tile.parse


def state_of(hands: list[str], draws: str = "", dealer: int = 0) -> HandState:
    return HandState(Wall.scripted(hands, draws=draws, dealer=dealer))


def choice(level: str, state: HandState, seat: int) -> ActionChoice:
    view = make_view(state, seat)
    return make_bot(level, 1).choose(view, view.legal_actions)


# -- whole hands ----------------------------------------------------------------------


class Referee:
    """Wraps every decision: the action must be legal, a hard bot must take every win."""

    def __init__(self) -> None:
        self.decisions = 0
        self.wins_offered = 0

    def __call__(self, bot, view, legal):
        action = bot.choose(view, legal)
        assert action in legal, f"{bot.level} chose {action}, not in {legal}"
        if WIN in legal:
            self.wins_offered += 1
            if bot.level == "hard":
                assert action == WIN, "the hard bot passed a win worth 8 fan"
        self.decisions += 1
        return action


@pytest.mark.parametrize("rotation", range(4))
def test_every_level_only_ever_chooses_legal_actions(rotation):
    referee = Referee()
    for h in range(3):
        levels = [LEVELS[(s + rotation + h) % 4] for s in range(4)]
        bots = [make_bot(level, 10 * rotation + s) for s, level in enumerate(levels)]
        state = play_hand(bots, f"legal-{rotation}-{h}".encode(), dealer=h % 4, on_decision=referee)
        assert state.ended
    assert referee.decisions > 100


@pytest.mark.slow
def test_four_hard_bots_take_every_win_they_are_offered_and_mostly_win():
    referee = Referee()
    bots = [make_bot("hard", s) for s in range(4)]
    results = [
        play_hand(bots, f"hard-{h}".encode(), dealer=h % 4, on_decision=referee).result
        for h in range(8)
    ]
    wins = [r for r in results if r is not None and r.score is not None]
    assert referee.wins_offered >= len(wins)
    assert all(r.score.total_without_flowers >= 8 for r in wins)
    assert len(wins) >= 4  # four hard bots win most hands (the bench measures how many)


def test_the_same_seed_plays_the_same_hand():
    def log(seed: int):
        bots = [make_bot("normal", seed + s) for s in range(4)]
        return play_hand(bots, b"repeat").log

    assert log(3) == log(3)


# -- the interface --------------------------------------------------------------------


def test_make_bot_makes_every_level():
    for level in LEVELS:
        assert make_bot(level, 0).level == level
    with pytest.raises(ValueError):
        make_bot("grandmaster", 0)


def test_the_position_counts_only_what_the_seat_may_see():
    state = state_of(
        [
            "123m 456p 789s EEE 1s 2s",
            "11m 33m 66m 77m 99m 22p 5m",
            "123456789s 1234s",
            "147m 258p 369s ESW N",
        ],
    )
    state.apply(0, discard(T("2s")))
    pos = position_of(make_view(state, 1))
    assert pos.counts[T("1m")] == 2 and sum(pos.counts) == 13
    # 2s: one in seat 0's discards; seat 2's two copies are hidden from seat 1.
    assert pos.unseen[T("2s")] == 3
    assert pos.unseen[T("1m")] == 2  # seat 1 holds two; seat 3's 1m is hidden
    assert pos.offer == (0, T("2s"), False)


# -- named positions ------------------------------------------------------------------

# Seat 1 waits on 5m with 清一色 + 清龙; seat 2 waits on 5m with 七对.
WIN_ON_5M = [
    "5m EEE SSS WWW NNN C",
    "123m 456m 789m 234m 5m",
    "11m 33m 66m 77m 99m 22p 5m",
    "123456789s 1234s",
]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_wins_on_a_discard_rather_than_chow(level):
    state = state_of(WIN_ON_5M)
    state.apply(0, discard(T("5m")))
    legal = state.legal_actions(1)
    assert WIN in legal and any(a.kind is ActionKind.CHOW for a in legal)
    assert choice(level, state, 1) == WIN


def test_the_hard_bot_wins_self_drawn_rather_than_kong():
    state = state_of(
        [
            "1111m 23m 456m 789m 99m",
            "259m 159p 159s ESWN",
            "2468m 2468p 2468s C",
            "37m 37p 37s CFPEEE S",
        ]
    )
    legal = state.legal_actions(0)
    assert WIN in legal and any(a.kind is ActionKind.CONCEALED_KONG for a in legal)
    assert choice("hard", state, 0) == WIN


def test_the_hard_bot_lets_go_of_the_one_tile_off_its_flush():
    state = state_of(
        [
            "11p 234p 567p 789p 55p W",
            "159m 159p 159s ESWN",
            "2468m 2468p 2468s C",
            "37m 37s 3s CFPEEE S N",
        ]
    )
    assert choice("hard", state, 0) == discard(T("W"))


def test_the_hard_bot_pungs_into_a_ready_full_flush():
    # After 碰 5p and letting 9s go, seat 2 waits on 1p/8p with 清一色 (24 fan).
    hands = [
        "5p 9m 159m 15s EESSWWN",
        "1m 2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 7s 8s",
        "11p 234p 567p 88p 55p 9s",
        "CCC FFF PPP 1s 5s 7s N",
    ]
    state = state_of(hands)
    state.apply(0, discard(T("5p")))
    assert PUNG in state.legal_actions(2)
    assert choice("hard", state, 2) == PUNG


def test_the_hard_bot_chows_into_a_ready_pure_straight():
    # Chow 7m-8m-9m completes 123m 456m 789m (清龙): seat 1 is ready after one discard.
    hands = [
        "8m 1s 5s 9s EESSWWNN C F",
        "123m 456m 79m 11p 24s 9p",
        "2468p 2468s 135p C F",
        "CC FF PPP 6s 7s 9s 5p 7p W",
    ]
    state = state_of(hands)
    state.apply(0, discard(T("8m")))
    assert chow(T("7m")) in state.legal_actions(1)
    assert choice("hard", state, 1) == chow(T("7m"))


def test_the_hard_bot_keeps_a_ready_seven_pairs_rather_than_pung():
    hands = [
        "1m 5s 8s 9s EESSWWNN C F",
        "11m 44m 77p 99p 22s 55s 3m",
        "2468p 2468s 135p C P",
        "CC FF PPP 6s 7s 9s 5p 7p W",
    ]
    state = state_of(hands)
    state.apply(0, discard(T("1m")))
    assert PUNG in state.legal_actions(1)
    assert choice("hard", state, 1) == PASS


def test_the_bot_ignores_other_seats_tiles_even_if_a_view_showed_them():
    bots = [make_bot("hard", s) for s in range(4)]
    state = HandState(Wall.from_seed(b"peek"))
    for _ in range(30):  # play into the middle of the hand
        seat = state.to_act[0]
        view = make_view(state, seat)
        state.apply(seat, bots[seat].choose(view, view.legal_actions))
    seat = state.to_act[0]
    view = make_view(state, seat)
    revealed = tuple(
        sv if sv.seat == seat else replace(sv, concealed=state.concealed(sv.seat))
        for sv in view.game.seats
    )
    peeking = view._replace(game=replace(view.game, seats=revealed))
    assert any(sv.concealed for sv in peeking.game.seats if sv.seat != seat)
    assert position_of(peeking) == position_of(view)
    assert make_bot("hard", 5).choose(peeking, view.legal_actions) == make_bot("hard", 5).choose(
        view, view.legal_actions
    )
