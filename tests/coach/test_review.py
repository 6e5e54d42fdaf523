"""The review after a hand: the costliest discards, judged by the hard bot's values."""

from __future__ import annotations

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand
from gbmj.coach.review import MIN_LOSS, review
from gbmj.game.hand_state import HandState
from gbmj.replay.build import hand_from_log
from gbmj.replay.format import ReplayHand
from protocol import messages as m
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind


def replay_of(state: HandState) -> ReplayHand:
    """The hand as a replay, from the log the server would record."""
    w = state.wall
    assert state.result is not None
    actions = tuple(
        m.LoggedAction(seat=seat, kind=a.kind, tile=a.tile, ms=100 * i)
        for i, (seat, a) in enumerate(state.log)
        if a is not None
    )
    log = m.HandLog(
        hand_id=41, match_id=7, number=1, round_number=1, hand_number=1,
        prevailing_wind=Tile.E, dealer=state.dealer, dice=w.dice, wall_order=tuple(w.order),
        salt=w.salt.hex(), commitment=w.commitment, players=("a", "b", "c", "d"),
        actions=actions, escape=None, points=tuple(state.result.points), coins=None,
    )  # fmt: skip
    return hand_from_log(log)


def test_a_weak_players_costliest_discards_against_the_hard_bot() -> None:
    found = 0
    for n in range(4):
        bots = [make_bot("easy", 1), *(make_bot("hard", s) for s in (2, 3, 4))]
        hand = replay_of(play_hand(bots, f"review-{n}".encode(), dealer=n % 4))
        decisions = review(hand, 0)
        assert len(decisions) <= 3
        assert [d.loss for d in decisions] == sorted((d.loss for d in decisions), reverse=True)
        own = [i for i, a in enumerate(hand.actions) if a.seat == 0 and a.kind == "discard"]
        for d in decisions:
            action = hand.actions[d.step]
            assert action.seat == 0 and action.kind is ActionKind.DISCARD
            assert action.tile == d.chosen and d.better != d.chosen
            assert d.turn == own.index(d.step) + 1
            assert d.loss >= MIN_LOSS
            assert d.shanten_better <= d.shanten_chosen + 1
        found += len(decisions)
    assert found >= 4  # an easy bot's noise costs something every hand or so


def test_the_hard_bots_own_discards_cost_nothing() -> None:
    """The review judges by the hard bot's values: its own play is never flagged."""
    bots = [make_bot("hard", s) for s in range(4)]
    for n in range(2):
        hand = replay_of(play_hand(bots, f"review-hard-{n}".encode()))
        for seat in range(4):
            assert review(hand, seat) == ()
