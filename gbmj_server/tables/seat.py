"""Who plays at a table: participants and the seats they hold.

A *participant* is one player or bot who held a seat during a match: standings are kept
per participant (an escaper keeps what they lost, the bot that took the seat over has
its own line). A *seat* is one of the table's four places (the ``sit`` seat, 0-3; the
engine's ``Match`` calls them players and seats them anew at each match): its holder and
the holder's state at the table. Only the table's actor touches these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gbmj.bots import Bot, make_bot
from protocol import messages as m
from protocol.vocabulary import BotLevel, LeaveReason, Presence

if TYPE_CHECKING:
    from gbmj.game.hand_state import HandState
    from gbmj_server.net.connection import Connection

# The level of the bot that plays for a player on auto-play (托管) and that takes a seat
# whose player left: the best there is, so no hand is thrown away.
STAND_IN_LEVEL = BotLevel.HARD


@dataclass(eq=False)
class Participant:
    name: str
    account_id: int | None = None  # None: a bot
    guest: bool = False
    bot_level: BotLevel | None = None
    level: int | None = None  # a player's level, shown beside the name
    points: int = 0  # over the match, while holding a seat
    coins: int = 0
    left: LeaveReason | None = None  # why they left before the match ended
    slot: int = -1  # the seat they hold (or held) in the match
    record_id: int | None = None  # their number among the match's participants (``n``)

    @property
    def is_bot(self) -> bool:
        return self.account_id is None

    @property
    def wallet(self) -> int | None:
        """The account whose coins this participant moves; None: the house (bots, guests)."""
        return None if self.is_bot or self.guest else self.account_id

    def anew(self) -> Participant:
        """The same player or bot for a new match: every match starts from zero."""
        return Participant(self.name, self.account_id, self.guest, self.bot_level, self.level)


def bot_participant(slot: int, level: BotLevel) -> Participant:
    return Participant(f"bot-{slot + 1}", bot_level=level)


@dataclass(eq=False)
class Seat:
    holder: Participant
    conn: Connection | None = None  # a human's connection while connected
    ready: bool = False
    auto_play: bool = False  # 托管: by the player's choice or after timeouts in a row
    timeouts: int = 0  # the seat's timeouts in a row
    extension_armed: bool = False
    counting: HandState | None = None  # the hand a tile counter runs for
    counted: tuple[int, ...] | None = None  # the counts last sent
    brain: Bot | None = field(default=None, repr=False)  # a bot's, or a stand-in's

    @property
    def is_bot(self) -> bool:
        return self.holder.is_bot

    @property
    def connected(self) -> bool:
        return self.is_bot or (self.conn is not None and not self.conn.closed)

    @property
    def presence(self) -> Presence:
        if self.is_bot or self.auto_play:
            return Presence.AUTO_PLAY
        return Presence.ONLINE if self.connected else Presence.OFFLINE

    @property
    def automatic(self) -> bool:
        """The server decides for this seat at once (a bot, or a player on auto-play)."""
        return self.is_bot or self.auto_play

    def decider(self, seed: int) -> Bot:
        """The bot that decides for this seat (made on first use)."""
        if self.brain is None:
            self.brain = make_bot(self.holder.bot_level or STAND_IN_LEVEL, seed=seed)
        return self.brain

    def lobby_wire(self) -> m.LobbySeat:
        h = self.holder
        return m.LobbySeat(
            name=h.name,
            bot=h.is_bot,
            bot_level=h.bot_level,
            ready=self.ready or h.is_bot,
            level=h.level,
        )


EMPTY_SEAT = m.LobbySeat(bot=False, ready=False)
