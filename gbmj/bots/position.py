"""What a bot knows: the public table and its own tiles, read from its seat's view.

A ``Position`` is built from the engine's per-seat view (``HandView``) and nothing else,
so a bot can never use hidden information: another seat's concealed tiles and face-down
kongs are absent from the view, and a tile a bot cannot see counts as unseen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from protocol.tiles import PLAYING_KINDS, Tile

from ..game.events import meld_of
from ..game.views import HandView
from ..rules.hand import Meld

Counts = tuple[int, ...]


class Opponent(NamedTuple):
    """What a seat shows of another: its exposed melds and the tiles it discarded."""

    seat: int
    shown_melds: int
    discarded: frozenset[int]


@dataclass(frozen=True, slots=True)
class Position:
    """One seat's knowledge at a decision.

    ``counts``: the seat's concealed tiles as 34 counts (14-tile shape on its turn, 13
    otherwise); ``unseen``: copies of each tile not visible from the seat (4 minus its
    own concealed and melded tiles, every discard pool and every exposed meld; another
    seat's face-down kong stays unseen); ``offer``: the tile on offer in a claim window
    with the seat that offered it and whether it is a kong being robbed; ``opponents``:
    what the other seats show (melds, a face-down kong included, and their discards).
    """

    seat: int
    counts: Counts
    melds: tuple[Meld, ...]
    unseen: Counts
    seat_wind: Tile
    prevailing_wind: Tile
    wall_remaining: int
    offer: tuple[int, Tile, bool] | None
    opponents: tuple[Opponent, ...]  # the other three seats, in turn order

    @property
    def draws_left(self) -> int:
        """Roughly how many more tiles this seat will draw from the wall."""
        return self.wall_remaining // 4


def position_of(view: HandView) -> Position:
    """The ``Position`` of the seat that owns ``view`` (an engine ``HandView``)."""
    seat = view.viewer
    game = view.game
    seats = game.seats
    me = seats[seat]
    counts = [0] * PLAYING_KINDS
    for t in me.concealed or ():
        counts[t] += 1
    seen = counts[:]
    for sv in seats:
        for t in sv.discards:
            seen[t] += 1
        for m in sv.melds:
            if m is None:  # a face-down kong: its tiles stay unseen
                continue
            for t in meld_of(m).tiles:
                seen[t] += 1
    unseen = tuple(max(0, 4 - n) for n in seen)
    melds = tuple(meld_of(m) for m in me.melds if m is not None)
    opponents = tuple(
        Opponent(s, len(sv.melds), frozenset(int(t) for t in sv.discards))
        for s, sv in ((s % 4, seats[s % 4]) for s in range(seat + 1, seat + 4))
    )
    # The record holds tile codes (the wire's form); a position names its tiles.
    offer = game.offer
    return Position(
        seat,
        tuple(counts),
        melds,
        unseen,
        Tile(me.wind),
        Tile(game.prevailing_wind),
        game.wall_remaining,
        None if offer is None else (offer[0], Tile(offer[1]), offer[2]),
        opponents,
    )
