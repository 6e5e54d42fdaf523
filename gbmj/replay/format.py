"""The replay file (docs/replay-format.md): one JSON document holding a match, or one
hand of it, with everything needed to replay and check it away from any server.

The file's records are declared with the protocol's field specs (``protocol.schema``), so
reading a file checks every field the way a message is checked and names the field
that is wrong (``file.hands[0].wall.salt: expected 2..128 lowercase hex digits``).
Tiles are tile codes, as on the wire and in the wall commitment (docs/rules.md §1.1).

The format is versioned: ``version`` counts its changes, and a reader refuses a version
it does not know and any field it does not know, so a file is never half understood.

A file is read in bounded memory whatever it holds: at most ``MAX_FILE_BYTES`` (the
caller reads no more), nested at most ``MAX_DEPTH`` deep (checked before parsing), then
every field checked against its spec.
"""

from __future__ import annotations

import json
import re
from typing import Any

from protocol.errors import ProtocolError
from protocol.messages import (
    CERTIFICATE,
    COIN_DELTA,
    DICE,
    FAN_COUNT,
    FAN_TOTAL,
    ID,
    NAME,
    PLAYING_TILE,
    POINTS,
    POINTS_PER_SEAT,
    SEAT,
    SIGNATURE,
    STAKES,
    TABLE_NAME,
    WALL_ORDER,
    WIND,
    LoggedAction,
)
from protocol.schema import (
    Bool,
    Choice,
    Hex,
    Int,
    ListOf,
    Optional,
    Record,
    Str,
    Struct,
    When,
    field,
    record,
)
from protocol.tiles import Tile
from protocol.vocabulary import LeaveReason, MatchEnd, Outcome

FORMAT = "gbmj-replay"
VERSION = 2
# A whole match of 16 hands of 600 actions each is well under 1 MiB as written.
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 12  # the format nests 6 deep (file, hands, hand, wall, dice, roll)
UNIX_TIME = Int(0, 2**40)


class ReplayFormatError(ValueError):
    """The text is not a replay file this version of gbmj reads; the message says why."""


@record
class ReplayWall(Record):
    """The hand's wall as revealed at its end (docs/rules.md §1.1)."""

    order: tuple[Tile, ...] = field(
        WALL_ORDER,
        "wall order: stack 0 top, bottom…; personal walls: 136, seat 0's wall first",
    )
    dice: tuple[tuple[int, int], ...] = field(DICE, "the dealer's roll, the second roller's")
    salt: str = field(Hex(2, 128))
    commitment: str = field(Hex(64, 64), "announced before the deal: SHA-256(order ‖ salt)")


@record
class ReplaySeat(Record):
    seat: int = field(SEAT)
    player: str = field(NAME)
    wind: Tile = field(WIND, "the seat wind this hand")


@record
class ReplayResult(Record):
    """How the hand ended and what it paid, as the server recorded it."""

    _RULES = (
        When("outcome", ("win",), require=("winner", "win_tile")),
        When("outcome", ("exhaustive_draw", "escape"), forbid=("winner", "from_seat", "win_tile")),
        When("outcome", ("escape",), require=("escaper",)),
        When("outcome", ("win", "exhaustive_draw"), forbid=("escaper",)),
    )
    outcome: Outcome = field(Choice(Outcome))
    winner: int | None = field(Optional(SEAT), default=None)
    from_seat: int | None = field(
        Optional(SEAT), "the discarder (or robbed seat); self-drawn: absent", default=None
    )
    win_tile: Tile | None = field(Optional(PLAYING_TILE), default=None)
    escaper: int | None = field(Optional(SEAT), "the seat that left, ending the hand", default=None)
    fans: tuple[tuple[int, int], ...] = field(ListOf(FAN_COUNT, 82), "[fan id, count]")
    total: int = field(FAN_TOTAL, "every fan, flowers included")
    points: tuple[int, ...] = field(POINTS_PER_SEAT, "by seat; negative: paid")
    coins: tuple[int, ...] | None = field(
        Optional(ListOf(COIN_DELTA, 4, 4)), "by seat, at a stake table", default=None
    )


@record
class ReplayHand(Record):
    hand_id: int = field(ID)
    number: int = field(Int(1, 16), "1-based in the match")
    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4))
    dealer: int = field(SEAT)
    prevailing_wind: Tile = field(WIND)
    seats: tuple[ReplaySeat, ...] = field(ListOf(Struct(ReplaySeat), 4, 4), "seats 0-3")
    wall: ReplayWall = field(Struct(ReplayWall))
    actions: tuple[LoggedAction, ...] = field(ListOf(Struct(LoggedAction), 600))
    result: ReplayResult = field(Struct(ReplayResult))
    signature: str | None = field(
        Optional(SIGNATURE), "the server's signature of the hand's record", default=None
    )


@record
class ReplayStanding(Record):
    """One participant's result over the match."""

    name: str = field(NAME)
    bot: bool = field(Bool())
    seat: int | None = field(
        Optional(SEAT), "the seat held at the end; absent if they left", default=None
    )
    rank: int = field(Int(1, 8))
    points: int = field(POINTS)
    coins: int = field(COIN_DELTA)
    left: LeaveReason | None = field(Optional(Choice(LeaveReason)), default=None)


@record
class ReplayMatch(Record):
    match_id: int = field(ID)
    table_name: str = field(TABLE_NAME)
    started_at: int = field(UNIX_TIME, "Unix time, seconds")
    ended_at: int | None = field(Optional(UNIX_TIME), default=None)
    reason: MatchEnd | None = field(Optional(Choice(MatchEnd)), default=None)
    public: bool = field(Bool())
    stake: int = field(Choice(STAKES), "coins per point; 0: a free table")
    players: tuple[str, ...] = field(ListOf(NAME, 8, 1), "everyone who held a seat")
    hands_played: int = field(Int(0, 16))
    standings: tuple[ReplayStanding, ...] | None = field(
        Optional(ListOf(Struct(ReplayStanding), 8, 1)), "once the match has ended", default=None
    )
    signature: str | None = field(
        Optional(SIGNATURE), "the server's signature of the match's record", default=None
    )


@record
class Replay(Record):
    """A replay file: a match and the hands of it that the file holds."""

    format: str = field(Choice((FORMAT,)))
    version: int = field(Int(VERSION, VERSION))
    server: str = field(Str(200), "the server that kept the match")
    exporter: str = field(Str(64), "the program that wrote the file")
    exported_at: int | None = field(Optional(UNIX_TIME), default=None)
    match: ReplayMatch = field(Struct(ReplayMatch))
    hands: tuple[ReplayHand, ...] = field(ListOf(Struct(ReplayHand), 16, 1), "by number")
    certificate: str | None = field(
        Optional(CERTIFICATE), "base64 DER: the certificate whose key signed", default=None
    )


def dumps(replay: Replay) -> str:
    """The file's text (checked field by field, like a message before it is sent)."""
    try:
        wire = replay.to_wire("file")
    except ProtocolError as exc:
        raise ReplayFormatError(str(exc)) from None
    return json.dumps(wire, ensure_ascii=False, indent=1) + "\n"


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _depth(data: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (strings left out)."""
    deepest = depth = 0
    for b in _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS):
        depth += 1 if b in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads(text: str | bytes) -> Replay:
    """The replay a file's text holds; ``ReplayFormatError`` says what is wrong, in one
    line. The text's size and nesting are checked before it is parsed."""
    data_bytes = text.encode("utf-8", "replace") if isinstance(text, str) else text
    if len(data_bytes) > MAX_FILE_BYTES:
        raise ReplayFormatError(
            f"too large for a replay file (over {MAX_FILE_BYTES // (1024 * 1024)} MiB)"
        )
    if _depth(data_bytes) > MAX_DEPTH:
        raise ReplayFormatError(f"not a replay file: its JSON nests deeper than {MAX_DEPTH} levels")
    try:
        data: Any = json.loads(data_bytes)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReplayFormatError(f"not a JSON document: {reason}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayFormatError(f'not a gbmj replay file (no "format": "{FORMAT}")')
    version = data.get("version")
    if type(version) is not int:
        raise ReplayFormatError("the file does not say its format version")
    if version > VERSION:
        raise ReplayFormatError(
            f"the file is of format version {version}, newer than this gbmj reads "
            f"({VERSION}): update gbmj"
        )
    if version < VERSION:
        raise ReplayFormatError(
            f"the file is of format version {version}, which carries no server signature "
            "and no bound commitments: export it again"
        )
    try:
        return Replay.from_wire(data, "file")
    except ProtocolError as exc:
        raise ReplayFormatError(str(exc)) from None
