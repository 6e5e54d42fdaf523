"""The protocol's one error type and the error codes that travel in ``error`` messages.

The decoder and the encoder raise nothing but ``ProtocolError``. Its ``code`` is an
``ErrorCode`` (a short machine word, sent as-is in the ``error`` message) and its message
says in words what was wrong, naming the field (``snapshot.game.seats[2].melds[0].tile``).

The codes are one closed list shared by both sides: the first group is raised by this
package (bad frames and bad messages), the second is for the server's replies to
requests that are well formed but cannot be done.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # -- raised by the codec: the frame or the message is malformed -------------------
    FRAME_TOO_LARGE = "frame_too_large"  # length prefix over the frame limit
    BAD_MSGPACK = "bad_msgpack"  # the body is not exactly one valid msgpack value
    LIMIT_EXCEEDED = "limit_exceeded"  # a string, list, map or nesting limit
    NOT_A_MESSAGE = "not_a_message"  # the body is not a map with a string "type"
    UNKNOWN_TYPE = "unknown_type"  # no message has this "type"
    MISSING_FIELD = "missing_field"
    EXTRA_FIELD = "extra_field"
    WRONG_TYPE = "wrong_type"  # e.g. a string where an integer belongs
    OUT_OF_RANGE = "out_of_range"  # e.g. tile 45, seat 7, an unknown action kind
    # -- sent by the server: the request is well formed but refused -------------------
    UNSUPPORTED_VERSION = "unsupported_version"  # hello with a version we do not speak
    NOT_EXPECTED = "not_expected"  # message out of order (e.g. before hello/login)
    NOT_LOGGED_IN = "not_logged_in"
    BAD_CREDENTIALS = "bad_credentials"
    NAME_TAKEN = "name_taken"
    BAD_TOKEN = "bad_token"  # resume with an unknown or expired session token
    RATE_LIMITED = "rate_limited"
    NO_SUCH_TABLE = "no_such_table"
    WRONG_PASSWORD = "wrong_password"  # table password
    NOT_OWNER = "not_owner"  # an owner-only table operation
    SEAT_TAKEN = "seat_taken"
    SEAT_EMPTY = "seat_empty"
    NOT_SEATED = "not_seated"
    MATCH_RUNNING = "match_running"  # e.g. configure or kick once the match started
    BOTS_NOT_ALLOWED = "bots_not_allowed"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"  # not among the prompt's legal actions
    STALE = "stale"  # an action for a prompt that is no longer open (old seq)
    FALSE_WIN = "false_win"  # a declared win that is not a win of 8 fan
    NOT_ENOUGH_COINS = "not_enough_coins"
    NO_SUCH_ITEM = "no_such_item"
    INVENTORY_FULL = "inventory_full"
    ALREADY_ARMED = "already_armed"  # a timer extension is armed already
    GUEST_NOT_ALLOWED = "guest_not_allowed"  # guests play only free tables
    NAME_PROTECTED = "name_protected"  # a table sign protects the table's name
    RATING_CAPPED = "rating_capped"  # a gem cannot be used at the server's gem cap or above
    SERVER_BUSY = "server_busy"  # the server or this address is at its connection limit
    BAD_NAME = "bad_name"  # a name the server refuses (look-alike, reserved, invisible)
    COINS_AT_STAKE = "coins_at_stake"  # seated at a stake table: coins cannot leave (no shop)
    KICKED = "kicked"  # the owner kicked this player: no seat here until the next match ends
    MUTED = "muted"  # the host muted this account (or the table's owner, at that table)
    NO_SUCH_PLAYER = "no_such_player"
    NO_SUCH_MATCH = "no_such_match"  # no match or hand by that id, or not one you may read
    NOT_ENDED = "not_ended"  # the hand or match has not ended yet
    NO_SUCH_TOURNAMENT = "no_such_tournament"
    TOURNAMENT_REFUSED = "tournament_refused"  # registration closed, entered already...
    INTERNAL = "internal"  # a bug on the server; the request had no effect
    COACH_NOT_ALLOWED = "coach_not_allowed"  # hints at a stake table
    DEAL_IN_PLAY = "deal_in_play"  # a duplicate deal not yet played at every table


class ProtocolError(Exception):
    """A frame or message that breaks the protocol; the only exception the codec raises.

    ``field`` is the dotted path of the offending field when there is one (``""`` for the
    frame itself). ``str(error)`` is the readable message, suitable for an ``error`` reply.
    """

    def __init__(
        self, code: ErrorCode, message: str, field: str = "", request_id: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        # The ``id`` of the refused request when the frame was a map with a valid one,
        # so that the ``error`` reply can echo it.
        self.request_id = request_id

    @property
    def message(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {str(self)!r})"


# What each code means, for the protocol reference and for clients that show it.
DESCRIPTIONS: dict[ErrorCode, str] = {
    ErrorCode.FRAME_TOO_LARGE: "the length prefix is over the frame limit (the body is skipped)",
    ErrorCode.BAD_MSGPACK: "the body is not exactly one valid msgpack value of allowed types",
    ErrorCode.LIMIT_EXCEEDED: "a string, list, map or nesting limit was exceeded",
    ErrorCode.NOT_A_MESSAGE: "the body is not a map with a `type`",
    ErrorCode.UNKNOWN_TYPE: "no message has this `type`",
    ErrorCode.MISSING_FIELD: "a required field is absent (or a field another one requires)",
    ErrorCode.EXTRA_FIELD: "a field the message does not have (or one another field forbids)",
    ErrorCode.WRONG_TYPE: "a field has the wrong wire type, e.g. a string for an integer",
    ErrorCode.OUT_OF_RANGE: "a value out of range: tile 45, seat 7, an unknown action kind",
    ErrorCode.UNSUPPORTED_VERSION: "`hello` with a protocol version the server does not speak",
    ErrorCode.NOT_EXPECTED: "a message out of order (before `hello`, or needing a table)",
    ErrorCode.NOT_LOGGED_IN: "the request needs a session (`register`, `login`, `guest`)",
    ErrorCode.BAD_CREDENTIALS: "wrong name or password",
    ErrorCode.NAME_TAKEN: "an account of that name exists",
    ErrorCode.BAD_TOKEN: "`resume` with an unknown or expired session token",
    ErrorCode.RATE_LIMITED: "too many attempts or errors; wait",
    ErrorCode.NO_SUCH_TABLE: "no table has this id",
    ErrorCode.WRONG_PASSWORD: "the table's password does not match",
    ErrorCode.NOT_OWNER: "only the table's owner may do this",
    ErrorCode.SEAT_TAKEN: "the seat is not empty",
    ErrorCode.SEAT_EMPTY: "nobody (or no bot) sits there",
    ErrorCode.NOT_SEATED: "the request needs a seat at the table",
    ErrorCode.MATCH_RUNNING: "not allowed once the match has started",
    ErrorCode.BOTS_NOT_ALLOWED: "the table's settings allow no bots",
    ErrorCode.NOT_YOUR_TURN: "no prompt is open for this player",
    ErrorCode.ILLEGAL_ACTION: "the action is not among the prompt's legal actions",
    ErrorCode.STALE: "the action answers an older prompt (its `seq` is not the open one)",
    ErrorCode.FALSE_WIN: "a declared win that is not a complete hand of 8 fan; nothing changed",
    ErrorCode.NOT_ENOUGH_COINS: "the account has too few coins",
    ErrorCode.NO_SUCH_ITEM: "the inventory has no such item",
    ErrorCode.INVENTORY_FULL: "no free slot for the item",
    ErrorCode.ALREADY_ARMED: "a timer extension is already armed for this match",
    ErrorCode.GUEST_NOT_ALLOWED: "guests hold no coins and play only free tables",
    ErrorCode.NAME_PROTECTED: "the table's name is still protected: renamed with a table sign "
    "less than an hour ago, or with a gold sign less than 24 hours ago",
    ErrorCode.RATING_CAPPED: "gems cannot be used at the server's gem cap or above (the "
    "cap is in ``inventory``)",
    ErrorCode.SERVER_BUSY: "the server, or this address, has as many connections as allowed",
    ErrorCode.BAD_NAME: "a name the server refuses: a look-alike of a taken name, a reserved "
    "prefix, invisible or mixed-script characters",
    ErrorCode.COINS_AT_STAKE: "seated at a stake table, before its match or during it, coins "
    "cannot leave the account (the stake stays covered, what you may owe stays payable)",
    ErrorCode.KICKED: "the table's owner kicked you: no seat there until its next match ends",
    ErrorCode.MUTED: "the host (or, at a table, its owner) muted this account: its chat "
    "lines are not sent",
    ErrorCode.NO_SUCH_PLAYER: "no account has this name",
    ErrorCode.NO_SUCH_MATCH: "no match or hand has this id, or it is not one you may read",
    ErrorCode.NOT_ENDED: "the hand or match has not ended yet",
    ErrorCode.NO_SUCH_TOURNAMENT: "no tournament has this id",
    ErrorCode.TOURNAMENT_REFUSED: "not now in this tournament: registration closed, entered "
    "already, not entered, a guest",
    ErrorCode.INTERNAL: "a fault on the server; the request had no effect",
    ErrorCode.COACH_NOT_ALLOWED: "the coach (hints) is for free tables only, never at a stake "
    "table",
    ErrorCode.DEAL_IN_PLAY: "a duplicate session's deal is still being played at another table: "
    "its hands, replays and spectators wait until every table has played it",
}
