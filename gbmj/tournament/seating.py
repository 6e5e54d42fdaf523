"""Who sits at which table each session (docs/rules.md §2.12).

- the first session: drawn from the tournament's seed, or by seed order (the entry list
  dealt round the tables, so the top seeds sit at different tables);
- the sessions after it, Swiss-style: tables filled from the top of the standings with
  the fewest repeat meetings possible;
- the last session, if the organiser asks, puts the leaders together (高高碰): tables of
  four straight down the standings;
- 16 players and at most 5 sessions: the schedule in which everyone meets everyone else
  exactly once (the affine plane of order 4: its 16 points are the players, its 5
  classes of 4 parallel lines of 4 points the sessions' tables).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

TABLE = 4
Seating = list[tuple[int, ...]]  # one session: each table's four players
Pair = frozenset[int]

# The search for the fewest repeats tries at most this many tables, then completes the
# seating table by table: exact for up to 16 players (a club evening), bounded beyond.
SEARCH_BUDGET = 300_000


@dataclass(frozen=True)
class Plan:
    """How a tournament seats its players."""

    sessions: int
    seed: int | None  # None: the first session by seed order, else drawn from it
    leaders_last: bool = False  # 高高碰: the last session straight down the standings


def check_field(players: Sequence[int]) -> None:
    """Raises ``ValueError`` unless the players fill whole tables, each once."""
    if not players or len(players) % TABLE:
        raise ValueError("a tournament needs a multiple of four players")
    if len(set(players)) != len(players):
        raise ValueError("a player is entered twice")


def _chunks(players: Sequence[int]) -> Seating:
    return [tuple(players[i : i + TABLE]) for i in range(0, len(players), TABLE)]


def first_session(players: Sequence[int], seed: int | None) -> Seating:
    """Session 1: ``players`` in seed order dealt round the tables, or (with a seed)
    shuffled by it and seated four by four."""
    check_field(players)
    if seed is None:
        tables = len(players) // TABLE
        return [tuple(players[t::tables]) for t in range(tables)]
    drawn = list(players)
    random.Random(seed).shuffle(drawn)
    return _chunks(drawn)


def leaders_together(order: Sequence[int]) -> Seating:
    """高高碰: the standings' first four at one table, the next four at the next..."""
    check_field(order)
    return _chunks(order)


def meetings(sessions: Iterable[Seating]) -> Counter[Pair]:
    """How many times each pair of players has sat at the same table."""
    met: Counter[Pair] = Counter()
    for seating in sessions:
        for table in seating:
            for a, b in combinations(table, 2):
                met[frozenset((a, b))] += 1
    return met


def repeats(seating: Seating, met: Counter[Pair]) -> int:
    """The repeat meetings a seating makes: each pair seated together again counts once
    for every time they met before."""
    return sum(met[frozenset(pair)] for table in seating for pair in combinations(table, 2))


def swiss(order: Sequence[int], met: Counter[Pair], budget: int = SEARCH_BUDGET) -> Seating:
    """Tables filled from the top of the standings (``order``, best first) with the
    fewest repeat meetings: of the seatings with the fewest, the one that seats the
    highest-placed players with the highest-placed they may meet (the first in the
    order in which the top unseated player takes the three highest free companions).

    The best seating of the players still free depends only on who they are, so each
    such set is solved once; past ``budget`` tables tried, a set not yet solved takes
    its cheapest first table and goes on from there (exact up to 16 players)."""
    check_field(order)
    n = len(order)
    seen = [[met[frozenset((a, b))] for b in order] for a in order]  # by standings index
    solved: dict[int, tuple[int, list[tuple[int, ...]]]] = {}  # free set (bits) -> best
    tried = 0

    def solve(free: int) -> tuple[int, list[tuple[int, ...]]]:
        nonlocal tried
        if not free:
            return 0, []
        if free in solved:
            return solved[free]
        members = [i for i in range(n) if free >> i & 1]
        head, rest = members[0], members[1:]
        row = seen[head]

        def added(trio: tuple[int, ...]) -> int:
            a, b, c = trio
            return row[a] + row[b] + row[c] + seen[a][b] + seen[a][c] + seen[b][c]

        if tried >= budget:  # out of search: the cheapest first table, and on
            trio = min(combinations(rest, TABLE - 1), key=added)
            tried += 1
            below, tables = solve(free & ~(1 << head | 1 << trio[0] | 1 << trio[1] | 1 << trio[2]))
            return added(trio) + below, [(head, *trio), *tables]
        best: tuple[int, list[tuple[int, ...]]] | None = None
        for trio in combinations(rest, TABLE - 1):
            cost = added(trio)
            if best is not None and cost >= best[0]:
                continue
            tried += 1
            a, b, c = trio
            below, tables = solve(free & ~(1 << head | 1 << a | 1 << b | 1 << c))
            if best is None or cost + below < best[0]:
                best = (cost + below, [(head, a, b, c), *tables])
                if best[0] == 0:
                    break
        assert best is not None  # three or more free players always give a table
        solved[free] = best
        return best

    return [tuple(order[i] for i in table) for table in solve((1 << n) - 1)[1]]


# GF(4) = {0, 1, a, a+1} as 0-3: addition is XOR, multiplication by this table.
_GF4_MUL = (
    (0, 0, 0, 0),
    (0, 1, 2, 3),
    (0, 2, 3, 1),
    (0, 3, 1, 2),
)


def affine_schedule(players: Sequence[int], seed: int | None) -> list[Seating]:
    """The five sessions of 16 players in which each pair meets exactly once: player
    ``i`` (of the players in seed order, or drawn by the seed) is the point
    ``(i // 4, i % 4)`` of the affine plane over GF(4); session 1 the vertical lines
    (``x = c``), sessions 2-5 the lines ``y = m·x + b`` of slope ``m`` = 0, 1, 2, 3."""
    if len(players) != 16 or len(set(players)) != 16:
        raise ValueError("the schedule is for 16 players")
    ordered = list(players)
    if seed is not None:
        random.Random(seed).shuffle(ordered)

    def at(x: int, y: int) -> int:
        return ordered[x * 4 + y]

    sessions: list[Seating] = [[tuple(at(c, y) for y in range(4)) for c in range(4)]]
    for slope in range(4):
        sessions.append([tuple(at(x, _GF4_MUL[slope][x] ^ b) for x in range(4)) for b in range(4)])
    return sessions


def uses_schedule(plan: Plan, players: int) -> bool:
    """Whether the tournament follows the everyone-meets-once schedule."""
    return players == 16 and plan.sessions <= 5


def seat_session(
    plan: Plan,
    number: int,
    entry_order: Sequence[int],
    standings_order: Sequence[int],
    past: Sequence[Seating],
) -> Seating:
    """The tables of session ``number`` (1-based): ``entry_order`` is the field in seed
    order, ``standings_order`` the same players best first, ``past`` the sessions
    played. The leaders' last session comes before the schedule; the schedule before
    Swiss pairing."""
    check_field(entry_order)
    if not 1 <= number <= plan.sessions:
        raise ValueError(f"session {number} of {plan.sessions}")
    if plan.leaders_last and number == plan.sessions and number > 1:
        return leaders_together(standings_order)
    if uses_schedule(plan, len(entry_order)):
        return affine_schedule(entry_order, plan.seed)[number - 1]
    if number == 1:
        return first_session(entry_order, plan.seed)
    return swiss(standings_order, meetings(past))


def known_ahead(
    plan: Plan, number: int, entry_order: Sequence[int], seating: Seating
) -> list[Seating]:
    """Session ``number``'s ``seating`` and the sessions after it already known (a fixed
    schedule's, for at most three more: enough to even out the winds over four), for
    ``winds.balance_session``."""
    ahead = [seating]
    if not uses_schedule(plan, len(entry_order)):
        return ahead
    schedule = affine_schedule(entry_order, plan.seed)
    for later in range(number + 1, min(plan.sessions, number + 3) + 1):
        if plan.leaders_last and later == plan.sessions:
            break
        ahead.append(schedule[later - 1])
    return ahead
