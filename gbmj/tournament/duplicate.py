"""Scoring against the field (docs/rules.md §2.14): each result of a duplicate deal
compared with the other results of the same deal and seat.

A result's *comparison* is its points minus the mean of the other results for the same
deal and seat (with two results, simply the difference); a result nobody else held is
compared with nothing (0). Over one deal and seat the comparisons sum to zero. A *step
scale* (like bridge's IMPs) turns a comparison into a small score, so that one huge hand
does not outweigh many good ones; without a scale the comparison itself is the score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

# The default steps, in points of a hand: a comparison of at least steps[i] (and less
# than steps[i + 1]) is worth i + 1. An 8-fan self-drawn win is 48 points to its winner.
DEFAULT_STEPS: tuple[int, ...] = (
    10, 20, 30, 40, 50, 60, 80, 100, 120, 150, 180, 220, 270, 330, 400, 500, 650, 800,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Result:
    """What ``player`` scored holding ``seat`` of deal ``deal`` (at table ``table``)."""

    deal: int
    seat: int
    player: int
    points: int
    table: int = 0


@dataclass(frozen=True, slots=True)
class StepScale:
    """Thresholds of a comparison's size, rising: the score is the number of thresholds
    its size reaches, with the comparison's sign."""

    steps: tuple[int, ...] = DEFAULT_STEPS

    def __post_init__(self) -> None:
        if not self.steps or any(b <= a for a, b in zip(self.steps, self.steps[1:], strict=False)):
            raise ValueError("a step scale is a non-empty list of rising thresholds")
        if self.steps[0] <= 0:
            raise ValueError("a step scale's thresholds are positive")

    def score(self, comparison: Fraction | int) -> int:
        magnitude = Fraction(comparison) if comparison >= 0 else -Fraction(comparison)
        size = sum(1 for step in self.steps if magnitude >= step)
        return size if comparison >= 0 else -size


DEFAULT_SCALE = StepScale()


# The organiser's words for a scale (a tournament setting): the default steps, none (the
# comparison itself is the score), or their own thresholds, "10,20,40".
STEPS = "steps"
RAW = "raw"
MAX_STEPS = 30
MAX_THRESHOLD = 10_000  # points; a hand scores a few hundred at most


def scale_of(words: str) -> StepScale | None:
    """The scale ``words`` name (None: raw); ``ValueError`` saying why for others."""
    words = words.strip().lower()
    if words == STEPS:
        return DEFAULT_SCALE
    if words == RAW:
        return None
    try:
        steps = tuple(int(x) for x in words.split(","))
    except ValueError:
        raise ValueError(
            f"a scale is {STEPS!r}, {RAW!r} or rising thresholds in points: 10,20,40"
        ) from None
    if len(steps) > MAX_STEPS or any(x > MAX_THRESHOLD for x in steps):
        raise ValueError(f"a scale has at most {MAX_STEPS} thresholds of {MAX_THRESHOLD} at most")
    return StepScale(steps)


def scale_words(scale: StepScale | None) -> str:
    """The words of ``scale`` (``scale_of``'s inverse)."""
    if scale is None:
        return RAW
    if scale.steps == DEFAULT_STEPS:
        return STEPS
    return ",".join(str(x) for x in scale.steps)


@dataclass
class DealsInPlay:
    """Which deals of a duplicate session are still in play (docs/rules.md §2.14): deal
    ``n`` opens once every table has played it or ended its match (a table that stopped
    early plays no more deals). Tables are counted from 0, deals from 1."""

    tables: int
    played: list[int] = field(default_factory=list)  # deals played, by table
    ended: list[bool] = field(default_factory=list)  # whose match has ended

    def __post_init__(self) -> None:
        self.played = self.played or [0] * self.tables
        self.ended = self.ended or [False] * self.tables

    def play(self, table: int, deals: int) -> None:
        """``table`` has played its first ``deals`` deals."""
        self.played[table] = max(self.played[table], deals)

    def end(self, table: int) -> None:
        self.ended[table] = True

    def open(self, number: int) -> bool:
        """Whether deal ``number`` may be shown: no table will play it any more."""
        return all(e or p >= number for p, e in zip(self.played, self.ended, strict=True))

    def watchable(self, table: int) -> bool:
        """Whether ``table`` may be watched: every other table has ended, so every deal it
        has still to play is played everywhere else."""
        return all(e for t, e in enumerate(self.ended) if t != table)


def comparisons(results: Sequence[Result]) -> list[Fraction]:
    """Each result's points minus the mean of the others of its deal and seat (0 for a
    result alone), in the order of ``results``."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for r in results:
        groups[(r.deal, r.seat)].append(r.points)
    out: list[Fraction] = []
    for r in results:
        field = groups[(r.deal, r.seat)]
        others = len(field) - 1
        if others == 0:
            out.append(Fraction(0))
        else:
            out.append(r.points - Fraction(sum(field) - r.points, others))
    return out


def field_scores(results: Sequence[Result], scale: StepScale | None = None) -> list[Fraction]:
    """Each result's score against the field: its comparison on ``scale``, or the
    comparison itself without one."""
    compared = comparisons(results)
    if scale is None:
        return compared
    return [Fraction(scale.score(c)) for c in compared]


def totals(results: Sequence[Result], scale: StepScale | None = None) -> dict[int, Fraction]:
    """Each player's total score against the field."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    for r, s in zip(results, field_scores(results, scale), strict=True):
        out[r.player] += s
    return dict(out)


def deal_sums(results: Sequence[Result], scale: StepScale | None = None) -> dict[int, Fraction]:
    """The sum of the scores of each deal (0 for every deal when no scale is used)."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    for r, s in zip(results, field_scores(results, scale), strict=True):
        out[r.deal] += s
    return dict(out)


def shown(score: Fraction) -> str:
    """A score as a player reads it: whole numbers as they are, others to two places."""
    if score.denominator == 1:
        return str(score.numerator)
    return f"{float(score):.2f}"


__all__ = [
    "DEFAULT_SCALE",
    "DEFAULT_STEPS",
    "RAW",
    "STEPS",
    "DealsInPlay",
    "Result",
    "StepScale",
    "comparisons",
    "deal_sums",
    "field_scores",
    "scale_of",
    "scale_words",
    "shown",
    "totals",
]
