"""Judging a win and settling a hand (docs/rules.md §1.4, §2.4).

Points per hand, ``total`` = every fan including flowers:

- self-drawn win: each of the three others pays ``8 + total``;
- win on a discard (or a robbed kong): the discarder pays ``8 + total``, the other two
  pay ``8`` each;
- exhaustive draw: nobody pays;
- escape: the escaper pays ``80`` to the house and the others gain nothing. The house is
  outside the four seats, so an escape is the one outcome whose points do not sum to zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.tiles import Tile
from protocol.vocabulary import Outcome

from ..rules.errors import HandError
from ..rules.hand import Hand, Meld
from ..rules.scoring import Score, WinContext, score_hand

BASE_POINTS = 8
ESCAPE_POINTS = 10 * BASE_POINTS


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended and what each seat gains (negative: pays)."""

    outcome: Outcome
    points: tuple[int, ...]
    winner: int | None = None
    from_seat: int | None = None  # the discarder or the robbed seat; None if self-drawn
    win_tile: Tile | None = None
    score: Score | None = None
    escaper: int | None = None


def win_points(winner: int, from_seat: int | None, total: int) -> tuple[int, ...]:
    """Each seat's points for a win worth ``total`` fan (flowers included)."""
    points = [0] * 4
    for seat in range(4):
        if seat == winner:
            continue
        pay = BASE_POINTS + total if from_seat in (None, seat) else BASE_POINTS
        points[seat] = -pay
        points[winner] += pay
    return tuple(points)


def escape_points(escaper: int) -> tuple[int, ...]:
    """The escaper pays the house; nobody at the table gains."""
    return tuple(-ESCAPE_POINTS if seat == escaper else 0 for seat in range(4))


def score_win(counts: Sequence[int], melds: Sequence[Meld], context: WinContext) -> Score | None:
    """The score of a win, or None when it is no legal win (not complete or under 8 fan).

    ``counts`` are the concealed tiles *with* the winning tile. Callers that judge many
    hands should check ``shapes.is_complete`` first: the calculator is the slow part.
    """
    concealed = [Tile(t) for t in range(34) for _ in range(counts[t])]
    concealed.remove(context.win_tile)
    try:
        score = score_hand(Hand(tuple(concealed), tuple(melds)), context)
    except HandError:
        return None
    return score if score.meets_8 else None
