"""Per-viewer views of a hand (docs/rules.md §2.8).

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
from weakref import WeakKeyDictionary

from protocol.messages import ActionChoice, MeldView, SeatView
from protocol.tiles import Tile
from protocol.vocabulary import Phase, TimerClass

from .events import SPECTATOR, Plain, meld_view, plain_fields
from .hand_state import HandState


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
    phase: Phase
    to_act: tuple[int, ...]
    timer: TimerClass | None
    offer: tuple[int, Tile, bool] | None  # (seat, tile, robbing a kong)
    legal_actions: tuple[ActionChoice, ...]
    seats: tuple[SeatView, ...]
    result: dict[str, object] | None = None
    wall_order: tuple[Tile, ...] | None = None
    salt: bytes | None = None

    def to_dict(self) -> dict[str, Plain]:
        return plain_fields(self)


# Each seat's two forms (its owner's, everybody else's) by hand, kept until the seat's
# tiles change: (seat's revision, hand ended, owner's form, the others' form). The hand
# itself knows nothing of its views; the entry goes with the hand.
_SEAT_VIEWS: WeakKeyDictionary[HandState, dict[int, tuple[int, bool, SeatView, SeatView]]] = (
    WeakKeyDictionary()
)


def make_view(state: HandState, viewer: int) -> HandView:
    """``state`` as ``viewer`` (a seat 0-3 or ``SPECTATOR``) may see it."""
    if viewer != SPECTATOR and viewer not in range(4):
        raise ValueError(f"no viewer {viewer}")
    return all_views(state, (viewer,))[viewer]


def all_views(
    state: HandState, viewers: tuple[int, ...] = (0, 1, 2, 3, SPECTATOR)
) -> dict[int, HandView]:
    """The views of ``viewers`` (by default the four seats and a spectator), sharing the
    work: every part common to several viewers is built once."""
    phase = state.phase
    ended = phase is Phase.ENDED
    cache = _SEAT_VIEWS.get(state)
    if cache is None:
        cache = _SEAT_VIEWS[state] = {}
    revealed: list[SeatView] = []
    hidden: list[SeatView] = []
    for s in range(4):
        rev = state.seat_rev(s)
        entry = cache.get(s)
        if entry is None or entry[0] != rev or entry[1] is not ended:
            entry = cache[s] = (rev, ended, *_seat_views(state, s, ended))
        revealed.append(entry[2])
        hidden.append(entry[3])
    to_act = state.to_act
    claim = phase is Phase.CLAIM
    if phase is Phase.TURN:  # only the seat on turn may hold a drawn tile: its own sees it
        s = state.turn_seat
        drawn = state.last_drawn(s)
        if drawn is not None:
            revealed[s] = _with_drawn(revealed[s], drawn)
    # The fields before ``viewer`` and after ``seats`` are the same for every viewer.
    w = state.wall
    timer = state.timer
    head = (
        state.round_number,
        state.hand_number,
        state.dealer,
        state.prevailing_wind,
        w.dice,
        w.break_stack,
        w.commitment,
        state.wall_remaining,
        phase,
    )
    tail = (_result(state) if ended else None, *((w.order, w.salt) if ended else (None, None)))
    public_to_act = () if claim else to_act
    offer = state.offer
    views: dict[int, HandView] = {}
    legal: tuple[ActionChoice, ...]
    for viewer in viewers:
        if viewer == SPECTATOR:
            seats, own_to_act, legal = tuple(hidden), public_to_act, ()
        else:
            own = hidden.copy()
            own[viewer] = revealed[viewer]
            seats, own_to_act, legal = tuple(own), public_to_act, ()
            if viewer in to_act:
                legal = state.legal_actions(viewer)
                if claim:  # in a claim window a seat learns only its own turn to answer
                    own_to_act = (viewer,)
        views[viewer] = _new_view((viewer, *head, own_to_act, timer, offer, legal, seats, *tail))
    return views


def _result(state: HandState) -> dict[str, object] | None:
    r = state.result
    if r is None:
        return None
    return {
        "outcome": r.outcome.value,
        "points": r.points,
        "winner": r.winner,
        "from_seat": r.from_seat,
        "win_tile": r.win_tile,
        "escaper": r.escaper,
        "fans": [(fc.fan.id, fc.count) for fc in r.score.fans] if r.score else [],
        "total": r.score.total if r.score else 0,
    }


def _seat_views(state: HandState, s: int, ended: bool) -> tuple[SeatView, SeatView]:
    """Seat ``s`` as its owner sees it and as everybody else does."""
    concealed, melds, flowers, discards = state.seat_data(s)
    wind, count = state.seat_winds[s], len(concealed)
    claimed = state.claimed(s) or None
    shown_melds = tuple(map(meld_view, melds)) if melds else ()
    shown = _seat_view(s, wind, concealed, count, shown_melds, flowers, discards, None, claimed)
    if ended:
        return shown, shown
    public: tuple[MeldView | None, ...] = shown_melds
    if melds:
        public = tuple(None if x.concealed else x for x in shown_melds)
    return shown, _seat_view(s, wind, None, count, public, flowers, discards, None, claimed)


def _with_drawn(seat: SeatView, drawn: Tile) -> SeatView:
    """``seat`` (its owner's form) with the tile just drawn shown apart."""
    return _seat_view(
        seat.seat,
        seat.wind,
        seat.concealed,
        seat.concealed_count,
        seat.melds,
        seat.flowers,
        seat.discards,
        drawn,
        seat.claimed,
    )


def _seat_view(
    seat: int,
    wind: int,
    concealed: tuple[int, ...] | None,
    count: int,
    melds: tuple[MeldView | None, ...],
    flowers: tuple[int, ...],
    discards: tuple[int, ...],
    drawn: int | None,
    claimed: tuple[tuple[int, int], ...] | None,
) -> SeatView:
    # A record is a msgspec struct, built in C: as fast as by any shortcut.
    return SeatView(
        seat=seat,
        wind=wind,
        concealed=concealed,
        concealed_count=count,
        melds=melds,
        flowers=flowers,
        discards=discards,
        drawn=drawn,
        claimed=claimed,
    )


def _new_view(fields: tuple[object, ...]) -> HandView:
    """A HandView from its 18 fields in order (``_make`` without its length check)."""
    return tuple.__new__(HandView, fields)


assert len(HandView._fields) == 18
assert HandView._fields[10:15] == ("to_act", "timer", "offer", "legal_actions", "seats")
