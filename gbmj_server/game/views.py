"""Per-viewer views of a hand (SPEC §2.8).

A seat sees its own concealed tiles (and the tile it just drew), every public thing
(discards, exposed melds, flowers, counts, the wall's size, the timer) and its own legal
actions. Others' concealed tiles are absent (only a count), their concealed kongs are
face down (``None`` in ``melds``), and during a claim window a viewer learns only whether
it must answer itself, never who else may claim. A spectator sees only public things.
When the hand is over everything is revealed: every hand, the concealed kongs, the wall
order and its salt, the result.
"""

from __future__ import annotations

from typing import NamedTuple

from protocol.tiles import Tile

from ..rules.hand import Meld
from .actions import Action
from .events import SPECTATOR, to_plain
from .hand_state import HandState, Phase


class SeatView(NamedTuple):
    seat: int
    wind: Tile
    concealed: tuple[Tile, ...] | None  # None: hidden from this viewer
    concealed_count: int
    melds: tuple[Meld | None, ...]  # None: a concealed kong, face down
    flowers: tuple[Tile, ...]
    discards: tuple[Tile, ...]
    drawn: Tile | None  # the tile just drawn, shown to its owner only


class HandView(NamedTuple):
    viewer: int
    round_number: int
    hand_number: int
    dealer: int
    prevailing_wind: Tile
    dice: tuple[tuple[int, int], tuple[int, int]]
    break_stack: int
    commitment: str
    wall_remaining: int
    phase: str
    to_act: tuple[int, ...]
    timer: str | None
    offer: tuple[int, Tile, bool] | None  # (seat, tile, robbing a kong)
    legal_actions: tuple[Action, ...]
    seats: tuple[SeatView, ...]
    result: dict | None = None
    wall_order: tuple[Tile, ...] | None = None
    salt: bytes | None = None

    def to_dict(self) -> dict:
        return to_plain(self)  # type: ignore[return-value]


def make_view(state: HandState, viewer: int) -> HandView:
    """``state`` as ``viewer`` (a seat 0-3 or ``SPECTATOR``) may see it."""
    if viewer != SPECTATOR and viewer not in range(4):
        raise ValueError(f"no viewer {viewer}")
    return _Builder(state).view(viewer)


def all_views(state: HandState) -> dict[int, HandView]:
    """The views of the four seats and of a spectator, sharing the work."""
    builder = _Builder(state)
    return {v: builder.view(v) for v in (0, 1, 2, 3, SPECTATOR)}


def _seat_views(state: HandState, s: int, ended: bool) -> tuple[SeatView, SeatView]:
    """Seat ``s`` as its owner sees it and as everybody else does."""
    data = state.seat_data(s)
    wind, count = state.seat_winds[s], len(data.concealed)
    shown = SeatView(s, wind, data.concealed, count, data.melds, data.flowers, data.discards, None)
    if ended:
        return shown, shown
    face_down = tuple(None if m.concealed else m for m in data.melds)
    hidden = SeatView(s, wind, None, count, face_down, data.flowers, data.discards, None)
    return shown, hidden


class _Builder:
    """The parts common to every viewer, computed once."""

    def __init__(self, state: HandState) -> None:
        self.state = state
        self.ended = ended = state.phase is Phase.ENDED
        self.revealed: list[SeatView] = []
        self.hidden: list[SeatView] = []
        cache = state.view_cache
        for s in range(4):
            key = (state.seat_rev(s), ended)
            entry = cache.get(s)
            if entry is None or entry[0] != key:
                entry = cache[s] = (key, _seat_views(state, s, ended))
            self.revealed.append(entry[1][0])
            self.hidden.append(entry[1][1])
        self.to_act = to_act = state.to_act
        phase = state.phase
        self.claim = claim = phase is Phase.CLAIM
        timer = state.timer
        result = None
        if ended and state.result is not None:
            r = state.result
            result = {
                "outcome": r.outcome.value,
                "points": r.points,
                "winner": r.winner,
                "from_seat": r.from_seat,
                "win_tile": r.win_tile,
                "escaper": r.escaper,
                "fans": [(fc.fan.id, fc.count) for fc in r.score.fans] if r.score else [],
                "total": r.score.total if r.score else 0,
            }
        w = state.wall
        # HandView's fields: viewer, the nine of ``head``, to_act, timer, offer,
        # legal_actions, seats, and the three of ``tail``.
        self.head = (
            state.round_number,
            state.hand_number,
            state.dealer,
            state.prevailing_wind,
            w.dice,
            w.break_stack,
            w.commitment,
            state.wall_remaining,
            phase.value,
        )
        self.middle = (None if timer is None else timer.value, state.offer)
        self.tail = (result, w.order if ended else None, w.salt if ended else None)
        self.public_to_act = () if claim else to_act
        hidden = tuple(self.hidden)
        self.common = HandView._make(
            (SPECTATOR, *self.head, self.public_to_act, *self.middle, (), hidden, *self.tail)
        )

    def view(self, viewer: int) -> HandView:
        if viewer == SPECTATOR:
            return self.common
        state = self.state
        hidden = self.hidden
        own = self.revealed[viewer]
        drawn = state.last_drawn(viewer)
        if drawn is not None:
            own = SeatView(*own[:7], drawn)
        seats = (*hidden[:viewer], own, *hidden[viewer + 1 :])
        to_act, legal = self.public_to_act, ()
        if viewer in self.to_act:
            legal = state.legal_actions(viewer)
            if self.claim:
                to_act = (viewer,)
        return HandView._make((viewer, *self.head, to_act, *self.middle, legal, seats, *self.tail))


assert HandView._fields[10:15] == ("to_act", "timer", "offer", "legal_actions", "seats")
