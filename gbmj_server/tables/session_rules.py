"""What a tournament session sets for one of its tables (docs/rules.md §2.12).

The tournament runner (``gbmj_server.tournaments``) gives a session's table these; the
table and its match ask them at the few points where a tournament table differs: no new
hand once the session's hands are played or its time is called, no items that change
the game, spectators only with the organiser's leave and never a player of the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from gbmj_server.net.errors import RequestError
from protocol.errors import ErrorCode

DEAL_IN_PLAY = "the deals of this duplicate session are still being played at its tables"


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

    def time_called(self, hands_played: int) -> bool:
        """No new hand starts: the session's hands are played, or its time is up (the
        hand in play, if any, is played to its end first)."""
        return hands_played >= self.hands or trio.current_time() >= self.ends_at

    def check_spectator(self, account_id: int | None) -> None:
        if self.duplicate:  # its deals are still being played at the other tables
            raise RequestError(ErrorCode.DEAL_IN_PLAY, DEAL_IN_PLAY)
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
