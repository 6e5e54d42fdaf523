"""The tournament rules (docs/rules.md §2.12): table points, standings, seating, winds."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbmj.tournament.points import TABLE_TOTAL, places, shown, table_points
from gbmj.tournament.seating import (
    Plan,
    Seating,
    affine_schedule,
    first_session,
    known_ahead,
    leaders_together,
    meetings,
    repeats,
    seat_session,
    swiss,
)
from gbmj.tournament.standings import SessionResult, ranks, standings
from gbmj.tournament.winds import add_winds, balance_session, balance_winds

scores = st.lists(st.integers(min_value=-500, max_value=500), min_size=4, max_size=4)


# --- table points -------------------------------------------------------------------


@given(scores)
def test_table_points_sum_to_84(table: list[int]) -> None:
    assert sum(table_points(table)) == TABLE_TOTAL == 84


@given(scores, st.permutations(range(4)))
def test_table_points_follow_the_player_not_the_seat(table: list[int], order: list[int]) -> None:
    points = table_points(table)
    shuffled = table_points([table[i] for i in order])
    assert shuffled == tuple(points[i] for i in order)


@given(scores)
def test_more_score_never_fewer_points(table: list[int]) -> None:
    points = table_points(table)
    for a, b in combinations(range(4), 2):
        if table[a] > table[b]:
            assert points[a] > points[b]
        if table[a] == table[b]:
            assert points[a] == points[b]


def test_ties_share_the_places_they_cover() -> None:
    assert table_points([10, 10, 10, 5]) == (28, 28, 28, 0)
    assert table_points([30, 20, 10, 0]) == (48, 24, 12, 0)
    assert table_points([5, 9, 9, 1]) == (12, 36, 36, 0)
    assert table_points([7, 7, 7, 7]) == (21, 21, 21, 21)
    assert table_points([1, 1, 0, 0]) == (36, 36, 6, 6)
    assert places([10, 10, 10, 5]) == (1, 1, 1, 4)
    assert shown(28) == "2.33" and shown(48) == "4" and shown(0) == "0"


# --- standings ----------------------------------------------------------------------


def _result(player: int, session: int, points: int, score: int, place: int) -> SessionResult:
    return SessionResult(player, session, points, score, place)


def test_standings_order_points_then_score_then_places_then_best() -> None:
    results = [
        # 1 and 2: equal points, 2 has more score
        _result(1, 1, 48, 10, 1),
        _result(2, 1, 48, 20, 1),
        # 3 and 4: equal points and score; 3 has a first place, 4 two seconds
        _result(3, 1, 48, 5, 1),
        _result(3, 2, 0, 5, 4),
        _result(4, 1, 24, 5, 2),
        _result(4, 2, 24, 5, 2),
        # 5 and 6: equal in all but the best session
        _result(5, 1, 12, 30, 3),
        _result(5, 2, 12, -30, 3),
        _result(6, 1, 12, 10, 3),
        _result(6, 2, 12, -10, 3),
    ]
    lines = standings([1, 2, 3, 4, 5, 6], results)
    assert [line.player for line in lines] == [2, 1, 3, 4, 5, 6]
    assert lines[2].places == (1, 0, 0, 1) and lines[3].places == (0, 2, 0, 0)
    assert lines[4].best == 30 and lines[5].best == 10


def test_equal_lines_share_a_rank_and_keep_entry_order() -> None:
    results = [_result(9, 1, 24, 0, 2), _result(7, 1, 24, 0, 2), _result(8, 1, 48, 1, 1)]
    lines = standings([9, 7, 8, 6], results)
    assert [line.player for line in lines] == [8, 9, 7, 6]
    assert ranks(lines) == [1, 2, 2, 4]
    assert lines[3].sessions == 0 and lines[3].table_points == 0


# --- seating ------------------------------------------------------------------------


def _partitions(players: list[int]) -> list[Seating]:
    if not players:
        return [[]]
    head, rest = players[0], players[1:]
    result = []
    for trio in combinations(rest, 3):
        left = [p for p in rest if p not in trio]
        for tail in _partitions(left):
            result.append([(head, *trio), *tail])
    return result


def _random_history(players: list[int], sessions: int, rng: random.Random) -> list[Seating]:
    history = []
    for _ in range(sessions):
        drawn = players[:]
        rng.shuffle(drawn)
        history.append([tuple(drawn[i : i + 4]) for i in range(0, len(drawn), 4)])
    return history


@pytest.mark.slow
def test_swiss_seats_the_fewest_repeats_found_by_brute_force() -> None:
    """Up to 12 players, over random pasts: Swiss seating makes no repeat whenever some
    seating makes none, and in any case as few as the best of every seating."""
    rng = random.Random(2024)
    repeat_free_seen = 0
    for size in (4, 8, 12):
        players = list(range(size))
        everything = _partitions(players)
        for _ in range(60 if size == 12 else 20):
            if rng.random() < 0.5:
                met = meetings(_random_history(players, rng.randint(1, 3), rng))
            else:  # a sparser past (tables of other sizes of field, players who left)
                pairs = list(combinations(players, 2))
                met = Counter(
                    {frozenset(p): rng.randint(1, 2) for p in rng.sample(pairs, len(pairs) // 6)}
                )
            order = players[:]
            rng.shuffle(order)
            seating = swiss(order, met)
            assert sorted(p for table in seating for p in table) == players
            fewest = min(repeats(s, met) for s in everything)
            assert repeats(seating, met) == fewest
            repeat_free_seen += fewest == 0
    assert repeat_free_seen > 10  # the pasts drawn include many with a repeat-free seating


def test_swiss_fills_tables_from_the_top() -> None:
    order = list(range(8))
    assert swiss(order, meetings([])) == [(0, 1, 2, 3), (4, 5, 6, 7)]
    met = meetings([[(0, 1, 8, 9)]])  # 0 met 1 already: 1 drops to the next table
    assert swiss(order, met) == [(0, 2, 3, 4), (1, 5, 6, 7)]


def test_sixteen_players_five_sessions_everyone_meets_everyone_once() -> None:
    for seed in (None, 1, 77):
        schedule = affine_schedule(list(range(100, 116)), seed)
        assert len(schedule) == 5
        for seating in schedule:
            assert sorted(p for table in seating for p in table) == list(range(100, 116))
        met = meetings(schedule)
        assert set(met) == {frozenset(pair) for pair in combinations(range(100, 116), 2)}
        assert set(met.values()) == {1}


def test_seat_session_uses_the_schedule_for_sixteen() -> None:
    plan = Plan(sessions=5, seed=3)
    field = list(range(16))
    played: list[Seating] = []
    for number in range(1, 6):
        standings_order = field[::-1]
        played.append(seat_session(plan, number, field, standings_order, played))
    assert set(meetings(played).values()) == {1}


def test_first_session_and_leaders_together() -> None:
    assert first_session(list(range(8)), None) == [(0, 2, 4, 6), (1, 3, 5, 7)]
    drawn = first_session(list(range(8)), 5)
    assert drawn == first_session(list(range(8)), 5)  # the seed decides
    assert sorted(p for table in drawn for p in table) == list(range(8))
    assert leaders_together([5, 3, 1, 7, 2, 4, 6, 0]) == [(5, 3, 1, 7), (2, 4, 6, 0)]
    plan = Plan(sessions=3, seed=None, leaders_last=True)
    played = [[(0, 1, 2, 3), (4, 5, 6, 7)]]
    assert seat_session(plan, 3, list(range(8)), [0, 1, 2, 3, 4, 5, 6, 7], played) == [
        (0, 1, 2, 3),
        (4, 5, 6, 7),
    ]


def test_a_field_that_is_not_whole_tables_is_refused() -> None:
    for bad in ([], [1, 2, 3], [1, 1, 2, 3]):
        try:
            first_session(bad, None)
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")


# --- winds --------------------------------------------------------------------------


def _spread(past: dict[int, tuple[int, ...]]) -> int:
    return max(max(c) - min(c) for c in past.values())


def test_the_same_four_over_four_sessions_sit_at_every_wind_once() -> None:
    past: dict[int, tuple[int, ...]] = {}
    for _ in range(4):
        past = add_winds(past, balance_winds((1, 2, 3, 4), past))
    assert all(counts == (1, 1, 1, 1) for counts in past.values())


def test_the_schedule_over_four_sessions_evens_every_players_winds() -> None:
    for seed in (None, 4, 9):
        schedule = affine_schedule(list(range(16)), seed)
        past: dict[int, tuple[int, ...]] = {}
        for number in range(4):
            for order in balance_session(schedule[number:4], past):
                past = add_winds(past, order)
        assert _spread(past) <= 1
        assert all(counts == (1, 1, 1, 1) for counts in past.values())


@settings(max_examples=60)
@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=4, max_size=4))
def test_balance_winds_picks_the_evenest_of_the_24_orders(counts: list[list[int]]) -> None:
    """No player sits at a wind they sat at more than their least-sat one if one of the
    24 orders avoids that for all four."""
    past = {player: tuple(c) for player, c in enumerate(counts)}
    order = balance_winds((0, 1, 2, 3), past)
    assert sorted(order) == [0, 1, 2, 3]

    def even(o: tuple[int, ...]) -> bool:
        return all(past[p][w] == min(past[p]) for w, p in enumerate(o))

    if any(even(o) for o in permutations(range(4))):
        assert even(order)


def test_the_servers_path_evens_out_winds_over_five_scheduled_sessions() -> None:
    """As the runner seats them: each session's tables, its winds chosen with the
    sessions known after it; after 4 sessions everyone has sat at every place once,
    after 5 no count differs by more than 1."""
    field = list(range(16))
    for seed in (None, 11):
        plan = Plan(sessions=5, seed=seed)
        played: list[Seating] = []
        past: dict[int, tuple[int, ...]] = {}
        for number in range(1, 6):
            seating = seat_session(plan, number, field, field, played)
            ordered = balance_session(known_ahead(plan, number, field, seating), past)
            assert sorted(map(sorted, ordered)) == sorted(map(sorted, seating))
            for order in ordered:
                past = add_winds(past, order)
            played.append(ordered)
            if number == 4:
                assert all(counts == (1, 1, 1, 1) for counts in past.values())
        assert _spread(past) <= 1
        assert set(meetings(played).values()) == {1}
