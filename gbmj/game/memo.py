"""The speed caches of a hand, kept apart so that ``HandState`` reads as the rules.

Nothing here changes what the rules decide: every value is either immutable and shared
(the frequent actions and events, built once), a pure result remembered by its inputs
(readiness and complete shapes, shared by every hand), or one hand's work kept while its
inputs stay the same (``HandMemo``).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import Tile

from ..rules.readiness import may_be_ready
from ..rules.scoring import Score
from ..rules.shapes import is_complete
from . import actions as A

# -- shared immutable values ----------------------------------------------------------------
TILES = tuple(Tile)
RUNS = tuple(tuple((t,) * n for n in range(5)) for t in TILES[:34])  # [tile][count]
# The most frequent events, one shared value each: [seat][tile][replacement] and
# [seat][tile]. Building a frozen record per draw and discard costs more.
DRAW_EVENTS = tuple(
    tuple(
        (m.Draw(seat=s, tile=t, replacement=False), m.Draw(seat=s, tile=t, replacement=True))
        for t in TILES
    )
    for s in range(4)
)
DISCARD_EVENTS = tuple(tuple(m.Discard(seat=s, tile=t) for t in TILES[:34]) for s in range(4))
DISCARDS = tuple(A.discard(Tile(t)) for t in range(34))
CONCEALED_KONGS = tuple(A.concealed_kong(Tile(t)) for t in range(34))
ADDED_KONGS = tuple(A.added_kong(Tile(t)) for t in range(34))


def _chows_with(t: int) -> tuple[tuple[ActionChoice, int, int], ...]:
    """The chows a discard of ``t`` completes, as (chow action, the two other tiles)."""
    out = []
    for lo in (t - 2, t - 1, t):
        if t < 27 and lo >= 0 and lo // 9 == t // 9 and lo % 9 <= 6:
            x, y = (u for u in (lo, lo + 1, lo + 2) if u != t)
            out.append((A.chow(Tile(lo)), x, y))
    return tuple(out)


CHOWS_WITH = tuple(_chows_with(t) for t in range(34))

# -- pure results by (concealed counts, melds), shared by every hand --------------------------
# A replay, or another hand reaching the same tiles, looks them up instead of working them
# out again.
_READY: dict[tuple[bytes, int], bool] = {}  # readiness.may_be_ready
_COMPLETE: dict[tuple[bytes, int], bool] = {}  # shapes.is_complete
MEMO_LIMIT = 50_000  # entries each, ~10 MB (a long-running server keeps memory bounded)


def _remember(memo: dict[tuple[bytes, int], bool], key: tuple[bytes, int], value: bool) -> bool:
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


def complete(counts: list[int], melds: int) -> bool:
    """``shapes.is_complete``, remembered."""
    key = (bytes(counts), melds)
    found = _COMPLETE.get(key)
    if found is None:
        found = _remember(_COMPLETE, key, is_complete(counts, melds))
    return found


# -- one hand's work --------------------------------------------------------------------------
D = TypeVar("D")  # what a seat's tiles are kept as (``hand_state.SeatData``)


class HandMemo(Generic[D]):
    """One hand's caches: a revision per seat, bumped whenever the seat's tiles change,
    and what was worked out for it (its tiles as values, its readiness bound); the turn's
    legal actions; the wins a claim window offers, with their scores."""

    __slots__ = ("_ready", "rev", "seat_data", "turn_actions", "wins")

    def __init__(self) -> None:
        self.rev = [0, 0, 0, 0]
        # Per seat: (rev, the ``SeatData`` built at it): views rebuild only what changed.
        self.seat_data: list[tuple[int, D] | None] = [None] * 4
        # Per seat: (rev or -1, counts, melds, may be ready) of the last readiness bound.
        self._ready: list[tuple[int, bytes, int, bool] | None] = [None] * 4
        self.turn_actions: tuple[ActionChoice, ...] | None = None
        self.wins: dict[int, Score] = {}

    def may_be_ready(self, seat: int, counts: list[int], melds: int, by_rev: bool = True) -> bool:
        """Whether the seat's 13 concealed tiles (``counts``, beside ``melds`` melds) may
        be one tile from a win: ``readiness.may_be_ready``, a bound, kept while they stay
        the same (a seat is checked on others' discards and again, with the same 13
        tiles, when it draws). ``by_rev``: the counts are the seat's own at its revision
        (not its hand with the drawn tile set aside), so an unchanged revision answers at
        once."""
        entry = self._ready[seat]
        rev = self.rev[seat]
        if by_rev and entry is not None and entry[0] == rev:
            return entry[3]
        key = bytes(counts)  # compact, and compares and hashes fast
        if entry is None or entry[1] != key or entry[2] != melds:
            ready = _READY.get((key, melds))
            if ready is None:
                ready = _remember(_READY, (key, melds), may_be_ready(counts, melds))
        else:
            ready = entry[3]
        self._ready[seat] = (rev if by_rev else -1, key, melds, ready)
        return ready
