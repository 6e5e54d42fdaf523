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

from msgspec.structs import replace

from protocol.messages import ActionChoice, GameView, SeatView
from protocol.tiles import Tile
from protocol.vocabulary import Phase

from .events import SPECTATOR, Plain, meld_view, plain_fields
from .hand_state import HandState


class HandView(NamedTuple):
    """The hand as ``viewer`` may see it: ``game``, the very record a snapshot carries
    (``ms_left`` unset: the engine keeps no clock), with what travels in other messages
    (the viewer's ``legal_actions`` in a prompt; once the hand is over, its ``result``
    and the revealed ``wall_order`` and ``salt`` in ``hand_result``)."""

    viewer: int
    game: GameView
    legal_actions: tuple[ActionChoice, ...]
    result: dict[str, object] | None = None
    wall_order: tuple[Tile, ...] | None = None
    salt: bytes | None = None

    def to_dict(self) -> dict[str, Plain]:
        return plain_fields(self)


class _Kept:
    """What the views of one hand keep between its steps. The hand itself knows nothing
    of its views; this goes with the hand."""

    __slots__ = ("head", "seats")

    def __init__(self, state: HandState) -> None:
        w = state.wall
        # The record's fields fixed for the whole hand, in a record whose other fields
        # are placeholders that every view replaces: a copy with a few fields replaced
        # is built in C at a third of the cost of a record built from all its fields.
        self.head = GameView(
            round_number=state.round_number,
            hand_number=state.hand_number,
            dealer=state.dealer,
            prevailing_wind=state.prevailing_wind,
            dice=w.dice,
            break_stack=w.break_stack,
            commitment=w.commitment,
            wall_remaining=0,
            phase=Phase.TURN,
            to_act=(),
            seats=(),
        )
        # Each seat's two forms, kept until the seat's tiles change: seat -> (seat's
        # revision, hand ended, its owner's form, everybody else's form).
        self.seats: dict[int, tuple[int, bool, SeatView, SeatView]] = {}


_KEPT: WeakKeyDictionary[HandState, _Kept] = WeakKeyDictionary()


def make_view(state: HandState, viewer: int) -> HandView:
    """``state`` as ``viewer`` (a seat 0-3 or ``SPECTATOR``) may see it."""
    if viewer != SPECTATOR and viewer not in range(4):
        raise ValueError(f"no viewer {viewer}")
    return all_views(state, (viewer,))[viewer]


def all_views(
    state: HandState, viewers: tuple[int, ...] = (0, 1, 2, 3, SPECTATOR)
) -> dict[int, HandView]:
    """The views of ``viewers`` (by default the four seats and a spectator), sharing the
    work: every part common to several viewers is built once, and one record is made
    for each viewer (a seat's differs from the spectator's only in its own seat and, in
    a claim window, in being told its own turn to answer)."""
    phase = state.phase
    ended = phase is Phase.ENDED
    kept = _KEPT.get(state)
    if kept is None:
        kept = _KEPT[state] = _Kept(state)
    cache = kept.seats
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
    head, remaining, timer, offer = kept.head, state.wall_remaining, state.timer, state.offer
    public_to_act = () if claim else to_act
    w = state.wall
    # The fields after ``legal_actions`` are the same for every viewer.
    tail = (_result(state), w.order, w.salt) if ended else (None, None, None)
    views: dict[int, HandView] = {}
    seats: tuple[SeatView, ...]
    legal: tuple[ActionChoice, ...]
    for viewer in viewers:
        shown_to_act = public_to_act
        if viewer == SPECTATOR:
            seats, legal = tuple(hidden), ()
        else:
            own = hidden.copy()
            own[viewer] = revealed[viewer]
            seats, legal = tuple(own), ()
            if viewer in to_act:
                legal = state.legal_actions(viewer)
                if claim:  # in a claim window a seat learns only its own turn to answer
                    shown_to_act = (viewer,)
        game = replace(
            head,
            wall_remaining=remaining,
            phase=phase,
            to_act=shown_to_act,
            timer=timer,
            offer=offer,
            seats=seats,
        )
        # (``HandView._make`` without its length check: the fields are listed in order)
        views[viewer] = tuple.__new__(HandView, (viewer, game, legal, *tail))
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
    shown_melds = tuple(map(meld_view, melds)) if melds else ()
    shown = SeatView(
        seat=s,
        wind=state.seat_winds[s],
        concealed=concealed,
        concealed_count=len(concealed),
        melds=shown_melds,
        flowers=flowers,
        discards=discards,
        claimed=state.claimed(s) or None,
    )
    if ended:
        return shown, shown
    public = tuple(None if x.concealed else x for x in shown_melds)
    return shown, replace(shown, concealed=None, melds=public)


def _with_drawn(seat: SeatView, drawn: Tile) -> SeatView:
    """``seat`` (its owner's form) with the tile just drawn shown apart."""
    return replace(seat, drawn=drawn)


assert HandView._fields == ("viewer", "game", "legal_actions", "result", "wall_order", "salt")
