"""Hints for the 8-fan minimum, from what one player sees (docs/rules.md, "The coach").

Everything here reads a ``Sight``: the player's own concealed tiles and melds, their
flowers, the winds, and how many copies of each tile they cannot see (their own tiles,
every discard pool and every exposed meld are seen; another seat's concealed tiles, its
face-down kongs and the wall are not). Nothing else goes in, so a hint can never use a
tile the player may not see.

- ``hints(sight)``: for a 14-tile hand each discard with the shanten after it and its
  useful tiles (kinds, and the copies still unseen), best first; for a 13-tile hand its
  useful tiles, or when ready every winning tile scored on a discard and self-drawn;
  and the nearest 8-fan plans with the tiles that move each.
- ``claim_hints(sight, meld)``: what claiming a discard into ``meld`` does to the
  shanten and to the plans.

Shanten, waits and fan come from ``gbmj.rules``; the plans are the bots' catalogue
(``gbmj.bots.plans``): one reading of a hand serves the bots and the players.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from protocol.tiles import PLAYING_KINDS, Tile
from protocol.vocabulary import MeldKind

from ..bots.plans import (
    DEAD,
    FILTER,
    GENERIC,
    PLANS,
    PUNGS,
    MeldInfo,
    Plan,
    meld_info,
    reach,
    reach_bound,
)
from ..bots.position import position_of
from ..game.views import HandView
from ..rules.errors import HandError
from ..rules.hand import Hand, Meld
from ..rules.scoring import Score, WinContext, score_hand
from ..rules.shanten import held_counts, shanten_of, useful_of
from ..rules.waits import concealed_waits

Counts = tuple[int, ...]

# Plans further than this many steps behind the plain shanten are not worth a line.
PLAN_SLACK = 3
PLANS_SHOWN = 5


@dataclass(frozen=True, slots=True)
class Sight:
    """One player's knowledge at a decision.

    ``concealed``: their concealed tiles as 34 counts (14-tile shape on their turn, 13
    otherwise); ``unseen``: the copies of each tile they cannot see.
    """

    concealed: Counts
    melds: tuple[Meld, ...]
    flowers: int
    seat_wind: Tile
    prevailing_wind: Tile
    unseen: Counts

    @property
    def size(self) -> int:
        return sum(self.concealed) + 3 * len(self.melds)

    def on_table(self, tile: int, concealed: Sequence[int]) -> int:
        """Copies of ``tile`` in the discard pools and exposed melds (和绝张 counts these)
        once the player holds ``concealed`` (a discard from the sight's tiles goes to
        the table)."""
        own = concealed[tile] + sum(m.tiles.count(Tile(tile)) for m in self.melds if m.concealed)
        return 4 - self.unseen[tile] - own


def sight(
    concealed: Iterable[int],
    melds: Sequence[Meld],
    *,
    flowers: int,
    seat_wind: int,
    prevailing_wind: int,
    visible: Iterable[int],
) -> Sight:
    """A ``Sight`` from the player's tiles and ``visible``: every tile of every discard
    pool and of the other seats' exposed melds (the player's own melds are counted from
    ``melds``)."""
    counts = [0] * PLAYING_KINDS
    for t in concealed:
        if not 0 <= t < PLAYING_KINDS:  # a flower drawn, not yet set aside
            raise HandError("unknown_tile", f"{Tile(t).notation} is not part of a hand")
        counts[t] += 1
    seen = held_counts(counts, melds)
    for t in visible:
        seen[t] += 1
    return Sight(
        tuple(counts),
        tuple(melds),
        flowers,
        Tile(seat_wind),
        Tile(prevailing_wind),
        tuple(max(0, 4 - n) for n in seen),
    )


def sight_of(view: HandView) -> Sight:
    """The ``Sight`` of the seat that owns ``view`` (an engine ``HandView``)."""
    pos = position_of(view)
    return Sight(
        pos.counts,
        pos.melds,
        len(view.game.seats[view.viewer].flowers),
        pos.seat_wind,
        pos.prevailing_wind,
        pos.unseen,
    )


class Useful(NamedTuple):
    """A tile that helps, and how many copies of it the player cannot see."""

    tile: int
    unseen: int


class WaitHint(NamedTuple):
    """A winning tile of a ready hand, scored on a discard and self-drawn (``None``:
    the hand cannot win that way, e.g. the tile would be a fifth copy)."""

    tile: int
    unseen: int
    fourth_tile: bool  # the last copy: 和绝张 is counted
    discard: Score | None
    self_drawn: Score | None

    @property
    def discard_total(self) -> int:
        return self.discard.total if self.discard else 0

    @property
    def self_drawn_total(self) -> int:
        return self.self_drawn.total if self.self_drawn else 0

    @property
    def discard_meets_8(self) -> bool:
        return self.discard is not None and self.discard.meets_8

    @property
    def self_drawn_meets_8(self) -> bool:
        return self.self_drawn is not None and self.self_drawn.meets_8


class DiscardHint(NamedTuple):
    """A discard from a 14-tile hand: the shanten after it and the tiles that then help
    (the winning tiles when it leaves the hand ready, scored in ``waits``)."""

    tile: int
    shanten: int
    useful: tuple[Useful, ...]
    waits: tuple[WaitHint, ...] = ()

    @property
    def useful_kinds(self) -> int:
        return len(self.useful)

    @property
    def useful_tiles(self) -> int:
        return sum(u.unseen for u in self.useful)

    @property
    def winning_8(self) -> int:
        """Unseen winning tiles that reach 8 fan (on a discard or self-drawn)."""
        return sum(w.unseen for w in self.waits if w.discard_meets_8 or w.self_drawn_meets_8)


class PlanHint(NamedTuple):
    """A plan within reach: its shanten (0 ready), the discard that keeps it best (14
    tiles) and the tiles that bring it a step nearer."""

    plan: Plan
    distance: int
    discard: int | None
    moves: tuple[Useful, ...]


class Hints(NamedTuple):
    size: int  # 13 or 14
    shanten: int
    discards: tuple[DiscardHint, ...]  # 14 tiles, best first
    useful: tuple[Useful, ...]  # 13 tiles, not ready
    waits: tuple[WaitHint, ...]  # 13 tiles, ready
    plans: tuple[PlanHint, ...]

    @property
    def no_wait_reaches_8(self) -> bool:
        """Ready, yet no winning tile reaches 8 fan: the hand cannot win as it is."""
        return (
            self.size == 13
            and self.shanten == 0
            and not any(w.discard_meets_8 or w.self_drawn_meets_8 for w in self.waits)
        )


class ClaimHint(NamedTuple):
    """What claiming a discard into ``meld`` does: the shanten before and after (after
    the discard that follows a chow or pung) and the plans before and after."""

    meld: Meld
    shanten_before: int
    shanten_after: int
    plans_before: tuple[PlanHint, ...]
    plans_after: tuple[PlanHint, ...]


# -- the parts --------------------------------------------------------------------------
def _useful(counts: list[int], sight: Sight, held: list[int]) -> tuple[int, tuple[Useful, ...]]:
    s, tiles = useful_of(counts, len(sight.melds), held)
    return s, tuple(Useful(t, sight.unseen[t]) for t in tiles)


def _score(hand: Hand, sight: Sight, tile: int, self_drawn: bool, fourth: bool) -> Score | None:
    context = WinContext(
        Tile(tile),
        self_drawn=self_drawn,
        fourth_tile=fourth,
        seat_wind=sight.seat_wind,
        prevailing_wind=sight.prevailing_wind,
        flowers=min(sight.flowers, 8),
    )
    try:
        return score_hand(hand, context)
    except HandError:
        return None


def _waits(counts: Sequence[int], sight: Sight, held: Sequence[int]) -> tuple[WaitHint, ...]:
    """Every live winning tile of 13 concealed ``counts`` (with the sight's melds)."""
    tiles = [t for t in concealed_waits(list(counts), len(sight.melds)) if held[t] < 4]
    if not tiles:
        return ()
    hand = Hand(tuple(Tile(t) for t in range(PLAYING_KINDS) for _ in range(counts[t])), sight.melds)
    out = []
    for t in tiles:
        # 和绝张: the other three copies lie in the pools and exposed melds; the player
        # knows it from what they see, before the tile comes.
        fourth = counts[t] == 0 and sight.on_table(t, counts) == 3
        out.append(
            WaitHint(
                t,
                sight.unseen[t],
                fourth,
                _score(hand, sight, t, False, fourth),
                _score(hand, sight, t, True, fourth),
            )
        )
    return tuple(out)


def _discard_order(d: DiscardHint) -> tuple[int, int, int, int, int]:
    return (d.shanten, -d.winning_8, -d.useful_tiles, -d.useful_kinds, d.tile)


def _discards(sight: Sight) -> tuple[int, tuple[DiscardHint, ...]]:
    counts = list(sight.concealed)
    held = held_counts(counts, sight.melds)
    shanten = shanten_of(counts, len(sight.melds), held)
    out = []
    for t in range(PLAYING_KINDS):
        if not counts[t]:
            continue
        counts[t] -= 1
        held[t] -= 1
        s, useful = _useful(counts, sight, held)
        waits = _waits(counts, sight, held) if s == 0 else ()
        out.append(DiscardHint(t, s, useful, waits))
        counts[t] += 1
        held[t] += 1
    out.sort(key=_discard_order)
    return shanten, tuple(out)


def plan_hints(
    concealed: Counts, melds: tuple[Meld, ...], unseen: Counts, limit: int = PLANS_SHOWN
) -> tuple[PlanHint, ...]:
    """The nearest plans (one per name, the plain "any four sets" left out), nearest
    first, then by the fan the plan itself is worth."""
    info = meld_info(melds)
    base = reach(PLANS[0], concealed, info)[0]
    bounds = []
    for i, plan in enumerate(PLANS):
        if plan.kind != GENERIC:
            low = reach_bound(plan, concealed, info)
            if low <= base + PLAN_SLACK:
                bounds.append((low, i))
    bounds.sort()
    best: dict[str, tuple[int, int, int]] = {}  # name -> (distance, -fan, plan index)
    for low, i in bounds:
        if len(best) >= limit and low > sorted(best.values())[limit - 1][0]:
            break  # no plan left can come nearer than the ones kept
        plan = PLANS[i]
        r = reach(plan, concealed, info)
        if r is DEAD or r[0] > base + PLAN_SLACK:
            continue
        key = (r[0], -plan.fan, i)
        if plan.name not in best or key < best[plan.name]:
            best[plan.name] = key
    chosen = sorted(best.values())[:limit]
    return tuple(_plan_hint(i, d, concealed, info, unseen) for d, _, i in chosen)


def _plan_hint(
    i: int, distance: int, concealed: Counts, info: MeldInfo, unseen: Counts
) -> PlanHint:
    plan = PLANS[i]
    counts = list(concealed)
    discard = None
    if sum(counts) + 3 * info.size == 14:
        # The discard that keeps the plan nearest; between equals, the tile seen most.
        options = []
        for t in sorted((t for t in range(PLAYING_KINDS) if counts[t]), key=unseen.__getitem__):
            counts[t] -= 1
            d = reach(plan, tuple(counts), info)[0]
            counts[t] += 1
            if d <= distance:
                options = [(d, 0, t)]
                break
            options.append((d, unseen[t], t))
        _, _, discard = min(options)
        counts[discard] -= 1
    now = reach(plan, tuple(counts), info)[0]
    # A filter plan (a flush, a tile range, all pungs) moves only with tiles it allows.
    candidates = plan.mask if plan.kind in (FILTER, PUNGS) else range(PLAYING_KINDS)
    moves = []
    for t in sorted(candidates):
        if unseen[t]:
            counts[t] += 1
            if reach(plan, tuple(counts), info)[0] < now:
                moves.append(Useful(t, unseen[t]))
            counts[t] -= 1
    return PlanHint(plan, distance, discard, tuple(moves))


# -- the hints --------------------------------------------------------------------------
def hints(sight: Sight) -> Hints:
    """The hints for a 13- or 14-tile hand (``HandError`` for any other size)."""
    size = sight.size
    if size not in (13, 14):
        raise HandError("wrong_tile_count", f"hints need 13 or 14 tiles, the hand has {size}")
    plans = plan_hints(sight.concealed, sight.melds, sight.unseen)
    if size == 14:
        shanten, discards = _discards(sight)
        return Hints(14, shanten, discards, (), (), plans)
    counts = list(sight.concealed)
    held = held_counts(counts, sight.melds)
    shanten, useful = _useful(counts, sight, held)
    if shanten == 0:
        return Hints(13, 0, (), (), _waits(counts, sight, held), plans)
    return Hints(13, shanten, (), useful, (), plans)


def claim_meld(kind: MeldKind, tile: int, offered: int, claimed_from: int) -> Meld:
    """The meld a claim makes: a chow from its lowest ``tile``, a pung or an exposed kong
    of ``tile``; ``offered`` is the discard claimed, ``claimed_from`` relative (1 left)."""
    return Meld(kind, Tile(tile), claimed_from=claimed_from, claimed_tile=Tile(offered))


def claim_hints(sight: Sight, meld: Meld) -> ClaimHint:
    """What claiming into ``meld`` (its ``claimed_tile`` the discard) does to a 13-tile
    hand. ``HandError`` when the hand lacks the meld's other tiles."""
    if sight.size != 13:
        raise HandError("wrong_tile_count", "a claim is made with 13 tiles")
    counts = list(sight.concealed)
    held = held_counts(counts, sight.melds)
    before = shanten_of(counts, len(sight.melds), held)
    rest = list(meld.tiles)
    if meld.claimed_tile is not None:
        rest.remove(meld.claimed_tile)
    for t in rest:
        if not counts[t]:
            raise HandError("bad_meld", f"the hand holds no {t.notation} for this claim")
        counts[t] -= 1
    melds = (*sight.melds, meld)
    after = shanten_of(counts, len(melds), held_counts(counts, melds))
    return ClaimHint(
        meld,
        before,
        after,
        plan_hints(sight.concealed, sight.melds, sight.unseen),
        plan_hints(tuple(counts), melds, sight.unseen),
    )
