"""One match (局): 1 to 4 rounds (圈) of four hands, as a pure state machine.

Players 0-3 are the match's participants; seats 0-3 are the places at the table in turn
order (the hand engine's seats). Seat 0 is the East place (东风位): in every round its
player deals the first hand, then the deal passes to seats 1, 2, 3 (no repeats). The
first seating is drawn from the seed, so the first dealer is random. Between rounds the
players change places as docs/rules.md §1.5 says, by one of two schemes (a table
setting): before every round (the default),

- after round 1: East <-> South, West <-> North;
- after round 2: East and South to the opposite places, West -> South, North -> East;
- after round 3: East <-> South, West <-> North;

so everyone sits at every place once in a four-round match; or before the third round
only (East <-> South, West <-> North after round 2). The prevailing wind is East,
South, West, North by round. Points are kept per player (standings). An escape ends the
hand in progress: the escaper pays 80 points to the house and the others gain nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from protocol.messages import EventBody
from protocol.tiles import WINDS, Tile
from protocol.vocabulary import SeatChanges

from .events import Plain, plain_int, plain_list, plain_str
from .hand_state import HandState, IllegalAction, log_of
from .wall import SeedStream, Wall

HANDS_PER_ROUND = 4

# After round r, the player at place p moves to place SEAT_CHANGES[scheme][r][p].
SEAT_CHANGES: dict[SeatChanges, dict[int, tuple[int, int, int, int]]] = {
    SeatChanges.EVERY_ROUND: {1: (1, 0, 3, 2), 2: (2, 3, 1, 0), 3: (1, 0, 3, 2)},
    SeatChanges.THIRD_ROUND: {2: (1, 0, 3, 2)},
}


def seating_after(
    players: tuple[int, ...], round_number: int, scheme: SeatChanges = SeatChanges.EVERY_ROUND
) -> tuple[int, ...]:
    """Who sits where (``players[place]``) after round ``round_number`` ends, by the
    table's ``scheme`` of seat changes; the same seating when it makes none then."""
    moves = SEAT_CHANGES[scheme].get(round_number)
    if moves is None:
        return tuple(players)
    seated = [0, 0, 0, 0]
    for place, player in enumerate(players):
        seated[moves[place]] = player
    return tuple(seated)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand: where everyone sat and what each *player* gained."""

    round_number: int
    hand_number: int
    dealer: int  # the seat
    players: tuple[int, ...]  # players[seat]
    outcome: str
    points: tuple[int, ...]  # by player
    winner: int | None = None  # a player
    escaper: int | None = None  # a player


class Match:
    """A match: the seating, the current hand and the standings."""

    def __init__(
        self,
        seed: bytes,
        rounds: int = 4,
        match_id: int = 0,
        seat_changes: SeatChanges = SeatChanges.EVERY_ROUND,
    ) -> None:
        if rounds not in range(1, 5):
            raise ValueError("a match has 1 to 4 rounds")
        self.seed = seed
        self.rounds = rounds
        # The match's id on its server, bound into every wall's commitment (set once the
        # server has written the match, before its first deal; 0 outside a server).
        self.match_id = match_id
        self.seat_changes = seat_changes
        self.round_number = 1
        self.hand_number = 1
        self.players = _first_seating(seed)  # players[seat] = player
        self.standings = [0, 0, 0, 0]  # by player
        self.history: list[HandRecord] = []
        self.escaped: set[int] = set()  # players whose seat another controller plays
        self.hand: HandState | None = None
        self._logs: list[Plain] = []  # plain action logs of the booked hands

    # -- where everyone sits ----------------------------------------------------------
    def player_at(self, seat: int) -> int:
        return self.players[seat]

    def seat_of(self, player: int) -> int:
        return self.players.index(player)

    @property
    def first_dealer(self) -> int:
        """The player who dealt the match's first hand (drawn from the seed)."""
        return _first_seating(self.seed)[0]

    @property
    def dealer(self) -> int:
        """The seat that deals the current (or next) hand."""
        return self.hand_number - 1

    @property
    def prevailing_wind(self) -> Tile:
        return WINDS[self.round_number - 1]

    @property
    def finished(self) -> bool:
        return self.round_number > self.rounds

    def ranking(self) -> list[tuple[int, int]]:
        """(player, points), best first; ties keep the first seating order."""
        order = _first_seating(self.seed)
        return sorted(((p, self.standings[p]) for p in order), key=lambda pp: -pp[1])

    # -- playing ----------------------------------------------------------------------
    def start_hand(self) -> HandState:
        """Deal the next hand (its wall comes from the match seed)."""
        if self.finished:
            raise IllegalAction("match_over", "the match is over")
        if self.hand is not None and not self.hand.ended:
            raise IllegalAction("hand_in_progress", "the current hand is not over")
        wall = Wall.from_seed(
            self._hand_seed(), self.dealer, match_id=self.match_id, number=self.number
        )
        self.hand = HandState(
            wall,
            prevailing_wind=self.prevailing_wind,
            round_number=self.round_number,
            hand_number=self.hand_number,
        )
        return self.hand

    def escape(self, player: int) -> list[EventBody]:
        """``player`` leaves on purpose: the hand ends, the player pays the house 80 and
        the seat plays on under another controller. Call ``finish_hand`` after it."""
        if self.hand is None or self.hand.ended:
            raise IllegalAction("no_hand", "no hand is in progress")
        self.escaped.add(player)
        return self.hand.escape(self.seat_of(player))

    def finish_hand(self) -> HandRecord:
        """Book the ended hand into the standings and move on (dealer, round, seats)."""
        hand = self.hand
        if hand is None or not hand.ended or hand.result is None:
            raise IllegalAction("hand_in_progress", "no ended hand to book")
        result = hand.result
        by_player = [0, 0, 0, 0]
        for seat, pts in enumerate(result.points):
            by_player[self.players[seat]] = pts
        for p in range(4):
            self.standings[p] += by_player[p]
        record = HandRecord(
            self.round_number,
            self.hand_number,
            hand.dealer,
            tuple(self.players),
            result.outcome.value,
            tuple(by_player),
            None if result.winner is None else self.players[result.winner],
            None if result.escaper is None else self.players[result.escaper],
        )
        self.history.append(record)
        self._logs.append(hand.to_dict()["log"])
        self.hand = None
        self.hand_number += 1
        if self.hand_number > HANDS_PER_ROUND:
            self.hand_number = 1
            if self.round_number < self.rounds:
                self.players = list(
                    seating_after(tuple(self.players), self.round_number, self.seat_changes)
                )
            self.round_number += 1
        return record

    @property
    def number(self) -> int:
        """The current (or next) hand's number in the match, 1-16."""
        return (self.round_number - 1) * HANDS_PER_ROUND + self.hand_number

    def _hand_seed(self) -> bytes:
        return hashlib.sha256(b"gbmj-hand\0" + self.seed + self.number.to_bytes(2, "big")).digest()

    # -- plain data -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Plain]:
        """Plain data: the seed, the rounds and every hand's action log; ``from_dict``
        replays them (hands are deterministic given the seed)."""
        logs = [*self._logs]
        if self.hand is not None:
            logs.append(self.hand.to_dict()["log"])
        return {
            "seed": self.seed.hex(),
            "rounds": self.rounds,
            "seat_changes": self.seat_changes.value,
            "hands": logs,
            "booked": len(self.history),
            "match_id": self.match_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> Match:
        scheme = SeatChanges.EVERY_ROUND  # matches recorded before the setting existed
        if "seat_changes" in data:
            scheme = SeatChanges(plain_str(data, "seat_changes"))
        match = cls(
            bytes.fromhex(plain_str(data, "seed")),
            plain_int(data, "rounds"),
            plain_int(data, "match_id") if "match_id" in data else 0,
            scheme,
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


def _first_seating(seed: bytes) -> list[int]:
    """A random seating from the seed (Fisher-Yates)."""
    stream = SeedStream(seed, b"gbmj-seating")
    players = [0, 1, 2, 3]
    for i in range(3, 0, -1):
        j = stream.below(i + 1)
        players[i], players[j] = players[j], players[i]
    return players
