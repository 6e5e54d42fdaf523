"""One match: rounds, dealers, prevailing winds, seat changes (docs/rules.md §1.5), standings."""

import pytest

from gbmj.game.hand_state import IllegalAction
from gbmj.game.match import SEAT_CHANGES, Match, seating_after
from protocol.tiles import WINDS, Tile
from protocol.vocabulary import SeatChanges


def play_out(match: Match) -> None:
    """Play the current hand to its end with the default (timeout) action."""
    hand = match.hand
    while not hand.ended:
        hand.timeout(hand.to_act[0])


def play_match(match: Match) -> list[list[int]]:
    """Play every hand; returns the seating (players by seat) of each round."""
    seatings = []
    while not match.finished:
        if match.hand_number == 1:
            seatings.append(list(match.players))
        match.start_hand()
        play_out(match)
        match.finish_hand()
    return seatings


def test_seat_changes_after_each_round_of_a_four_round_match():
    match = Match(b"seats", rounds=4)
    seatings = play_match(match)
    assert len(seatings) == 4 and len(match.history) == 16
    a, b, c, d = seatings[0]  # the players at East, South, West, North in round 1
    assert seatings[1] == [b, a, d, c]  # E<->S, W<->N
    # after round 2: E and S to the opposite places, W -> S, N -> E
    e2, s2, w2, n2 = seatings[1]
    assert seatings[2] == [n2, w2, e2, s2]
    e3, s3, w3, n3 = seatings[2]
    assert seatings[3] == [s3, e3, n3, w3]  # E<->S, W<->N
    for player in range(4):  # everyone sits at every place once
        assert sorted(s.index(player) for s in seatings) == [0, 1, 2, 3]


def test_the_seat_change_tables_of_both_schemes():
    assert SEAT_CHANGES[SeatChanges.EVERY_ROUND] == {
        1: (1, 0, 3, 2),
        2: (2, 3, 1, 0),
        3: (1, 0, 3, 2),
    }
    assert SEAT_CHANGES[SeatChanges.THIRD_ROUND] == {2: (1, 0, 3, 2)}


def test_seating_after_is_the_rules_table_for_players_a_to_d():
    """The seating table of docs/rules.md §1.5 (A, B, C, D first at E, S, W, N), and the
    third-round scheme: only East <-> South, West <-> North before round 3, so the
    player first at South deals first in round 3."""
    a, b, c, d = 0, 1, 2, 3
    every = [(a, b, c, d)]
    for r in (1, 2, 3):
        every.append(seating_after(every[-1], r))
    assert every == [(a, b, c, d), (b, a, d, c), (c, d, b, a), (d, c, a, b)]
    third = [(a, b, c, d)]
    for r in (1, 2, 3):
        third.append(seating_after(third[-1], r, SeatChanges.THIRD_ROUND))
    assert third == [(a, b, c, d), (a, b, c, d), (b, a, d, c), (b, a, d, c)]
    assert seating_after((a, b, c, d), 4) == (a, b, c, d)  # none after the last round


def test_a_match_changes_seats_before_the_third_round_only_when_set():
    match = Match(b"seats", rounds=4, seat_changes=SeatChanges.THIRD_ROUND)
    seatings = play_match(match)
    e, s, w, n = seatings[0]
    assert seatings == [[e, s, w, n], [e, s, w, n], [s, e, n, w], [s, e, n, w]]
    restored = Match.from_dict(match.to_dict())
    assert restored.seat_changes is SeatChanges.THIRD_ROUND
    assert restored.players == match.players


def test_dealers_rotate_without_repeats_and_winds_follow_the_round():
    match = Match(b"dealers", rounds=2)
    hands = []
    while not match.finished:
        hand = match.start_hand()
        hands.append((match.round_number, hand.dealer, match.player_at(hand.dealer), hand))
        assert hand.seat_winds[hand.dealer] == Tile.E
        assert hand.prevailing_wind == WINDS[match.round_number - 1]
        play_out(match)
        match.finish_hand()
    assert [d for _, d, _, _ in hands] == [0, 1, 2, 3, 0, 1, 2, 3]
    for r in (1, 2):
        dealers = [p for rr, _, p, _ in hands if rr == r]
        assert sorted(dealers) == [0, 1, 2, 3]  # each player deals once a round
    assert [h.prevailing_wind for *_, h in hands] == [Tile.E] * 4 + [Tile.S] * 4


def test_the_first_dealer_comes_from_the_seed():
    firsts = {Match(f"seed-{i}".encode()).first_dealer for i in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert Match(b"same").first_dealer == Match(b"same").first_dealer
    match = Match(b"same")
    assert match.player_at(match.start_hand().dealer) == match.first_dealer


def test_a_one_round_match_has_four_hands_and_no_seat_change():
    match = Match(b"short", rounds=1)
    seatings = play_match(match)
    assert len(match.history) == 4 and match.finished
    assert match.players == seatings[0]
    with pytest.raises(IllegalAction):
        match.start_hand()


def test_standings_add_up_the_hands_by_player():
    match = Match(b"standings", rounds=1)
    play_match(match)
    for p in range(4):
        assert match.standings[p] == sum(rec.points[p] for rec in match.history)
    assert sum(match.standings) == 0
    ranking = match.ranking()
    assert [pts for _, pts in ranking] == sorted(match.standings, reverse=True)


def test_an_escape_costs_the_escaper_80_and_the_seat_plays_on():
    match = Match(b"escape", rounds=1)
    match.start_hand()
    escaper = match.player_at(2)
    events = match.escape(escaper)
    assert [e.TAG for e in events] == ["escape", "hand_end"]
    record = match.finish_hand()
    assert record.outcome == "escape" and record.escaper == escaper
    assert match.standings[escaper] == -80 and sum(match.standings) == -80
    assert escaper in match.escaped
    match.start_hand()  # the match goes on with the seat under another controller
    assert match.hand_number == 2


def test_hands_must_be_started_and_finished_in_order():
    match = Match(b"order")
    with pytest.raises(IllegalAction):
        match.finish_hand()
    match.start_hand()
    with pytest.raises(IllegalAction):
        match.start_hand()
    with pytest.raises(IllegalAction):
        match.finish_hand()
    with pytest.raises(ValueError):
        Match(b"x", rounds=5)


def test_a_match_restores_from_plain_data_mid_hand():
    match = Match(b"restore", rounds=1)
    match.start_hand()
    play_out(match)
    match.finish_hand()
    hand = match.start_hand()
    for _ in range(7):
        hand.timeout(hand.to_act[0])
    restored = Match.from_dict(match.to_dict())
    assert restored.standings == match.standings and restored.history == match.history
    assert restored.hand.snapshot() == match.hand.snapshot()
    assert restored.players == match.players
