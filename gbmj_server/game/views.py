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
    """The parts common to every viewer, computed once per state."""

    __slots__ = ("claim", "common", "head", "hidden", "revealed", "state", "tail", "to_act")

    def __init__(self, state: HandState) -> None:
        self.state = state
        phase = state.phase
        ended = phase is Phase.ENDED
        # Each seat's two forms are kept in the state's view cache until its tiles change.
        cache = state.view_cache
        revealed: list[SeatView] = []
        hidden: list[SeatView] = []
        for s in range(4):
            rev = state.seat_rev(s)
            entry = cache.get(s)
            if entry is None or entry[0] != rev or entry[1] is not ended:
                entry = cache[s] = (rev, ended, *_seat_views(state, s, ended))
            revealed.append(entry[2])
            hidden.append(entry[3])
        # Only the seat on turn may hold a drawn tile: its own form shows it.
        if phase is Phase.TURN:
            s = state.turn_seat
            drawn = state.last_drawn(s)
            if drawn is not None:
                revealed[s] = SeatView(*revealed[s][:7], drawn)
        self.revealed = revealed
        self.hidden = hidden
        self.to_act = to_act = state.to_act
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
        # HandView's fields after ``viewer``: the nine of ``head``, to_act, timer, offer,
        # legal_actions, seats and the three of ``tail``.
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
        self.tail = (result, w.order if ended else None, w.salt if ended else None)
        public_to_act = () if claim else to_act
        self.common = HandView._make(
            (
                SPECTATOR,
                *self.head,
                public_to_act,
                None if timer is None else timer.value,
                state.offer,
                (),
                tuple(hidden),
                *self.tail,
            )
        )

    def view(self, viewer: int) -> HandView:
        if viewer == SPECTATOR:
            return self.common
        seats = self.hidden.copy()
        seats[viewer] = self.revealed[viewer]
        c = self.common
        to_act, legal = c.to_act, ()
        if viewer in self.to_act:
            legal = self.state.legal_actions(viewer)
            if self.claim:  # in a claim window a seat learns only its own turn to answer
                to_act = (viewer,)
        return HandView._make(
            (viewer, *self.head, to_act, c.timer, c.offer, legal, tuple(seats), *self.tail)
        )


assert HandView._fields[10:15] == ("to_act", "timer", "offer", "legal_actions", "seats")
