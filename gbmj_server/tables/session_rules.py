"""What a tournament session sets for one of its tables (docs/rules.md §2.12).

The tournament runner (``gbmj_server.tournaments``) gives a session's table these; the
table and its match ask them at the few points where a tournament table differs: no new
hand once the session's hands are played or its time is called, no items that change
the game, spectators only with the organiser's leave and never a player of the session;
at a duplicate session's table, what stays sealed while a deal is still to be played at
another table (docs/rules.md §2.14).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from gbmj.tournament.duplicate import DealsInPlay
from gbmj_server.net.errors import RequestError
from protocol.errors import ErrorCode

DEAL_IN_PLAY = "this duplicate deal is still to be played at another table of its session"
WATCH_LATER = (
    "this duplicate table may be watched once the session's other tables have ended: "
    "until then it may play a deal still to be played at another table"
)


@dataclass(eq=False)
class SessionRules:
    tournament_id: int
    session: int
    table_number: int
    hands: int  # the session's hands at most
    ends_at: float  # trio time at which time is called
    spectators: bool  # the organiser lets others watch
    playing: frozenset[int] = frozenset()  # accounts seated in this session, any table
    organiser_id: int | None = None  # a player organising it (None: the host)
    on_over: Callable[[], None] = field(default=lambda: None)  # the match has ended
    duplicate: bool = False  # the session's tables play the same deals (§2.14)
    # A duplicate session's deals as all its tables play them (shared by its tables).
    deals: DealsInPlay | None = None

    def match_over(self) -> None:
        if self.deals is not None:
            self.deals.end(self.table_number - 1)
        self.on_over()

    def deal_played(self, number: int) -> None:
        """This table has played its deal ``number`` (1-based)."""
        if self.deals is not None:
            self.deals.play(self.table_number - 1, number)

    def deal_open(self, number: int) -> bool:
        """Whether deal ``number``'s tiles may be shown: no table will play it any more."""
        return not self.duplicate or (self.deals is not None and self.deals.open(number))

    def time_called(self, hands_played: int) -> bool:
        """No new hand starts: the session's hands are played, or its time is up (the
        hand in play, if any, is played to its end first)."""
        return hands_played >= self.hands or trio.current_time() >= self.ends_at

    def check_spectator(self, account_id: int | None) -> None:
        if self.duplicate and (
            self.deals is None or not self.deals.watchable(self.table_number - 1)
        ):
            raise RequestError(ErrorCode.DEAL_IN_PLAY, WATCH_LATER)
        if account_id is not None and account_id in self.playing:
            raise RequestError(
                ErrorCode.NOT_EXPECTED, "you play in this session: you may not watch its tables"
            )
        if not self.spectators and (account_id is None or account_id != self.organiser_id):
            raise RequestError(
                ErrorCode.NOT_EXPECTED, "the organiser allows no spectators at this tournament"
            )

    @staticmethod
    def no_items() -> RequestError:
        return RequestError(ErrorCode.NOT_EXPECTED, "no items at a tournament table")
