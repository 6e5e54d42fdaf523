"""The words for the protocol's closed lists: error codes, notices, why a player left a
table, items, bot levels, presence, timers, outcomes. Each is English (a gettext msgid)
and translated where it is shown (``tr(ERRORS[code], lang)``)."""

from __future__ import annotations

from gbmj_tui.i18n import N_, tr
from protocol.errors import ErrorCode
from protocol.vocabulary import (
    ActionKind,
    BotLevel,
    Item,
    LeaveReason,
    MatchEnd,
    NoticeCode,
    Presence,
    TimerClass,
)

E = ErrorCode
ERRORS: dict[ErrorCode, str] = {
    # The codec's codes mean this client and the server disagree: a bug, not the player.
    E.FRAME_TOO_LARGE: N_("the message was too large for the server"),
    E.BAD_MSGPACK: N_("the server could not read the message"),
    E.LIMIT_EXCEEDED: N_("the message was over a limit of the server"),
    E.NOT_A_MESSAGE: N_("the server could not read the message"),
    E.UNKNOWN_TYPE: N_("the server does not know this request (an older server?)"),
    E.MISSING_FIELD: N_("the request lacked a field"),
    E.EXTRA_FIELD: N_("the request had a field too many"),
    E.WRONG_TYPE: N_("the request had a field of the wrong type"),
    E.OUT_OF_RANGE: N_("the request had a value out of range"),
    E.UNSUPPORTED_VERSION: N_("the server speaks another version of the protocol"),
    E.NOT_EXPECTED: N_("that cannot be done now"),
    E.NOT_LOGGED_IN: N_("sign in first"),
    E.BAD_CREDENTIALS: N_("wrong name or password"),
    E.NAME_TAKEN: N_("that name is taken"),
    E.BAD_TOKEN: N_("the session has ended: sign in again"),
    E.RATE_LIMITED: N_("too many attempts: wait a little and try again"),
    E.NO_SUCH_TABLE: N_("that table is gone"),
    E.WRONG_PASSWORD: N_("wrong table password"),
    E.NOT_OWNER: N_("only the table's owner can do that"),
    E.SEAT_TAKEN: N_("that seat is taken"),
    E.SEAT_EMPTY: N_("nobody sits there"),
    E.NOT_SEATED: N_("take a seat first"),
    E.MATCH_RUNNING: N_("not once the match has started"),
    E.BOTS_NOT_ALLOWED: N_("this table allows no bots"),
    E.NOT_YOUR_TURN: N_("it is not your turn"),
    E.ILLEGAL_ACTION: N_("that move is not allowed now"),
    E.STALE: N_("too late: the table has moved on"),
    E.FALSE_WIN: N_("not a win: a complete hand of at least 8 fan is needed"),
    E.NOT_ENOUGH_COINS: N_("not enough coins"),
    E.NO_SUCH_ITEM: N_("you have no such item"),
    E.INVENTORY_FULL: N_("your inventory is full"),
    E.ALREADY_ARMED: N_("a timer extension is armed already"),
    E.GUEST_NOT_ALLOWED: N_("guests cannot do that: register an account"),
    E.NAME_PROTECTED: N_("the table's name is protected by a sign for now"),
    E.RATING_CAPPED: N_("your rating is at the server's gem cap: gems cannot be used"),
    E.SERVER_BUSY: N_("the server is full: try again later"),
    E.BAD_NAME: N_("that name is not allowed (look-alike, reserved or invisible characters)"),
    E.COINS_AT_STAKE: N_("not while you are seated at a stake table: your coins stay there"),
    E.KICKED: N_("the owner removed you from this table until its next match ends"),
    E.MUTED: N_("you are muted: your chat is not sent"),
    E.NO_SUCH_PLAYER: N_("no player has that name"),
    E.NO_SUCH_MATCH: N_("no such match or hand, or not one you may read"),
    E.NOT_ENDED: N_("it has not ended yet"),
    E.NO_SUCH_TOURNAMENT: N_("no such tournament"),
    E.TOURNAMENT_REFUSED: N_("not now in this tournament"),
    E.INTERNAL: N_("the server failed; nothing changed"),
    E.COACH_NOT_ALLOWED: N_("hints are for free tables only, never at a stake table"),
    E.DEAL_IN_PLAY: N_("this duplicate deal is still being played at another table"),
}
# Codes that say this client sent something the server could not take: the server's
# own words (plain text) go with them, for a bug report.
TECHNICAL = frozenset(
    {
        E.FRAME_TOO_LARGE,
        E.BAD_MSGPACK,
        E.LIMIT_EXCEEDED,
        E.NOT_A_MESSAGE,
        E.MISSING_FIELD,
        E.EXTRA_FIELD,
        E.WRONG_TYPE,
        E.OUT_OF_RANGE,
        E.INTERNAL,
        E.TOURNAMENT_REFUSED,  # which of its reasons: the server says
    }
)

NOTICES: dict[NoticeCode, str] = {
    NoticeCode.RESTARTING: N_("the server is restarting: back in a moment"),
    NoticeCode.REPLACED: N_("you signed in somewhere else: this client is signed out"),
    NoticeCode.BANNED: N_("the host banned this account"),
    NoticeCode.SIGNED_OUT: N_("the host reset your password: sign in again"),
    NoticeCode.ANNOUNCEMENT: N_("from the host"),
    NoticeCode.MUTED: N_("the host muted you: your chat is not sent"),
}
# Notices after which this client must not sign the session in again.
SESSION_ENDING = frozenset({NoticeCode.REPLACED, NoticeCode.BANNED, NoticeCode.SIGNED_OUT})

LEFT_REASONS: dict[LeaveReason, str] = {
    LeaveReason.LEFT: N_("you left the table"),
    LeaveReason.KICKED: N_("the owner removed you from the table"),
    LeaveReason.NOT_ENOUGH_COINS: N_("you were stood up: too few coins for this table"),
    LeaveReason.TABLE_CLOSED: N_("the table was closed"),
}
STANDING_LEFT: dict[LeaveReason, str] = {
    LeaveReason.LEFT: N_("escaped"),
    LeaveReason.KICKED: N_("removed"),
    LeaveReason.NOT_ENOUGH_COINS: N_("stood up"),
    LeaveReason.TABLE_CLOSED: N_("closed"),
}
MATCH_ENDS: dict[MatchEnd, str] = {
    MatchEnd.FINISHED: N_("Final standings"),
    MatchEnd.ABANDONED: N_("Match abandoned: no player left at the table"),
}

ITEM_NAMES: dict[Item, str] = {
    Item.TIMER_EXTENSION: N_("timer extension"),
    Item.TILE_COUNTER: N_("tile counter"),
    Item.TABLE_SIGN: N_("table sign"),
    Item.GOLD_SIGN: N_("gold sign"),
    Item.GEM_SHARD: N_("gem shard"),
    Item.GEM: N_("gem"),
    Item.PERFECT_GEM: N_("perfect gem"),
    Item.TABLECLOTH: N_("tablecloth"),
    Item.RECORDER: N_("recorder"),
}
ITEM_USES: dict[Item, str] = {
    Item.TIMER_EXTENSION: N_(
        "Arm it at a table (e): when your own discard turn runs out, your clock gets "
        "90 s more. Each use costs {cost} coins besides, shared by the other three seats."
    ),
    Item.TILE_COUNTER: N_(
        "Use it during a hand (t): for the rest of the hand a panel shows how many of "
        "each tile you have not seen yet."
    ),
    Item.TABLE_SIGN: N_(
        "Rename your table (owner, before the match: o); the new name is protected for an hour."
    ),
    Item.GOLD_SIGN: N_(
        "Rename your table (owner, before the match: o, then choose the gold sign); the new "
        "name is protected for 24 hours."
    ),
    Item.TABLECLOTH: N_(
        "Lay it on your table (owner, at the table: l): the board takes its look for "
        "everyone there, for as long as the table lasts."
    ),
    Item.RECORDER: N_(
        "Save a hand you played for good (r on its result, or on a hand in the history): it "
        "is listed under your saved hands and anyone with its id may replay it."
    ),
    Item.GEM_SHARD: N_(
        "Use it (u in the inventory): +1 rating point. Only dropped, to a match's winner."
    ),
    Item.GEM: N_(
        "Use it (u in the inventory): +10 rating points. Only dropped, to a match's winner."
    ),
    Item.PERFECT_GEM: N_(
        "Use it (u in the inventory): +100 rating points. Only dropped, to a match's winner."
    ),
}

BOT_LEVELS: dict[BotLevel, str] = {
    BotLevel.EASY: N_("easy"),
    BotLevel.NORMAL: N_("normal"),
    BotLevel.HARD: N_("hard"),
}
PRESENCE: dict[Presence, str] = {
    Presence.ONLINE: N_("online"),
    Presence.OFFLINE: N_("offline"),
    Presence.AUTO_PLAY: N_("auto-play"),
}
TIMERS: dict[TimerClass, str] = {
    TimerClass.FIRST_DISCARD: N_("first discard"),
    TimerClass.TURN: N_("turn"),
    TimerClass.CLAIM_WINDOW: N_("claim"),
}
ACTIONS: dict[ActionKind, str] = {
    ActionKind.DISCARD: N_("Discard"),
    ActionKind.WIN: N_("Win"),
    ActionKind.CONCEALED_KONG: N_("Concealed kong"),
    ActionKind.ADDED_KONG: N_("Add to kong"),
    ActionKind.PUNG: N_("Pung"),
    ActionKind.EXPOSED_KONG: N_("Kong"),
    ActionKind.CHOW: N_("Chow"),
    ActionKind.PASS: N_("Pass"),
}


def error_text(code: str, lang: str, detail: str = "") -> str:
    """What an error code means for the player; a technical one with the server's words."""
    try:
        known = ErrorCode(code)
    except ValueError:  # a code newer than this client
        return f"{code}: {detail}" if detail else code
    text = tr(ERRORS[known], lang)
    return f"{text} ({detail})" if detail and known in TECHNICAL else text


def item_name(item: str, lang: str) -> str:
    """An item's name (``timer_extension``: 延时卡); an unknown item by its wire name."""
    try:
        return tr(ITEM_NAMES[Item(item)], lang)
    except ValueError:
        return item


# The table's four places, East first (docs/rules.md §1.5): a tournament seat's place.
PLACES = (N_("East"), N_("South"), N_("West"), N_("North"))
