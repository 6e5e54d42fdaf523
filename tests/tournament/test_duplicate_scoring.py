"""Scoring against the field (docs/rules.md §2.14): comparisons with the mean of the
others of the same deal and seat, the step scale, totals, deals not played everywhere;
the scale as the organiser names it; which deals are still in play."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbmj.tournament.duplicate import (
    DEFAULT_SCALE,
    DEFAULT_STEPS,
    DealsInPlay,
    Result,
    StepScale,
    comparisons,
    deal_sums,
    field_scores,
    scale_of,
    scale_words,
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


def test_the_organiser_names_a_scale() -> None:
    assert scale_of("steps") == DEFAULT_SCALE and DEFAULT_SCALE.steps == DEFAULT_STEPS
    assert scale_of(" RAW ") is None
    assert scale_of("10,20,40") == StepScale((10, 20, 40))
    for words in ("steps", "raw", "10,20,40"):
        assert scale_words(scale_of(words)) == words
    assert scale_words(StepScale(DEFAULT_STEPS)) == "steps"


@pytest.mark.parametrize("words", ["", "imps", "10,,20", "20,10", "0,10", "-5", "1," * 31 + "1"])
def test_a_scale_that_is_none_of_them_is_refused(words: str) -> None:
    with pytest.raises(ValueError):
        scale_of(words)


def test_raw_scores_are_the_comparisons_and_steps_their_size() -> None:
    results = [Result(0, 0, 0, 48), Result(0, 0, 1, -8), Result(0, 0, 2, -16)]
    # 48 - mean(-8, -16) = 60; -8 - mean(48, -16) = -24; -16 - mean(48, -8) = -36
    assert field_scores(results, scale_of("raw")) == [60, -24, -36]
    assert field_scores(results, scale_of("steps")) == [6, -2, -3]
    assert field_scores(results, scale_of("25,50")) == [2, 0, -1]


def test_a_deal_opens_once_no_table_will_play_it() -> None:
    deals = DealsInPlay(3)
    assert not deals.open(1)
    deals.play(0, 2)
    deals.play(1, 1)
    assert not deals.open(1)  # table 2 has played nothing
    deals.play(2, 1)
    assert deals.open(1) and not deals.open(2)
    deals.play(1, 0)  # (a replayed step never takes a deal back)
    assert deals.open(1)
    deals.end(1)  # table 1 stopped early: it plays no more deals
    deals.play(2, 2)
    assert deals.open(2) and not deals.open(3)


def test_a_table_may_be_watched_once_every_other_table_has_ended() -> None:
    deals = DealsInPlay(2)
    deals.play(0, 4)  # table 0 is ahead, but still playing
    assert not deals.watchable(0) and not deals.watchable(1)
    deals.end(0)
    assert deals.watchable(1) and not deals.watchable(0)
