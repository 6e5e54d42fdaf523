"""Duplicate play (docs/rules.md §2.14): deals, and a match that plays a list of them.

A ``Deal`` is a seed, the dealer and the prevailing wind: on personal walls
(docs/rules.md §1.6) it gives every seat the same tiles in the same order at every
table, whatever the calls. A ``DuplicateMatch`` is one table's match in a duplicate
session: it plays the session's deals in order, each as a hand on personal walls, and
keeps the standings by player like ``Match`` (whose ``HandRecord`` it books).

Seat rotation: players 0-3 are the table's places. For deal ``k`` at table ``t`` the
player at place ``p`` holds seat ``(p - k - t) mod 4``: over four deals everyone holds
every seat once, and at four tables the players at one place hold the four seats of a
deal, one each.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from protocol.messages import HandEnd
from protocol.tiles import WINDS, Tile
from protocol.vocabulary import SeatChanges

from .events import Plain, plain_int, plain_list, plain_str
from .hand_state import HandState, IllegalAction, log_of
from .match import HandRecord, Match
from .personal_walls import PersonalWalls

# A duplicate match plays at most as many deals as a match has hands: a hand's number
# in its match (1-16) is what its walls' commitment binds.
MAX_DEALS = 16


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal of duplicate play: the same walls and the same dealer at every table."""

    seed: bytes
    dealer: int
    prevailing_wind: Tile

    def __post_init__(self) -> None:
        if self.dealer not in range(4):
            raise ValueError("the dealer is a seat 0-3")
        if self.prevailing_wind not in WINDS:
            raise ValueError("the prevailing wind is a wind")

    def walls(self, match_id: int = 0, number: int = 0) -> PersonalWalls:
        """The deal's walls, bound to hand ``number`` of match ``match_id``."""
        return PersonalWalls.from_seed(self.seed, self.dealer, match_id, number)

    def to_dict(self) -> dict[str, Plain]:
        return {
            "seed": self.seed.hex(),
            "dealer": self.dealer,
            "prevailing_wind": int(self.prevailing_wind),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> Deal:
        return cls(
            bytes.fromhex(plain_str(data, "seed")),
            plain_int(data, "dealer"),
            Tile(plain_int(data, "prevailing_wind")),
        )


def deals_from_seed(seed: bytes, count: int) -> tuple[Deal, ...]:
    """``count`` deals drawn from ``seed``: the deal passes round the seats and the
    prevailing wind moves on every four deals, as in a match."""
    if count not in range(1, MAX_DEALS + 1):
        raise ValueError(f"a duplicate session plays 1 to {MAX_DEALS} deals")
    return tuple(
        Deal(
            hashlib.sha256(b"gbmj-deal\0" + seed + k.to_bytes(2, "big")).digest(),
            k % 4,
            WINDS[(k // 4) % 4],
        )
        for k in range(count)
    )


# A duplicate match's record seed says what it plays, so that a restarted server
# rebuilds it (``match_of_seed``): the mark, the number of deals, the table, then the
# seed the deals are drawn from.
_SEED_MARK = b"gbmj-duplicate\0"


def duplicate_seed(deal_seed: bytes, count: int, table: int) -> bytes:
    """The record seed of table ``table``'s match of the ``count`` deals of ``deal_seed``."""
    if count not in range(1, MAX_DEALS + 1) or table not in range(256):
        raise ValueError("1 to 16 deals, tables 0 to 255")
    return _SEED_MARK + bytes([count, table]) + deal_seed


def match_of_seed(
    seed: bytes,
    rounds: int,
    match_id: int = 0,
    seat_changes: SeatChanges = SeatChanges.EVERY_ROUND,
) -> Match:
    """The match a record seed starts: a duplicate match for a ``duplicate_seed``, else
    an ordinary match of ``rounds`` rounds with its seat changes."""
    if seed.startswith(_SEED_MARK) and len(seed) > len(_SEED_MARK) + 2:
        count, table = seed[len(_SEED_MARK)], seed[len(_SEED_MARK) + 1]
        deals = deals_from_seed(seed[len(_SEED_MARK) + 2 :], count)
        return DuplicateMatch(deals, table, match_id, seed)
    return Match(seed, rounds, match_id, seat_changes)


def seating(deal_index: int, table: int = 0) -> tuple[int, int, int, int]:
    """players[seat] for deal ``deal_index`` (0-based) at table ``table``: the player at
    place p holds seat (p - deal_index - table) mod 4."""
    shift = deal_index + table
    return (shift % 4, (1 + shift) % 4, (2 + shift) % 4, (3 + shift) % 4)


class DuplicateMatch(Match):
    """One table's match of a duplicate session: the deals in order, personal walls.

    A ``Match`` (the server's tables drive it alike) whose hands are the deals, one
    each, and whose seating turns with every deal (``seating``) instead of by rounds.
    ``seed`` is kept for the record only (the deals say everything)."""

    def __init__(
        self, deals: Sequence[Deal], table: int = 0, match_id: int = 0, seed: bytes = b""
    ) -> None:
        if not 1 <= len(deals) <= MAX_DEALS:
            raise ValueError(f"a duplicate match plays 1 to {MAX_DEALS} deals")
        super().__init__(seed, rounds=(len(deals) + 3) // 4, match_id=match_id)
        self.deals = tuple(deals)
        self.table = table
        self.index = 0  # the current (or next) deal, 0-based
        self.players = list(seating(0, table))

    # -- where everyone sits ----------------------------------------------------------
    @property
    def deal(self) -> Deal:
        return self.deals[min(self.index, len(self.deals) - 1)]

    @property
    def first_dealer(self) -> int:
        return seating(0, self.table)[self.deals[0].dealer]

    @property
    def dealer(self) -> int:
        return self.deal.dealer

    @property
    def prevailing_wind(self) -> Tile:
        return self.deal.prevailing_wind

    @property
    def number(self) -> int:
        """The current (or next) hand's number in the match, 1-16."""
        return self.index + 1

    @property
    def finished(self) -> bool:
        return self.index >= len(self.deals)

    def ranking(self) -> list[tuple[int, int]]:
        """(player, points), best first; ties in place order."""
        return sorted(((p, self.standings[p]) for p in range(4)), key=lambda pp: -pp[1])

    # -- playing ----------------------------------------------------------------------
    def start_hand(self) -> HandState:
        if self.finished:
            raise IllegalAction("match_over", "the match is over")
        if self.hand is not None and not self.hand.ended:
            raise IllegalAction("hand_in_progress", "the current hand is not over")
        deal = self.deal
        self.hand = HandState(
            deal.walls(self.match_id, self.number),
            prevailing_wind=deal.prevailing_wind,
            # The hand's place in the match (what a replay binds), not the deal's wind.
            round_number=self.index // 4 + 1,
            hand_number=self.index % 4 + 1,
        )
        return self.hand

    def finish_hand(self) -> HandRecord:
        hand = self.hand
        if hand is None or not hand.ended or hand.result is None:
            raise IllegalAction("hand_in_progress", "no ended hand to book")
        result = hand.result
        players = tuple(self.players)
        by_player = [0, 0, 0, 0]
        for seat, pts in enumerate(result.points):
            by_player[players[seat]] = pts
        for p in range(4):
            self.standings[p] += by_player[p]
        record = HandRecord(
            hand.round_number,
            hand.hand_number,
            hand.dealer,
            players,
            result.outcome.value,
            tuple(by_player),
            None if result.winner is None else players[result.winner],
            None if result.escaper is None else players[result.escaper],
        )
        self.history.append(record)
        self._logs.append(hand.to_dict()["log"])
        self.hand = None
        self.index += 1
        if not self.finished:
            self.players = list(seating(self.index, self.table))
        return record

    # -- plain data -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Plain]:
        logs = [*self._logs]
        if self.hand is not None:
            logs.append(self.hand.to_dict()["log"])
        return {
            "deals": [d.to_dict() for d in self.deals],
            "table": self.table,
            "hands": logs,
            "booked": len(self.history),
            "match_id": self.match_id,
            "seed": self.seed.hex(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> DuplicateMatch:
        deals = []
        for d in plain_list(data["deals"], "deals"):
            if not isinstance(d, Mapping):
                raise ValueError("a deal is a mapping")
            deals.append(Deal.from_dict(d))
        match = cls(
            deals,
            plain_int(data, "table"),
            plain_int(data, "match_id"),
            bytes.fromhex(plain_str(data, "seed")),
        )
        booked = plain_int(data, "booked")
        for i, log in enumerate(plain_list(data["hands"], "hands")):
            hand = match.start_hand()
            for seat, action in log_of(log):
                if action is None:
                    match.escape(match.player_at(seat))
                else:
                    hand.apply(seat, action)
            if i < booked:
                match.finish_hand()
        return match


def sealed_end(end: HandEnd, shown: Collection[int]) -> HandEnd:
    """The hand's end as a duplicate table sees it while its deal is still to be played
    at another table (docs/rules.md §2.14): the concealed tiles of the seats in
    ``shown`` (the viewer's own, the winner's), the others' concealed kongs face down as
    in play, and no wall or salt. Every tile of a deal is a tile of some seat's wall,
    which the same seat holds at the other tables."""
    return replace(
        end,
        concealed=tuple(tiles if s in shown else () for s, tiles in enumerate(end.concealed)),
        melds=tuple(
            melds if s in shown else tuple(None if m is None or m.concealed else m for m in melds)
            for s, melds in enumerate(end.melds)
        ),
        wall_order=None,
        salt=None,
    )


__all__ = [
    "MAX_DEALS",
    "Deal",
    "DuplicateMatch",
    "deals_from_seed",
    "duplicate_seed",
    "match_of_seed",
    "sealed_end",
    "seating",
]
