"""The fan reference: every fan has an example that scores it, and the exclusions agree
with the calculator's."""

from __future__ import annotations

from gbmj.coach.reference import EXAMPLES, EXCLUDES
from gbmj.rules import scoring
from protocol.fans import FANS


def test_every_fan_has_an_example_that_scores_it() -> None:
    assert set(EXAMPLES) == {f.id for f in FANS}
    for fan_id, example in EXAMPLES.items():
        score = example.score()
        assert fan_id in {fc.fan.id for fc in score.fans}, (fan_id, example)


def test_no_example_shows_a_fan_its_fan_excludes() -> None:
    for fan_id, example in EXAMPLES.items():
        shown = {fc.fan.id for fc in example.score().fans}
        assert not shown & set(EXCLUDES.get(fan_id, ())), (fan_id, shown & set(EXCLUDES[fan_id]))


def test_the_calculators_exclusions_are_all_listed() -> None:
    for fan, excluded in (*scoring._EXCLUDES, *scoring._EXCLUDES_LATE):
        assert set(excluded) <= set(EXCLUDES.get(fan, ())), fan
