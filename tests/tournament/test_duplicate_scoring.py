"""Scoring against the field (docs/rules.md §2.14): comparisons with the mean of the
others of the same deal and seat, the step scale, totals, deals not played everywhere."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbmj.tournament.duplicate import (
    Result,
    StepScale,
    comparisons,
    deal_sums,
    field_scores,
    shown,
    totals,
)

points = st.integers(min_value=-600, max_value=600)


@given(st.lists(st.lists(points, min_size=4, max_size=4), min_size=1, max_size=6))
def test_the_comparisons_of_a_deal_sum_to_zero(tables: list[list[int]]) -> None:
    # One deal at len(tables) tables; seat s of table t scored tables[t][s].
    results = [
        Result(0, s, 4 * t + s, p, t) for t, row in enumerate(tables) for s, p in enumerate(row)
    ]
    assert sum(comparisons(results)) == 0
    assert deal_sums(results) == {0: 0}


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), points), min_size=1, max_size=40))
def test_every_deal_sums_to_zero_whatever_was_played_where(
    rows: list[tuple[int, int, int]],
) -> None:
    results = [Result(d, s, i, p) for i, (d, s, p) in enumerate(rows)]
    assert all(v == 0 for v in deal_sums(results).values())


def test_two_results_compare_by_their_difference() -> None:
    results = [Result(0, 1, 7, 48), Result(0, 1, 9, -16)]
    assert comparisons(results) == [64, -64]


def test_more_results_compare_with_the_mean_of_the_others() -> None:
    results = [Result(0, 0, 1, 30), Result(0, 0, 2, 0), Result(0, 0, 3, -9)]
    # 30 - (0 - 9) / 2, 0 - (30 - 9) / 2, -9 - (30 + 0) / 2
    assert comparisons(results) == [Fraction(69, 2), Fraction(-21, 2), -24]


def test_a_deal_not_played_everywhere_is_compared_among_those_that_played_it() -> None:
    results = [
        Result(0, 0, 1, 40, table=0),
        Result(0, 0, 2, 10, table=1),
        Result(1, 0, 1, 100, table=0),  # deal 1 only at table 0: nothing to compare with
    ]
    assert comparisons(results) == [30, -30, 0]
    assert totals(results) == {1: 30, 2: -30}


def test_the_step_scale() -> None:
    scale = StepScale((10, 30, 60))
    assert [scale.score(c) for c in (0, 9, 10, 29, 30, 59, 60, 1000)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [scale.score(-c) for c in (9, 10, 30, 60)] == [0, -1, -2, -3]
    assert scale.score(Fraction(19, 2)) == 0
    results = [Result(0, 2, 1, 48), Result(0, 2, 2, 0)]
    assert field_scores(results, scale) == [2, -2]
    assert field_scores(results) == [48, -48]  # no scale: the raw difference
    assert totals(results, scale) == {1: 2, 2: -2}


@pytest.mark.parametrize("steps", [(), (10, 10), (20, 10), (0, 5)])
def test_a_step_scale_rises_from_above_zero(steps: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        StepScale(steps)


def test_scores_as_shown() -> None:
    assert shown(Fraction(3)) == "3"
    assert shown(Fraction(-21, 2)) == "-10.50"
