"""The game's closed lists, defined once (docs/vocabulary.md).

Every closed list the engine, the server and the client share is one ``StrEnum`` here:
the engine's actions, phases and timers, the protocol's item names and bot levels, the
server's notices. A member *is* its wire string (``ActionKind.PUNG == "pung"``), so a
decoded message carries members and the codec sends them as plain strings.

The error codes are the same kind of list; they live in ``protocol.errors`` beside
``ProtocolError`` and are re-exported here.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import ErrorCode

__all__ = [
    "TILE_ACTIONS",
    "ActionKind",
    "BotLevel",
    "Channel",
    "Cloth",
    "ErrorCode",
    "EventKind",
    "Item",
    "LeaveReason",
    "MatchEnd",
    "MeldKind",
    "NoticeCode",
    "Outcome",
    "Phase",
    "Presence",
    "SeatChanges",
    "TableStatus",
    "TimerClass",
    "TournamentAction",
    "TournamentState",
    "WhenBroke",
]


class ActionKind(StrEnum):
    """What a seat may choose."""

    DISCARD = "discard"
    WIN = "win"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    PUNG = "pung"
    EXPOSED_KONG = "exposed_kong"
    CHOW = "chow"
    PASS = "pass"


# The kinds that name a tile: the discard, the kong's tile, the lowest tile of a chow.
TILE_ACTIONS = frozenset(
    {ActionKind.DISCARD, ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.CHOW}
)


class MeldKind(StrEnum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"


class Phase(StrEnum):
    """Where a hand stands."""

    TURN = "turn"  # one seat holds 14 (+ kongs) and must discard or declare
    CLAIM = "claim"  # a discard (or an added kong's tile) is on offer
    ENDED = "ended"


class TimerClass(StrEnum):
    """Which clock times a decision (docs/rules.md §2.3)."""

    FIRST_DISCARD = "first_discard"
    TURN = "turn"
    CLAIM_WINDOW = "claim_window"


class Outcome(StrEnum):
    """How a hand ended."""

    WIN = "win"
    EXHAUSTIVE_DRAW = "exhaustive_draw"
    ESCAPE = "escape"


class EventKind(StrEnum):
    """What happened at a table during a hand."""

    HAND_START = "hand_start"
    DEAL = "deal"
    FLOWER = "flower"
    DRAW = "draw"
    DISCARD = "discard"
    CHOW = "chow"
    PUNG = "pung"
    EXPOSED_KONG = "exposed_kong"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    WIN = "win"
    EXHAUSTIVE_DRAW = "exhaustive_draw"
    ESCAPE = "escape"
    HAND_END = "hand_end"


class BotLevel(StrEnum):
    """How well a server bot plays."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class Item(StrEnum):
    """The prop items (docs/rules.md §2.6); a new item is one more member here and one
    entry in ``gbmj.economy.items``."""

    TIMER_EXTENSION = "timer_extension"
    TILE_COUNTER = "tile_counter"
    TABLE_SIGN = "table_sign"
    GOLD_SIGN = "gold_sign"
    GEM_SHARD = "gem_shard"  # 钻石碎片
    GEM = "gem"  # 标准钻石
    PERFECT_GEM = "perfect_gem"  # 完美钻石
    TABLECLOTH = "tablecloth"  # 桌布
    RECORDER = "recorder"  # 录像机


class TableStatus(StrEnum):
    WAITING = "waiting"  # seats filling, players getting ready
    PLAYING = "playing"  # a match runs


class WhenBroke(StrEnum):
    """A player stood up for want of coins: a bot takes the seat, or the match waits."""

    BOT = "bot"
    PAUSE = "pause"


class SeatChanges(StrEnum):
    """When the players change places between rounds (docs/rules.md §1.5)."""

    EVERY_ROUND = "every_round"  # before rounds 2, 3 and 4: everyone sits every place
    THIRD_ROUND = "third_round"  # before round 3 only: East <-> South, West <-> North


class Cloth(StrEnum):
    """A tablecloth's look of the board (docs/rules.md §2.6)."""

    GREEN = "green"  # felt
    RED = "red"
    BLUE = "blue"
    WOOD = "wood"


class MatchEnd(StrEnum):
    """How a match ended."""

    FINISHED = "finished"  # every hand was played
    ABANDONED = "abandoned"  # no human was left at the table, or none came back in time


class Channel(StrEnum):
    """Where a chat line goes."""

    LOBBY = "lobby"
    TABLE = "table"


class LeaveReason(StrEnum):
    """Why a client is no longer at a table."""

    LEFT = "left"
    KICKED = "kicked"
    NOT_ENOUGH_COINS = "not_enough_coins"
    TABLE_CLOSED = "table_closed"


class NoticeCode(StrEnum):
    """What the server tells a client unasked."""

    RESTARTING = "restarting"  # the server restarts: reconnect, the match goes on
    REPLACED = "replaced"  # the account signed in elsewhere
    BANNED = "banned"  # the host banned the account
    SIGNED_OUT = "signed_out"  # the host reset the password: sign in again
    ANNOUNCEMENT = "announcement"  # a message from the host to everyone
    MUTED = "muted"  # the host muted the account: its chat lines go nowhere


class Presence(StrEnum):
    """Who controls a seat during a match, as everyone at the table sees it."""

    ONLINE = "online"  # the player is connected and plays
    OFFLINE = "offline"  # disconnected: the turn timer runs, then the timeout action
    AUTO_PLAY = "auto_play"  # 托管: the server plays the seat


class TournamentState(StrEnum):
    """Where a club tournament stands (docs/rules.md §2.12)."""

    OPEN = "open"  # registration open
    CLOSED = "closed"  # registration closed, not started
    RUNNING = "running"  # its sessions are played
    FINISHED = "finished"  # its last session's results are in


class TournamentAction(StrEnum):
    """What a tournament's organiser does to it (docs/rules.md §2.12)."""

    OPEN = "open"  # open registration
    CLOSE = "close"  # close registration
    START = "start"  # seat the first session
    DROP = "drop"  # seat a player no more (their results stay)
