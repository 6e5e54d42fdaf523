"""The standings (排名) over the sessions played: table points, then total score, then
the counts of first, second, third and fourth places, then the best single session."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SessionResult:
    """One player's result of one session: table points ×12, score, place (1-4)."""

    player: int
    session: int
    table_points: int
    score: int
    place: int


@dataclass(frozen=True)
class Standing:
    """One player's line of the standings."""

    player: int
    table_points: int
    score: int
    places: tuple[int, int, int, int]  # how many 1st, 2nd, 3rd, 4th places
    best: int  # the best single session's score (0 before any session)
    sessions: int

    def key(self) -> tuple[int, ...]:
        """Sorts the better first: more table points, more score, more firsts, more
        seconds, more thirds, fewer fourths, the better best session."""
        first, second, third, fourth = self.places
        return (-self.table_points, -self.score, -first, -second, -third, fourth, -self.best)


def standings(players: Sequence[int], results: Iterable[SessionResult]) -> list[Standing]:
    """Every player of ``players`` (in entry order) ranked by the rules; players equal
    on every count keep their entry order."""
    by_player: dict[int, list[SessionResult]] = {player: [] for player in players}
    for result in results:
        if result.player in by_player:
            by_player[result.player].append(result)
    lines = []
    for player in players:
        own = by_player[player]
        counts = [0, 0, 0, 0]
        for result in own:
            counts[result.place - 1] += 1
        lines.append(
            Standing(
                player=player,
                table_points=sum(r.table_points for r in own),
                score=sum(r.score for r in own),
                places=(counts[0], counts[1], counts[2], counts[3]),
                best=max((r.score for r in own), default=0),
                sessions=len(own),
            )
        )
    return sorted(lines, key=Standing.key)  # sorted is stable: entry order breaks ties


def ranks(lines: Sequence[Standing]) -> list[int]:
    """The rank (1-based) of each line of sorted standings; equal lines share a rank."""
    result: list[int] = []
    for index, line in enumerate(lines):
        if index and line.key() == lines[index - 1].key():
            result.append(result[-1])
        else:
            result.append(index + 1)
    return result
