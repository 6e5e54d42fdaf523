"""Table points (桌分) of one session, kept ×12 so that shared places stay integers."""

from __future__ import annotations

from collections.abc import Sequence

# 4 / 2 / 1 / 0 table points for 1st to 4th, ×12: any run of tied places divides evenly.
PLACE_POINTS: tuple[int, ...] = (48, 24, 12, 0)
TABLE_TOTAL = sum(PLACE_POINTS)  # 84
SCALE = 12


def table_points(scores: Sequence[int]) -> tuple[int, ...]:
    """The table points (×12) of the four players whose session scores are ``scores``,
    in the same order: tied players share the points of the places they cover
    (``[10, 10, 10, 5]`` gives ``(28, 28, 28, 0)``). Every table sums to 84."""
    if len(scores) != len(PLACE_POINTS):
        raise ValueError("a table has four players")
    result: list[int] = []
    for score in scores:
        above = sum(1 for other in scores if other > score)
        tied = sum(1 for other in scores if other == score)
        covered = PLACE_POINTS[above : above + tied]
        result.append(sum(covered) // tied)
    return tuple(result)


def places(scores: Sequence[int]) -> tuple[int, ...]:
    """Each player's place (1-4) at the table; tied players share the best place they
    cover (``[10, 10, 10, 5]`` gives ``(1, 1, 1, 4)``)."""
    return tuple(1 + sum(1 for other in scores if other > score) for score in scores)


def shown(points: int) -> str:
    """Table points ×12 as a player reads them: ``28`` → ``2.33``, ``48`` → ``4``."""
    whole, twelfths = divmod(points, SCALE)
    if twelfths == 0:
        return str(whole)
    return f"{points / SCALE:.2f}"
