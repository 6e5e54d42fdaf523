"""The tile counter (算牌器, docs/rules.md §2.6): how many of each tile are unseen from one seat.

4 minus the copies in the seat's own hand (concealed tiles and melds, its concealed kongs
included), in every discard pool and in every exposed meld of the others; another
player's concealed kong is face down, so its tiles count as unseen. Computed from the
seat's own view, so the counter can never tell more than the seat may see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game.events import meld_of

if TYPE_CHECKING:
    from ..game.views import HandView

PLAYING_TILES = 34


def unseen_counts(view: HandView) -> tuple[int, ...]:
    """Unseen copies of tiles 0-33 for ``view.viewer`` (an engine ``HandView``)."""
    seen = [0] * PLAYING_TILES
    for seat in view.game.seats:
        for tile in seat.concealed or ():
            seen[int(tile)] += 1
        for tile in seat.discards:
            seen[int(tile)] += 1
        for meld in seat.melds:
            if meld is None:
                continue  # another player's concealed kong: face down
            for tile in meld_of(meld).tiles:
                seen[int(tile)] += 1
    return tuple(max(0, 4 - n) for n in seen)
