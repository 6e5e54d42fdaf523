"""Seat winds balanced across sessions: at each table, of the 24 orders of its four
players, the one that evens out each player's past winds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations

WINDS = 4


def _cost(order: Sequence[int], past: Mapping[int, Sequence[int]]) -> tuple[int, int]:
    # First the fewest players at a wind they sat at more often than their least-sat
    # one, then the evenest counts (sum of squares) once this session is added.
    uneven = 0
    squares = 0
    for wind, player in enumerate(order):
        counts = list(past.get(player, (0,) * WINDS))
        if counts[wind] > min(counts):
            uneven += counts[wind] - min(counts)
        counts[wind] += 1
        squares += sum(c * c for c in counts)
    return uneven, squares


def balance_winds(table: Sequence[int], past: Mapping[int, Sequence[int]]) -> tuple[int, ...]:
    """The four players of ``table`` ordered East, South, West, North (the table's
    places) so that their wind counts (``past[player][wind]``, winds 0-3 from East) are
    as even as can be; among equal orders, the first in the order given."""
    if len(table) != WINDS:
        raise ValueError("a table has four players")
    return min(permutations(table), key=lambda order: _cost(order, past))


def add_winds(
    past: Mapping[int, Sequence[int]], order: Sequence[int]
) -> dict[int, tuple[int, ...]]:
    """``past`` with one more session at the places ``order`` gives."""
    result = {player: tuple(counts) for player, counts in past.items()}
    for wind, player in enumerate(order):
        counts = list(result.get(player, (0,) * WINDS))
        counts[wind] += 1
        result[player] = tuple(counts)
    return result


# Orders tried by the look-ahead before it falls back to one table at a time.
LOOKAHEAD_BUDGET = 50_000


def balance_session(
    ahead: Sequence[Sequence[Sequence[int]]], past: Mapping[int, Sequence[int]]
) -> list[tuple[int, ...]]:
    """The tables of the next session (``ahead[0]``), each ordered East to North.

    When the sessions after it are known too (a fixed schedule), the orders are chosen
    so that, if it can be done, nobody sits at a wind more often than at their least-sat
    one in any of the sessions ``ahead``: a table-by-table choice can paint itself into a
    corner that a look-ahead avoids. Failing that, each table by ``balance_winds``."""
    tables = [tuple(table) for seating in ahead for table in seating]
    first = len(ahead[0]) if ahead else 0
    counts = {player: list(c) for player, c in past.items()}
    chosen: list[tuple[int, ...]] = []
    tried = [0]

    def even(order: tuple[int, ...]) -> bool:
        for wind, player in enumerate(order):
            own = counts.setdefault(player, [0] * WINDS)
            if own[wind] > min(own):
                return False
        return True

    def search(index: int) -> bool:
        if index == len(tables):
            return True
        for order in permutations(tables[index]):
            tried[0] += 1
            if tried[0] > LOOKAHEAD_BUDGET:
                return False
            if not even(order):
                continue
            for wind, player in enumerate(order):
                counts[player][wind] += 1
            chosen.append(order)
            if search(index + 1):
                return True
            chosen.pop()
            for wind, player in enumerate(order):
                counts[player][wind] -= 1
        return False

    if search(0):
        return chosen[:first]
    result: list[tuple[int, ...]] = []
    for table in ahead[0]:
        result.append(balance_winds(table, past))
    return result
