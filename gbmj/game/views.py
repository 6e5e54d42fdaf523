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

from protocol.tiles import Tile
from protocol.vocabulary import Phase

from ..rules.hand import Meld
from .actions import Action
from .events import SPECTATOR, Plain, plain_fields
from .hand_state import HandState


class SeatView(NamedTuple):
    seat: int
    wind: Tile
    concealed: tuple[Tile, ...] | None  # None: hidden from this viewer
    concealed_count: int
    melds: tuple[Meld | None, ...]  # None: a concealed kong, face down
    flowers: tuple[Tile, ...]
    discards: tuple[Tile, ...]
    drawn: Tile | None  # the tile just drawn, shown to its owner only
    # discards another seat claimed, public: (place in the pool as played, tile)
    claimed: tuple[tuple[int, Tile], ...] = ()


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
            revealed[s] = SeatView(*revealed[s][:7], drawn, revealed[s].claimed)
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
        phase.value,
    )
    tail = (_result(state) if ended else None, *((w.order, w.salt) if ended else (None, None)))
    public_to_act = () if claim else to_act
    timer_value = None if timer is None else timer.value
    offer = state.offer
    views: dict[int, HandView] = {}
    legal: tuple[Action, ...]
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
        views[viewer] = _new_view(
            (viewer, *head, own_to_act, timer_value, offer, legal, seats, *tail)
        )
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
    wind, count, claimed = state.seat_winds[s], len(concealed), state.claimed(s)
    new = tuple.__new__  # SeatView without NamedTuple's keyword handling: a hot path
    shown = new(SeatView, (s, wind, concealed, count, melds, flowers, discards, None, claimed))
    if ended:
        return shown, shown
    public: tuple[Meld | None, ...] = melds
    if melds:
        public = tuple(None if m.concealed else m for m in melds)
    hidden = new(SeatView, (s, wind, None, count, public, flowers, discards, None, claimed))
    return shown, hidden


def _new_view(fields: tuple[object, ...]) -> HandView:
    """A HandView from its 18 fields in order (``_make`` without its length check)."""
    return tuple.__new__(HandView, fields)


assert len(HandView._fields) == 18
assert HandView._fields[10:15] == ("to_act", "timer", "offer", "legal_actions", "seats")
