"""A running match's state: the engine's match and hand, and who has played it.

Shared by the modules of the match (``play`` drives it, ``settle`` books each hand,
``items`` acts on it, ``resume`` rebuilds it from disk); only the table's actor uses it.
Seats here are the table's (0-3, ``slot``); the engine's hand seats follow the match's
seating (``match.seat_of(slot)``, ``match.player_at(seat)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gbmj.game.hand_state import HandState
from gbmj.game.match import Match
from gbmj_server.storage.matches import JournalEntry, PlayerJoined, PlayerLeft
from gbmj_server.tables.seat import Participant
from protocol.vocabulary import LeaveReason


@dataclass(eq=False)
class MatchState:
    match: Match
    participants: list[Participant] = field(default_factory=list)  # by n, in joining order
    match_id: int | None = None  # None: not written yet
    hand: HandState | None = None  # the hand in play, or the last one until the next begins
    number: int = 0  # the number of that hand in the match, 1-16
    hand_started: float = 0.0  # trio time
    times: list[int] = field(default_factory=list)  # ms from the hand's start, per action
    escapers: dict[int, Participant] = field(default_factory=dict)  # slot -> escaped this hand
    pending: list[JournalEntry] = field(default_factory=list)  # to write with the next step

    @property
    def in_hand(self) -> bool:
        return self.hand is not None and not self.hand.ended

    def join(self, slot: int, who: Participant) -> None:
        """``who`` takes seat ``slot`` from now on (written with the next step)."""
        who.slot = slot
        who.record_id = len(self.participants)
        self.participants.append(who)
        if self.match_id is not None:
            self.pending.append(self.joined(who))

    def joined(self, who: Participant) -> PlayerJoined:
        assert who.record_id is not None
        return PlayerJoined(
            self.match_id or 0,
            who.record_id,
            who.slot,
            who.account_id,
            who.name,
            who.guest,
            who.bot_level,
        )

    def leave(self, who: Participant, reason: LeaveReason) -> None:
        who.left = reason
        if self.match_id is not None and who.record_id is not None:
            self.pending.append(PlayerLeft(self.match_id, who.record_id, reason))

    def take_pending(self) -> list[JournalEntry]:
        entries, self.pending = self.pending, []
        return entries
