"""The message catalog: every message of the gbmj protocol as a typed, checked value.

Each message is a frozen dataclass made with ``@message(type, sender)``; its fields are
declared once with their wire spec (``protocol.schema``), which both decoding and
encoding check. ``MESSAGE_TYPES`` maps each ``type`` string to its class;
``Message.from_wire`` / ``to_wire`` turn a decoded msgpack map into a message and back.

Game messages carry the vocabulary of ``docs/vocabulary.md``: action kinds, event kinds
and their fields, timer classes. A tile a viewer may not see is absent and a count is sent
instead. Seats are absolute (0-3) except a meld's ``claimed_from``, which is relative to
its owner (1 left, 2 opposite, 3 right, 0 nobody).

Requests may carry an ``id`` (any 32-bit unsigned integer the client chooses); the reply
to a request (its answer, ``ok`` or ``error``) carries the same ``id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from .errors import ErrorCode, ProtocolError
from .schema import (
    Base64,
    Bool,
    Choice,
    FanId,
    Hex,
    Int,
    ListOf,
    ListOfLengths,
    Optional,
    Record,
    Str,
    Struct,
    Tagged,
    TileCode,
    Tuple,
    When,
    _kind,
    convert,
    field,
    record,
    tagged,
)
from .tiles import Tile
from .vocabulary import (
    TILE_ACTIONS,
    ActionKind,
    BotLevel,
    Channel,
    Cloth,
    Item,
    LeaveReason,
    MatchEnd,
    MeldKind,
    NoticeCode,
    Outcome,
    Phase,
    Presence,
    SeatChanges,
    TableStatus,
    TimerClass,
    TournamentAction,
    TournamentState,
    WhenBroke,
)

PROTOCOL_VERSION = 1

# -- the product's closed lists (protocol.vocabulary) ---------------------------------------
# Coins per point: 0 (free) and the 1-2-5 series (docs/rules.md §2.2).
STAKES = (0, *(m * 10**e for e in range(5) for m in (1, 2, 5)))
MAX_LEVEL = 37
INVENTORY_SLOTS = 30  # by default; the host may set 1 to MAX_INVENTORY_SLOTS
MAX_INVENTORY_SLOTS = 120
TABLE_PAGE = 50  # tables per table_list: 50 of the largest valid TableInfo fit in a frame
STACK_LIMIT = 99
MAX_PARTICIPANTS = 16  # players and bots who held a seat in one match, at most
MATCH_PAGE = 25  # matches in one match_list: 25 of the largest fit in a frame

# -- field specs used throughout --------------------------------------------------------
REQUEST_ID_MAX = 2**32 - 1
REQUEST_ID = Int(0, REQUEST_ID_MAX)
SEAT = Int(0, 3)
RELATIVE_SEAT = Int(0, 3)
TILE = TileCode()
# A wall's order: 144 tiles, or the 136 of four personal walls (docs/rules.md §1.6).
WALL_ORDER = ListOfLengths(TILE, 144, 136, (144, 136))
PLAYING_TILE = TileCode(0, 33, "playing tile")
FLOWER = TileCode(34, 41, "flower")
WIND = TileCode(27, 30, "wind")
TABLE_ID = Int(1, 2**31 - 1)
TOURNAMENT_ID = Int(1, 2**31 - 1)
ID = Int(1, 2**53)  # a match or a hand in the history
SEQ = Int(0, 2**53)
MS_LEFT = Int(0, 24 * 3600 * 1000)
COINS = Int(0, 10**15)
COIN_DELTA = Int(-(10**15), 10**15)
POINTS = Int(-(10**9), 10**9)
FAN_TOTAL = Int(0, 1000)
RATING = Int(0, 10**12)
LEVEL = Int(1, MAX_LEVEL)
NAME = Str(24)  # a player's name
TABLE_NAME = Str(40)
PASSWORD = Str(128)  # an account password
TABLE_PASSWORD = Str(64)
TOKEN = Str(128, min_len=16)
TICKET = Str(256, min_len=16)  # a redirect's ticket to another node
NODE_ADDRESS = Str(261)  # HOST:PORT
TLS_FINGERPRINT = Str(110)  # "SHA256:" and 32 bytes in colon hex (protocol.tls.fingerprint)
SOFTWARE = Str(64)  # "<name>/<version>" in hello and welcome
MAX_CHAT = 200  # characters of a chat line
CHAT_TEXT = Str(MAX_CHAT)
ITEM = Choice(Item)
POINTS_PER_SEAT = ListOf(POINTS, 4, 4)
FAN_COUNT = Tuple((FanId(), Int(1, 8)))  # [fan id, times scored], e.g. two 幺九刻
DICE = ListOf(Tuple((Int(1, 6), Int(1, 6))), 2, 2)  # two rolls of two dice (docs/rules.md §1.1)
CONCEALED = ListOf(PLAYING_TILE, 14)
ACTION_RULES = (
    When("kind", tuple(k for k in ActionKind if k in TILE_ACTIONS), require=("tile",)),
    When("kind", tuple(k for k in ActionKind if k not in TILE_ACTIONS), forbid=("tile",)),
)


# -- messages ---------------------------------------------------------------------------
@record
class Message(Record):
    """Base of every message: a ``type`` (the class's ``TAG``) and an optional ``id``."""

    _TAG_KEY: ClassVar[str | None] = "type"
    _REGISTRY: ClassVar[dict[str, type[Record]]] = {}
    SENDER: ClassVar[str] = ""  # "client", "server" or "both"
    REPLY: ClassVar[str] = ""  # for a request: what answers it

    id: int | None = field(Optional(REQUEST_ID), "request id; a reply echoes it", default=None)

    @property
    def type(self) -> str:
        tag = self.TAG
        assert tag is not None, "a concrete message has a tag"
        return tag

    @classmethod
    def from_wire(cls, data: Any, path: str | None = None) -> Message:
        """The message a decoded msgpack map stands for; ``ProtocolError`` otherwise.

        ``Message.from_wire`` accepts any type; ``Hello.from_wire`` only a ``hello``.
        """
        if not isinstance(data, dict) or "type" not in data:
            raise ProtocolError(ErrorCode.NOT_A_MESSAGE, "a message is a map with a 'type'")
        kind = data["type"]
        if not isinstance(kind, str):
            raise ProtocolError(
                ErrorCode.WRONG_TYPE, f"type: expected a string, got {type(kind).__name__}", "type"
            )
        target = MESSAGE_TYPES.get(kind)
        if target is None or (cls is not Message and target is not cls):
            shown = kind if len(kind) <= 40 else kind[:40] + "…"
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {shown!r}", "type")
        # Record.from_wire bound to the concrete class (zero-argument super() does not work
        # in slotted dataclasses).
        return super(Message, target).from_wire(data, path or kind)


# Message's registry holds only messages (the registry attribute is typed for any base).
MESSAGE_TYPES: dict[str, type[Message]] = Message._REGISTRY  # type: ignore[assignment]

M = TypeVar("M", bound=Message)


def message(type_: str, sender: str, reply: str = "") -> Callable[[type[M]], type[M]]:
    """Declare a message class: its wire ``type``, who sends it, and what answers it."""

    def wrap(cls: type[M]) -> type[M]:
        made = tagged(type_)(cls)
        made.SENDER = sender
        made.REPLY = reply
        return made

    return wrap


# -- shared records ---------------------------------------------------------------------
@record
class ActionChoice(Record):
    """One action a seat may choose: a kind and, for some kinds, a tile."""

    # The one value of an action: the engine's legal actions and log, a prompt's
    # choices and the client's keys are all this record.

    _RULES = ACTION_RULES
    kind: ActionKind = field(Choice(ActionKind), "action kind (docs/vocabulary.md)")
    tile: Tile | None = field(
        Optional(PLAYING_TILE), "for discard, concealed_kong, added_kong, chow", default=None
    )

    def __str__(self) -> str:
        return self.kind.value if self.tile is None else f"{self.kind.value} {self.tile}"


@record
class MeldView(Record):
    """A declared meld (``gbmj.rules.hand.Meld``).

    In a seat's ``melds`` list, another player's concealed kong is nil: face down.
    """

    _RULES = (When("concealed", (True,), forbid=("claimed_tile",)),)
    kind: MeldKind = field(Choice(MeldKind))
    tile: int = field(PLAYING_TILE, "the lowest tile of a chow; the tile of a pung or kong")
    concealed: bool = field(Bool(), "a concealed kong")
    claimed_from: int = field(
        RELATIVE_SEAT, "relative to the owner: 1 left, 2 opposite, 3 right, 0 nobody"
    )
    claimed_tile: int | None = field(
        Optional(PLAYING_TILE), "the tile taken from a discard", default=None
    )
    added: bool = field(Bool(), "a kong made by adding to a pung")


SEAT_MELDS = ListOf(Optional(Struct(MeldView)), 4)  # nil: a face-down concealed kong
# A hand's end at a duplicate table while its deal is still played at another table
# (docs/rules.md §2.14): sealed, it shows only what play showed.
SEALED_CONCEALED = "of seats 0-3; sealed: empty but the viewer's own and the winner's"
SEALED_MELDS = "of seats 0-3; sealed: nil for another seat's concealed kong"
SEALED_WALL = (
    "144; personal walls (docs/rules.md §1.6): 136; absent when sealed (it opens in the "
    "history once every table has played the deal)"
)


@record
class Profile(Record):
    """A player's account as the player sees it."""

    name: str = field(NAME)
    guest: bool = field(Bool(), "a guest keeps no coins")
    coins: int = field(COINS)
    rating: int = field(RATING, "level points (docs/rules.md §2.7)")
    level: int = field(LEVEL)


@record
class TimerSettings(Record):
    """A table's timers in seconds (docs/rules.md §2.3); ``on`` false: no timers at all."""

    on: bool = field(Bool())
    first_discard: int = field(Int(5, 600), "the dealer's first discard")
    turn: int = field(Int(3, 600), "every later turn")
    claim_window: int = field(Int(1, 120), "claiming a discard")
    reserve: int | None = field(
        Optional(Int(0, 3600)),
        "each player's time bank for the match: a decision that outlasts its own clock "
        "draws on it, and what it used is gone (absent: no reserve)",
        default=None,
    )
    pung_window: int | None = field(
        Optional(Int(1, 120)),
        "claiming a discard for a seat whose only claims are a pung or an exposed kong "
        "(docs/rules.md §2.3); absent: the claim window",
        default=None,
    )


@record
class TableSettings(Record):
    """What a table's owner chooses (docs/rules.md §2.2); the password travels beside it."""

    name: str = field(TABLE_NAME)
    stake: int = field(Choice(STAKES), "coins per point; 0 = free")
    timers: TimerSettings = field(Struct(TimerSettings))
    rounds: int = field(Int(1, 4))
    bots_allowed: bool = field(Bool())
    when_broke: WhenBroke | None = field(
        Optional(Choice(WhenBroke)),
        "a player below 100 × stake when a hand is dealt is stood up: a bot takes the seat (bot, "
        "the default) or the match waits for a new player (pause)",
        default=None,
    )
    auto_play_after: int | None = field(
        Optional(Int(1, 10)),
        "timeouts in a row after which a seat goes to auto-play by itself (default 2)",
        default=None,
    )
    offline_grace: int | None = field(
        Optional(Int(5, 600)),
        "timers off: seconds a disconnected player's decision waits before the timeout "
        "action (default 30)",
        default=None,
    )
    public_history: bool | None = field(
        Optional(Bool()),
        "a finished match is readable by anyone by its id (default: on for free tables, "
        "off for stake tables)",
        default=None,
    )
    coach: bool | None = field(
        Optional(Bool()),
        "the coach: each player's client may show hints from that player's own view "
        "(default: on at free tables; a stake table refuses it, coach_not_allowed)",
        default=None,
    )
    result_pause: int | None = field(
        Optional(Int(0, 600)),
        "seconds the next hand waits for the players still reading the last hand's "
        "result (default: the host's ``hand_pause``)",
        default=None,
    )
    seat_changes: SeatChanges | None = field(
        Optional(Choice(SeatChanges)),
        "when the players change places (docs/rules.md §1.5): before every round "
        "(every_round, the default) or before the third only (third_round)",
        default=None,
    )
    table_fee: int | None = field(
        Optional(Int(1, 10**12)),
        "茶水费: coins each player pays the house every hand at this stake table, set by "
        "the server (docs/rules.md §2.5; what a client sends here is ignored); absent: none",
        default=None,
    )


@record
class LobbySeat(Record):
    """One seat of a table as the lobby shows it; empty when ``name`` is absent."""

    _RULES = (When("bot", (True,), require=("bot_level", "name")),)
    name: str | None = field(Optional(NAME), default=None)
    bot: bool = field(Bool())
    bot_level: BotLevel | None = field(Optional(Choice(BotLevel)), "for a bot", default=None)
    ready: bool = field(Bool())
    level: int | None = field(
        Optional(LEVEL), "a player's level (docs/rules.md §2.7)", default=None
    )


@record
class TableInfo(Record):
    """A table in the lobby list (never its password)."""

    table_id: int = field(TABLE_ID)
    owner: str = field(NAME)
    settings: TableSettings = field(Struct(TableSettings))
    has_password: bool = field(Bool())
    seats: tuple[LobbySeat, ...] = field(ListOf(Struct(LobbySeat), 4, 4), "seats 0-3")
    spectators: int = field(Int(0, 100_000))
    status: TableStatus = field(Choice(TableStatus))
    cloth: Cloth | None = field(
        Optional(Choice(Cloth)),
        "the board's look, laid by the owner with a tablecloth (docs/rules.md §2.6); "
        "absent: the plain board",
        default=None,
    )
    tournament_id: int | None = field(
        Optional(TOURNAMENT_ID),
        "the tournament whose session this table plays (no items there, docs/rules.md "
        "§2.12); absent: none",
        default=None,
    )


@record
class PlayerView(Record):
    """Who plays a seat in the running match, and their score."""

    name: str = field(NAME)
    bot: bool = field(Bool())
    presence: Presence = field(Choice(Presence), "online, offline, or auto-play (托管)")
    score: int = field(POINTS, "match points so far")
    level: int | None = field(
        Optional(LEVEL), "a player's level (docs/rules.md §2.7)", default=None
    )


@record
class SeatView(Record):
    """One seat of the hand in play as the viewer may see it."""

    seat: int = field(SEAT)
    wind: int = field(WIND, "seat wind this hand")
    concealed: tuple[int, ...] | None = field(
        Optional(CONCEALED), "the concealed tiles: the viewer's own seat only", default=None
    )
    concealed_count: int = field(Int(0, 14))
    melds: tuple[MeldView | None, ...] = field(SEAT_MELDS, "nil: a face-down concealed kong")
    flowers: tuple[int, ...] = field(ListOf(FLOWER, 8))
    discards: tuple[int, ...] = field(ListOf(PLAYING_TILE, 64), "in order")
    drawn: int | None = field(Optional(TILE), "the tile just drawn: its owner only", default=None)
    claimed: tuple[tuple[int, int], ...] | None = field(
        Optional(ListOf(Tuple((Int(0, 63), PLAYING_TILE)), 16)),
        "[place, tile]: the discards another seat claimed (not in ``discards``), each at "
        "its place (0-based) in the pool as played; nil or absent: none",
        default=None,
    )


@record
class GameView(Record):
    """The hand in play as the viewer may see it (the engine's ``HandView.game``)."""

    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4), "1-based within the round")
    dealer: int = field(SEAT)
    prevailing_wind: int = field(WIND)
    dice: tuple[tuple[int, int], ...] = field(DICE)
    break_stack: int = field(Int(0, 71), "the stack where drawing starts")
    commitment: str = field(
        Hex(64, 64), "SHA-256 of the match id, hand number, wall order and salt"
    )
    wall_remaining: int = field(Int(0, 144))
    phase: Phase = field(Choice(Phase))
    to_act: tuple[int, ...] = field(
        ListOf(SEAT, 4), "seats that must act (in a claim window: only the viewer, if asked)"
    )
    timer: TimerClass | None = field(
        Optional(Choice(TimerClass)), "the running timer's class", default=None
    )
    ms_left: int | None = field(
        Optional(MS_LEFT), "time left on it; absent when untimed", default=None
    )
    offer: tuple[int, int, bool] | None = field(
        Optional(Tuple((SEAT, PLAYING_TILE, Bool()))),
        "[seat, tile, robbing a kong]: the discard (or kong tile) that may be claimed",
        default=None,
    )
    seats: tuple[SeatView, ...] = field(ListOf(Struct(SeatView), 4, 4), "seats 0-3")


@record
class Standing(Record):
    """One participant's result over the match: each player and each bot that held a
    seat, with what they won or lost while they held it (an escaper's 80-point penalty
    included)."""

    name: str = field(NAME)
    bot: bool = field(Bool())
    seat: int | None = field(
        Optional(SEAT), "the seat held at the end; absent if they left", default=None
    )
    rank: int = field(
        Int(1, MAX_PARTICIPANTS), "by points, those who left ranked after those who stayed"
    )
    points: int = field(POINTS)
    coins: int = field(COIN_DELTA, "coins won (or lost, negative) over the match")
    left: LeaveReason | None = field(
        Optional(Choice(LeaveReason)),
        "why they left before the end: escaped (left), stood up",
        default=None,
    )


@record
class ItemStack(Record):
    """A stack of one item in the inventory."""

    item: Item = field(ITEM)
    count: int = field(Int(1, STACK_LIMIT))
    slot: int | None = field(
        Optional(Int(0, MAX_INVENTORY_SLOTS - 1)),
        "its place in the inventory, 0 first (``move_item``)",
        default=None,
    )


@record
class ShopOffer(Record):
    """An item for sale."""

    item: Item = field(ITEM)
    price: int = field(COINS, "coins per item")
    use_cost: int | None = field(
        Optional(COINS), "coins using one costs besides (the timer extension: 270)", default=None
    )


@record
class LeaderEntry(Record):
    """A line of the leaderboard."""

    rank: int = field(Int(1, 100_000))
    name: str = field(NAME)
    level: int = field(LEVEL)
    rating: int = field(RATING)


# -- events (docs/vocabulary.md) ---------------------------------------------------------
@record
class EventBody(Record):
    """Base of the game events; the ``kind`` names the event. Hidden tiles are absent."""

    _TAG_KEY: ClassVar[str | None] = "kind"
    _REGISTRY: ClassVar[dict[str, type[Record]]] = {}

    @classmethod
    def from_wire(cls, data: Any, path: str | None = None) -> EventBody:
        """``EventBody.from_wire`` takes any kind (its ``kind`` names the class)."""
        if cls is EventBody:
            path = path or "event"
            if not isinstance(data, dict):
                raise ProtocolError(
                    ErrorCode.WRONG_TYPE, f"{path}: expected a map, got {_kind(data)}", path
                )
            kinds = Tagged(EventBody)
            body = convert(data, kinds.type(), kinds, path)
            assert isinstance(body, EventBody)  # EventBody's registry holds only bodies
            return body
        # Explicit super: the zero-argument form fails in slotted dataclasses.
        return super(EventBody, cls).from_wire(data, path)  # noqa: UP008


# EventBody's registry holds only event bodies.
EVENT_KINDS: dict[str, type[EventBody]] = EventBody._REGISTRY  # type: ignore[assignment]


@tagged("hand_start")
class HandStart(EventBody):
    """A hand begins: the wall is committed to, the dice are rolled."""

    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4))
    dealer: int = field(SEAT)
    seat_winds: tuple[int, ...] = field(ListOf(WIND, 4, 4), "of seats 0-3")
    prevailing_wind: int = field(WIND)
    dice: tuple[tuple[int, int], ...] = field(DICE)
    second_roller: int = field(SEAT)
    break_stack: int = field(Int(0, 71), "the stack (in wall order) where drawing starts")
    commitment: str = field(
        Hex(64, 64), "SHA-256 of the match id, hand number, wall order and salt"
    )


@tagged("deal")
class Deal(EventBody):
    """A seat's tiles from the deal (flowers included); others see only the count."""

    seat: int = field(SEAT)
    count: int = field(Int(13, 14))
    tiles: tuple[int, ...] | None = field(
        Optional(ListOf(TILE, 14)), "only to the seat itself", default=None
    )


@tagged("flower")
class Flower(EventBody):
    """A seat shows a flower and sets it aside; a replacement `draw` follows."""

    seat: int = field(SEAT)
    tile: int = field(FLOWER)


@tagged("draw")
class Draw(EventBody):
    """A seat draws; others do not see the tile."""

    seat: int = field(SEAT)
    tile: int | None = field(Optional(TILE), "only to the seat itself", default=None)
    replacement: bool = field(Bool(), "from the back of the wall")


@tagged("discard")
class Discard(EventBody):
    """A seat discards a tile; a claim window may follow."""

    seat: int = field(SEAT)
    tile: int = field(PLAYING_TILE)


@record
class Claim(EventBody):
    """A chow, pung or exposed kong made with a discard."""

    seat: int = field(SEAT)
    tiles: tuple[int, ...] = field(ListOf(PLAYING_TILE, 4, 3), "the meld's tiles")
    claimed_tile: int = field(PLAYING_TILE)
    from_seat: int = field(SEAT, "who discarded it")


@tagged("chow")
class Chow(Claim):
    """吃: a chow with the left seat's discard."""


@tagged("pung")
class Pung(Claim):
    """碰: a pung with a discard."""


@tagged("exposed_kong")
class ExposedKong(Claim):
    """明杠: a kong with a discard; a replacement `draw` follows."""


@tagged("concealed_kong")
class ConcealedKong(EventBody):
    """暗杠: others see a face-down kong, without its tile."""

    seat: int = field(SEAT)
    tile: int | None = field(Optional(PLAYING_TILE), "only to the seat itself", default=None)


@tagged("added_kong")
class AddedKong(EventBody):
    """加杠: a seat adds the fourth tile to its exposed pung (others may rob it)."""

    seat: int = field(SEAT)
    tile: int = field(PLAYING_TILE)


@tagged("win")
class Win(EventBody):
    """和: the winning seat, the fans, and the points of each seat."""

    seat: int = field(SEAT)
    from_seat: int | None = field(Optional(SEAT), "absent when self-drawn", default=None)
    win_tile: int = field(PLAYING_TILE)
    fans: tuple[tuple[int, int], ...] = field(ListOf(FAN_COUNT, 82, 1), "[fan id, count]")
    total: int = field(FAN_TOTAL, "all fan including flowers")
    points: tuple[int, ...] = field(POINTS_PER_SEAT)


@tagged("exhaustive_draw")
class ExhaustiveDraw(EventBody):
    """荒庄: the wall is empty and nobody won."""


@tagged("escape")
class Escape(EventBody):
    """A seat left the running match on purpose (docs/rules.md §2.4); the hand ends."""

    seat: int = field(SEAT)


@tagged("hand_end")
class HandEnd(EventBody):
    """Everything revealed: each seat's concealed tiles and melds, the wall and its salt;
    at a duplicate table, while its deal is still played elsewhere, only what play showed
    (``sealed``, docs/rules.md §2.14)."""

    outcome: Outcome = field(Choice(Outcome))
    concealed: tuple[tuple[int, ...], ...] = field(ListOf(CONCEALED, 4, 4), SEALED_CONCEALED)
    melds: tuple[tuple[MeldView | None, ...], ...] = field(ListOf(SEAT_MELDS, 4, 4), SEALED_MELDS)
    wall_order: tuple[int, ...] | None = field(Optional(WALL_ORDER), SEALED_WALL, default=None)
    salt: str | None = field(Optional(Hex(2, 128)), "absent with ``wall_order``", default=None)
    commitment: str = field(Hex(64, 64))
    points: tuple[int, ...] = field(POINTS_PER_SEAT, "this hand, per seat")


# -- general ------------------------------------------------------------------------------
@message("hello", "client", "welcome")
class Hello(Message):
    """The client's first message."""

    version: int = field(Int(1, 65535), f"protocol version; this is {PROTOCOL_VERSION}")
    client: str = field(SOFTWARE, '"<name>/<version>"')
    door: str | None = field(
        Optional(TOKEN),
        "the pass of a session of this server's own SSH or web door, or of a door on "
        "another machine or a node's redirect (signed with the host's door secret): the "
        "player it is from (other clients send none)",
        default=None,
    )


@message("welcome", "server")
class Welcome(Message):
    """The server's answer to a supported ``hello``."""

    version: int = field(Int(1, 65535))
    server: str = field(SOFTWARE)


@message("error", "server")
class Error(Message):
    """A request or frame was refused; ``id`` is the request's if it had one."""

    code: ErrorCode = field(Choice(ErrorCode), "see Error codes")
    message: str = field(Str(500), "readable; names the field for a bad message")


@message("notice", "server")
class Notice(Message):
    """Something the server tells a client unasked (it is going down; a new login)."""

    code: NoticeCode = field(Choice(NoticeCode))
    message: str = field(Str(500))


@message("ok", "server")
class Ok(Message):
    """A request was done and has nothing else to answer."""


@message("ping", "both", "pong")
class Ping(Message):
    """Keep-alive; the other side answers ``pong`` with the same ``id``."""


@message("pong", "both")
class Pong(Message):
    """The answer to ``ping``."""


# -- accounts ---------------------------------------------------------------------------
@message("register", "client", "session")
class Register(Message):
    """Create an account (10,000 coins) and log in."""

    name: str = field(NAME)
    password: str = field(PASSWORD)


@message("login", "client", "session")
class Login(Message):
    """Log in to an existing account."""

    name: str = field(NAME)
    password: str = field(PASSWORD)


@message("guest", "client", "session")
class Guest(Message):
    """Play as a guest (no coins kept); the server picks a name if none is given."""

    name: str | None = field(Optional(NAME), default=None)


@message("resume", "client", "session")
class Resume(Message):
    """Resume a dropped session; the server then sends the table's snapshot if seated."""

    token: str = field(TOKEN)


@message("redeem_ticket", "client", "session")
class RedeemTicket(Message):
    """Sign in on the node a ``redirect`` named, with its ticket (once, within its time):
    the player does not sign in again."""

    ticket: str = field(TICKET)


@message("logout", "client", "ok")
class Logout(Message):
    """End the session; its token stops working."""


@message("change_password", "client", "session")
class ChangePassword(Message):
    """Change the account's password; every session token of the account stops working
    and the answer carries a new one for this connection."""

    old: str = field(PASSWORD)
    new: str = field(PASSWORD)


@message("session", "server")
class Session(Message):
    """Logged in: the token to resume with, and the account."""

    token: str = field(TOKEN)
    profile: Profile = field(Struct(Profile))


@message("profile", "server")
class ProfileUpdate(Message):
    """The account changed (coins, rating, level)."""

    profile: Profile = field(Struct(Profile))


@message("get_levels", "client", "levels")
class GetLevels(Message):
    """Ask for the level thresholds (docs/rules.md §2.7)."""


@message("levels", "server")
class Levels(Message):
    """The rating each level starts at: ``thresholds[L-1]`` for level L."""

    thresholds: tuple[int, ...] = field(ListOf(RATING, MAX_LEVEL, MAX_LEVEL))


@message("get_leaderboard", "client", "leaderboard")
class GetLeaderboard(Message):
    """Ask for the best players."""

    limit: int | None = field(Optional(Int(1, 100)), "default 20", default=None)


@message("leaderboard", "server")
class Leaderboard(Message):
    """The best players by rating."""

    entries: tuple[LeaderEntry, ...] = field(ListOf(Struct(LeaderEntry), 100))


# -- lobby ------------------------------------------------------------------------------
@message("list_tables", "client", "table_list")
class ListTables(Message):
    """Ask for one page of the table list, once (``watch_lobby`` to follow it)."""

    offset: int | None = field(
        Optional(Int(0, 1_000_000)), "skip this many tables (default 0)", default=None
    )


@message("watch_lobby", "client", "table_list")
class WatchLobby(Message):
    """Follow the lobby (a page of the table list, the counters, lobby chat) or stop.
    ``on``: answered with the page, then ``lobby_update`` frames follow, a few a second
    at most, each with the latest state of what changed on that page. ``off`` (or
    entering a table) stops them; answered with an empty page."""

    on: bool = field(Bool())
    offset: int | None = field(Optional(Int(0, 1_000_000)), "the page's first table", default=None)


@message("table_list", "server")
class TableList(Message):
    """A page of the lobby's tables (at most 60, so that any page fits in a frame)."""

    tables: tuple[TableInfo, ...] = field(ListOf(Struct(TableInfo), TABLE_PAGE))
    total: int = field(Int(0, 1_000_000), "tables in the lobby")
    players_online: int | None = field(
        Optional(Int(0, 10_000_000)), "signed-in players", default=None
    )


@message("lobby_update", "server")
class LobbyUpdate(Message):
    """What changed on the watched page since the last update: tables new or changed (in
    their latest state), tables gone from the page, and the counters."""

    tables: tuple[TableInfo, ...] = field(ListOf(Struct(TableInfo), TABLE_PAGE))
    removed: tuple[int, ...] = field(ListOf(TABLE_ID, TABLE_PAGE), "table ids off the page")
    total: int = field(Int(0, 1_000_000), "tables in the lobby")
    players_online: int = field(Int(0, 10_000_000), "signed-in players")


@message("table_update", "server")
class TableUpdate(Message):
    """To the members of a table: the table changed (seats, ready, settings, owner,
    status, spectators)."""

    table: TableInfo = field(Struct(TableInfo))


@message("create_table", "client", "snapshot")
class CreateTable(Message):
    """Create a table and enter it as its owner (not yet seated)."""

    settings: TableSettings = field(Struct(TableSettings))
    password: str | None = field(Optional(TABLE_PASSWORD), "absent: open table", default=None)


@message("configure_table", "client", "ok")
class ConfigureTable(Message):
    """The owner replaces the settings (and password) before the match. A new name costs
    one ``table_sign`` and is protected for an hour (招牌), or one ``gold_sign`` and is
    protected for 24 hours (金字招牌, docs/rules.md §2.6)."""

    table_id: int = field(TABLE_ID)
    settings: TableSettings = field(Struct(TableSettings))
    password: str | None = field(Optional(TABLE_PASSWORD), "absent: open table", default=None)
    sign: Item | None = field(
        Optional(Choice(Item)),
        "the sign a new name uses: table_sign (the default) or gold_sign; any other item "
        "is refused (out_of_range)",
        default=None,
    )


@message("join_table", "client", "snapshot")
class JoinTable(Message):
    """Enter a table to play (then ``sit``)."""

    table_id: int = field(TABLE_ID)
    password: str | None = field(Optional(TABLE_PASSWORD), default=None)


@message("spectate", "client", "snapshot")
class Spectate(Message):
    """Watch a table: a snapshot of what spectators may see, then events."""

    table_id: int = field(TABLE_ID)
    password: str | None = field(Optional(TABLE_PASSWORD), default=None)


@message("sit", "client", "ok")
class Sit(Message):
    """Take an empty seat at the table the client is in."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)


@message("stand", "client", "ok")
class Stand(Message):
    """Leave the seat (before the match), staying at the table."""

    table_id: int = field(TABLE_ID)


@message("ready", "client", "ok")
class Ready(Message):
    """Say the player is (or is no longer) ready for the match."""

    table_id: int = field(TABLE_ID)
    ready: bool = field(Bool())


@message("add_bot", "client", "ok")
class AddBot(Message):
    """The owner puts a bot in an empty seat."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)
    level: BotLevel = field(Choice(BotLevel))


@message("remove_bot", "client", "ok")
class RemoveBot(Message):
    """The owner removes a bot from a seat, before the match."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)


@message("kick", "client", "ok")
class Kick(Message):
    """The owner removes the player in a seat, before the match."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)


@message("leave_table", "client", "ok")
class LeaveTable(Message):
    """Back to the lobby; during a match this is an escape (docs/rules.md §2.4)."""

    table_id: int = field(TABLE_ID)


@message("table_left", "server")
class TableLeft(Message):
    """The client is no longer at the table, and why."""

    table_id: int = field(TABLE_ID)
    reason: LeaveReason = field(Choice(LeaveReason))


@message("auto_play", "client", "ok")
class AutoPlay(Message):
    """Switch 托管 on or off."""

    table_id: int = field(TABLE_ID)
    on: bool = field(Bool())


# -- the game ---------------------------------------------------------------------------
@message("redirect", "server")
class Redirect(Message):
    """The table is held by another node of the same server: connect to ``address``,
    ``redeem_ticket``, then ask again. Answers ``join_table`` and ``spectate``; pushed
    after a sign-in when the player's running match moved to another node."""

    table_id: int = field(TABLE_ID)
    address: str = field(NODE_ADDRESS, "HOST:PORT of the node that holds the table")
    ticket: str = field(TICKET, "signed, good once, for about 30 seconds")
    fingerprint: str | None = field(
        Optional(TLS_FINGERPRINT),
        "the node's TLS certificate, SHA256:AB:CD:...; absent: it serves plain TCP (a "
        "client a front door started, which pins nothing, checks it)",
        default=None,
    )
    door: str | None = field(
        Optional(TOKEN),
        "to a client of a front door: the pass that names its player on that node",
        default=None,
    )


@message("snapshot", "server")
class Snapshot(Message):
    """Everything the viewer may see of a table; events with a higher ``seq`` follow."""

    table: TableInfo = field(Struct(TableInfo))
    seat: int | None = field(
        Optional(SEAT), "the viewer's seat; absent for a spectator", default=None
    )
    seq: int = field(SEQ, "the last event this snapshot includes (0: none yet)")
    players: tuple[PlayerView, ...] | None = field(
        Optional(ListOf(Struct(PlayerView), 4, 4)), "seats 0-3 during a match", default=None
    )
    game: GameView | None = field(
        Optional(Struct(GameView)), "the hand in play, if any", default=None
    )


@message("event", "server")
class Event(Message):
    """Something happened at a table; ``seq`` counts 1, 2, 3… per table."""

    table_id: int = field(TABLE_ID)
    seq: int = field(SEQ)
    event: EventBody = field(Tagged(EventBody))


@message("prompt", "server")
class Prompt(Message):
    """The viewer must choose one of ``actions`` within ``ms_left``."""

    table_id: int = field(TABLE_ID)
    seq: int = field(SEQ, "the table's seq when asked; the action echoes it")
    actions: tuple[ActionChoice, ...] = field(ListOf(Struct(ActionChoice), 64, 1))
    timer: TimerClass = field(Choice(TimerClass))
    ms_left: int | None = field(Optional(MS_LEFT), "absent when the table is untimed", default=None)
    reserve_ms: int | None = field(
        Optional(MS_LEFT),
        "the part of ``ms_left`` that is the seat's time bank (absent: none left)",
        default=None,
    )


@message("action", "client", "ok")
class Action(Message):
    """The player's choice for the open prompt."""

    _RULES = ACTION_RULES
    table_id: int = field(TABLE_ID)
    seq: int = field(SEQ, "the prompt's seq; an old one gets error `stale`")
    kind: ActionKind = field(Choice(ActionKind))
    tile: int | None = field(
        Optional(PLAYING_TILE), "for discard, concealed_kong, added_kong, chow", default=None
    )


@message("hand_result", "server")
class HandResult(Message):
    """A hand is over: the win (or draw or escape), fans, points, every hand revealed
    (sealed at a duplicate table while its deal is still played elsewhere, as
    ``hand_end``)."""

    _RULES = (
        When("outcome", ("win",), require=("winner", "win_tile")),
        When("outcome", ("exhaustive_draw", "escape"), forbid=("winner", "from_seat", "win_tile")),
        When("outcome", ("escape",), require=("escaper",)),
        When("outcome", ("win", "exhaustive_draw"), forbid=("escaper",)),
    )
    table_id: int = field(TABLE_ID)
    hand_id: int | None = field(Optional(ID), "for the replay (``get_hand``)", default=None)
    match_id: int | None = field(
        Optional(ID), "the match, whose id the commitment binds (docs/rules.md §1.1)", default=None
    )
    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4))
    outcome: Outcome = field(Choice(Outcome))
    winner: int | None = field(Optional(SEAT), default=None)
    from_seat: int | None = field(
        Optional(SEAT), "the discarder; absent if self-drawn", default=None
    )
    win_tile: int | None = field(Optional(PLAYING_TILE), default=None)
    escaper: int | None = field(Optional(SEAT), default=None)
    fans: tuple[tuple[int, int], ...] = field(ListOf(FAN_COUNT, 82), "[fan id, count]")
    total: int = field(FAN_TOTAL, "all fan including flowers")
    points: tuple[int, ...] = field(POINTS_PER_SEAT, "this hand")
    scores: tuple[int, ...] = field(POINTS_PER_SEAT, "match totals after this hand")
    concealed: tuple[tuple[int, ...], ...] = field(ListOf(CONCEALED, 4, 4), SEALED_CONCEALED)
    melds: tuple[tuple[MeldView | None, ...], ...] = field(ListOf(SEAT_MELDS, 4, 4), SEALED_MELDS)
    flowers: tuple[tuple[int, ...], ...] = field(ListOf(ListOf(FLOWER, 8), 4, 4))
    wall_order: tuple[int, ...] | None = field(Optional(WALL_ORDER), SEALED_WALL, default=None)
    salt: str | None = field(Optional(Hex(2, 128)), "absent with ``wall_order``", default=None)
    commitment: str = field(Hex(64, 64))
    coins: tuple[int, ...] | None = field(
        Optional(ListOf(COIN_DELTA, 4, 4)),
        "coins each seat won (lost) this hand; stake tables",
        default=None,
    )
    fees: tuple[int, ...] | None = field(
        Optional(ListOf(COINS, 4, 4)),
        "the table fee each seat paid the house this hand (included in ``coins``); "
        "tables with a fee",
        default=None,
    )
    next_hand_ms: int | None = field(
        Optional(MS_LEFT),
        "when the next hand starts by itself, unless every player reading the result "
        "closes it before (``result_closed``); absent after the last hand",
        default=None,
    )


@message("result_closed", "client", "ok")
class ResultClosed(Message):
    """The player has read the hand's result: the next hand need not wait for them."""

    table_id: int = field(TABLE_ID)


@message("match_result", "server")
class MatchResult(Message):
    """The match is over: how it ended and the standings of everyone who played."""

    table_id: int = field(TABLE_ID)
    match_id: int | None = field(Optional(ID), "for the history (``get_match``)", default=None)
    reason: MatchEnd = field(Choice(MatchEnd))
    standings: tuple[Standing, ...] = field(
        ListOf(Struct(Standing), MAX_PARTICIPANTS, 4), "by rank"
    )


@message("presence", "server")
class PresenceUpdate(Message):
    """A seat's presence changed: online, offline or auto-play (托管)."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT, "the seat in the hand (as in events)")
    presence: Presence = field(Choice(Presence))


@message("timed_out", "server")
class TimedOut(Message):
    """A seat's clock ran out: the server took the timeout action for it (the events
    that follow say what it was)."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)
    timeouts: int = field(Int(1, 1000), "in a row for this seat")


@message("timer_extended", "server")
class TimerExtended(Message):
    """A seat's timer extension fired: its deadline moved (docs/rules.md §2.6)."""

    table_id: int = field(TABLE_ID)
    seat: int = field(SEAT)
    ms_left: int = field(MS_LEFT)


@message("stood_up", "server")
class StoodUp(Message):
    """Before a deal, a player with less than ``100 × stake`` coins was stood up (docs/
    rules.md §2.5): told to everyone at the table, the player included (who then gets
    ``table_left`` ``not_enough_coins``)."""

    table_id: int = field(TABLE_ID)
    name: str = field(NAME)
    need: int = field(COINS, "the coins a seat at this table needs")


# -- items ------------------------------------------------------------------------------
@message("get_inventory", "client", "inventory")
class GetInventory(Message):
    """Ask for the player's items."""


@message("inventory", "server")
class Inventory(Message):
    """The items the player holds (30 slots unless the host sets another number, stacks of
    up to 99), by slot."""

    slots: tuple[ItemStack, ...] = field(ListOf(Struct(ItemStack), MAX_INVENTORY_SLOTS))
    capacity: int = field(Int(0, MAX_INVENTORY_SLOTS))
    gem_cap: int | None = field(
        Optional(RATING),
        "gems cannot be used at this rating or above (docs/rules.md §2.6); absent: no cap",
        default=None,
    )


@message("get_shop", "client", "shop")
class GetShop(Message):
    """Ask what the shop sells."""


@message("shop", "server")
class Shop(Message):
    """What the shop sells, and for how many coins."""

    offers: tuple[ShopOffer, ...] = field(ListOf(Struct(ShopOffer), 50))


@message("buy", "client", "inventory")
class Buy(Message):
    """Buy items for coins; answered by the new inventory."""

    item: Item = field(ITEM)
    count: int = field(Int(1, STACK_LIMIT))


@message("item_awarded", "server")
class ItemAwarded(Message):
    """A random item: for a win, or a gem for finishing a match first (docs/rules.md
    §2.6)."""

    item: Item = field(ITEM)
    count: int = field(Int(1, STACK_LIMIT))
    lost: bool | None = field(
        Optional(Bool()),
        "true: the inventory was full, so the item was not kept (absent: kept)",
        default=None,
    )


@message("lay_tablecloth", "client", "ok")
class LayTablecloth(Message):
    """The table's owner uses a tablecloth: the board takes its look for everyone at the
    table (``table_update``), for as long as the table exists."""

    table_id: int = field(TABLE_ID)
    cloth: Cloth = field(Choice(Cloth))


@message("move_item", "client", "inventory")
class MoveItem(Message):
    """Move what is in one slot of the inventory to another; what was there (if anything)
    takes its place. Both slots below ``capacity``; the first not empty."""

    from_slot: int = field(Int(0, MAX_INVENTORY_SLOTS - 1))
    to_slot: int = field(Int(0, MAX_INVENTORY_SLOTS - 1))


@message("use_item", "client", "inventory")
class UseItem(Message):
    """Use one item that acts on the player's account: a gem adds its rating points
    (refused as ``rating_capped`` at the server's gem cap or above). Items that act at a
    table have their own requests."""

    item: Item = field(ITEM)


@message("arm_timer_extension", "client", "ok")
class ArmTimerExtension(Message):
    """Arm (or disarm) a timer extension for this table's match."""

    table_id: int = field(TABLE_ID)
    armed: bool = field(Bool())


@message("use_tile_counter", "client", "tile_counts")
class UseTileCounter(Message):
    """Use a tile counter for the rest of the current hand."""

    table_id: int = field(TABLE_ID)


@message("tile_counts", "server")
class TileCounts(Message):
    """Unseen copies of each playing tile from the viewer's seat; sent again on change."""

    table_id: int = field(TABLE_ID)
    seq: int = field(SEQ, "the table's seq these counts are for")
    counts: tuple[int, ...] = field(ListOf(Int(0, 4), 34, 34), "indexed by tile code 0-33")


# -- history ------------------------------------------------------------------------------
@record
class MatchSummary(Record):
    """A match in the history."""

    match_id: int = field(ID)
    table_name: str = field(TABLE_NAME)
    started_at: int = field(Int(0, 2**40), "Unix time, seconds")
    ended_at: int | None = field(Optional(Int(0, 2**40)), "absent while it runs", default=None)
    reason: MatchEnd | None = field(
        Optional(Choice(MatchEnd)), "absent while it runs", default=None
    )
    players: tuple[str, ...] = field(ListOf(NAME, MAX_PARTICIPANTS, 1), "everyone who held a seat")
    hands: int = field(Int(0, 16), "hands played")
    public: bool = field(Bool(), "readable by anyone")
    rank: int | None = field(
        Optional(Int(1, MAX_PARTICIPANTS)), "the asking player's, if they played", default=None
    )
    points: int | None = field(Optional(POINTS), "the asking player's", default=None)
    coins: int | None = field(Optional(COIN_DELTA), "the asking player's", default=None)


@record
class HandSummary(Record):
    """A hand of a match in the history."""

    hand_id: int = field(ID)
    number: int = field(Int(1, 16), "1-based in the match")
    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4))
    outcome: Outcome = field(Choice(Outcome))
    winner: int | None = field(Optional(SEAT), default=None)
    total: int = field(FAN_TOTAL)
    points: tuple[int, ...] = field(POINTS_PER_SEAT)
    players: tuple[str, ...] = field(ListOf(NAME, 4, 4), "who played seats 0-3")


@message("list_matches", "client", "match_list")
class ListMatches(Message):
    """The matches the player played, newest first, a page at a time."""

    offset: int | None = field(Optional(Int(0, 10_000_000)), "default 0", default=None)
    limit: int | None = field(Optional(Int(1, MATCH_PAGE)), "default 20", default=None)


@message("match_list", "server")
class MatchList(Message):
    """A page of the player's matches, newest first."""

    matches: tuple[MatchSummary, ...] = field(ListOf(Struct(MatchSummary), MATCH_PAGE))
    total: int = field(Int(0, 10_000_000))


# A replay file's signature (docs/replay-format.md): base64 of the server's certificate
# (DER, up to 1,536 bytes) and of a signature; both fit the decoder's string limit.
CERTIFICATE = Base64(2048)
SIGNATURE = Base64(1024)


@message("get_match", "client", "match_detail")
class GetMatch(Message):
    """One match: yours, or a public one."""

    match_id: int = field(ID)


@message("match_detail", "server")
class MatchDetail(Message):
    """A match's hands and standings (standings once it has ended), with the stake; the
    server signs the match's record with its certificate's key, which a replay file keeps
    (docs/replay-format.md, "The signature")."""

    match: MatchSummary = field(Struct(MatchSummary))
    stake: int = field(Choice(STAKES), "coins per point; 0: a free table")
    hands: tuple[HandSummary, ...] = field(ListOf(Struct(HandSummary), 16))
    standings: tuple[Standing, ...] | None = field(
        Optional(ListOf(Struct(Standing), MAX_PARTICIPANTS, 1)), default=None
    )
    certificate: str | None = field(
        Optional(CERTIFICATE),
        "base64 DER of the certificate whose key signs (docs/replay-format.md); absent: "
        "the server signs nothing",
        default=None,
    )
    signature: str | None = field(
        Optional(SIGNATURE), "the server's signature of the match's record", default=None
    )


@message("get_hand", "client", "hand_log")
class GetHand(Message):
    """One ended hand's full log (of a match you may read)."""

    hand_id: int = field(ID)


@record
class LoggedAction(Record):
    """One action of a hand's log: who chose what, and when."""

    # A replay file's hands keep this record too (docs/replay-format.md, `action`).

    _RULES = ACTION_RULES
    seat: int = field(SEAT)
    kind: ActionKind = field(Choice(ActionKind))
    tile: Tile | None = field(
        Optional(PLAYING_TILE), "for discard, concealed_kong, added_kong, chow", default=None
    )
    ms: int = field(Int(0, 24 * 3600 * 1000), "from the hand's start")


@message("hand_log", "server")
class HandLog(Message):
    """One ended hand, complete: the wall (order, dice, salt: the commitment is SHA-256 of
    the match id, the hand's number and them, docs/rules.md §1.1) and every action in
    order. Replaying the actions on the
    wall with the rules (``gbmj.game.HandState.replay``) gives every deal, draw, claim
    and the result; ``escape`` ends the log when a player left. ``signature``: the
    server's, of the hand's record (docs/replay-format.md, "The signature")."""

    hand_id: int = field(ID)
    match_id: int = field(ID)
    number: int = field(Int(1, 16))
    round_number: int = field(Int(1, 4))
    hand_number: int = field(Int(1, 4))
    prevailing_wind: int = field(WIND)
    dealer: int = field(SEAT)
    dice: tuple[tuple[int, int], ...] = field(DICE)
    wall_order: tuple[int, ...] = field(WALL_ORDER, "144; personal walls (docs/rules.md §1.6): 136")
    salt: str = field(Hex(2, 128))
    commitment: str = field(Hex(64, 64))
    players: tuple[str, ...] = field(ListOf(NAME, 4, 4), "who played seats 0-3")
    actions: tuple[LoggedAction, ...] = field(ListOf(Struct(LoggedAction), 600))
    escape: int | None = field(Optional(SEAT), "the seat that left, ending the hand", default=None)
    points: tuple[int, ...] = field(POINTS_PER_SEAT)
    coins: tuple[int, ...] | None = field(
        Optional(ListOf(COIN_DELTA, 4, 4)), "stake tables", default=None
    )
    signature: str | None = field(
        Optional(SIGNATURE), "the server's signature of the hand's record", default=None
    )


@record
class SavedHand(Record):
    """A hand kept with a recorder (docs/rules.md §2.6): its log is never pruned and
    anyone with its id may read it (``get_hand``)."""

    hand: HandSummary = field(Struct(HandSummary))
    match_id: int = field(ID)
    table_name: str = field(TABLE_NAME)
    saved_at: int = field(Int(0, 2**40), "Unix time, seconds")


@message("save_hand", "client", "saved_hands")
class SaveHand(Message):
    """Keep an ended hand you played for good, using one recorder (docs/rules.md §2.6):
    it joins your saved hands, the server never prunes its log and anyone with its id may
    read it. A hand you saved before costs nothing again. Refused as ``no_such_match``
    (unknown, not played by you, or its log no longer kept) or ``no_such_item`` (no
    recorder); nothing changes. Answers the first page of your saved hands."""

    hand_id: int = field(ID)


@message("list_saved_hands", "client", "saved_hands")
class ListSavedHands(Message):
    """The hands you saved with a recorder, newest first, a page at a time."""

    offset: int | None = field(Optional(Int(0, 10_000_000)), "default 0", default=None)
    limit: int | None = field(Optional(Int(1, MATCH_PAGE)), "default 20", default=None)


@message("saved_hands", "server")
class SavedHands(Message):
    """A page of the player's saved hands, newest first, and how many there are."""

    hands: tuple[SavedHand, ...] = field(ListOf(Struct(SavedHand), MATCH_PAGE))
    total: int = field(Int(0, 10_000_000))


# -- moderation ---------------------------------------------------------------------------
@message("mute", "client", "ok")
class Mute(Message):
    """Stop (or start again) seeing a player's chat. With ``table_id``, the table's owner
    mutes the player at the table for everyone."""

    name: str = field(NAME)
    on: bool = field(Bool())
    table_id: int | None = field(Optional(TABLE_ID), default=None)


# -- SSH keys (playing over SSH, docs/hosting.md) ------------------------------------------
MAX_SSH_KEYS = 10
FINGERPRINT = Str(80)  # "SHA256:" and 43 base64 characters


@record
class SshKeyInfo(Record):
    """A public key that signs the account in over SSH."""

    fingerprint: str = field(FINGERPRINT)
    algorithm: str = field(Str(40), "e.g. ssh-ed25519")
    comment: str = field(Str(60, min_len=0))


@message("list_ssh_keys", "client", "ssh_keys")
class ListSshKeys(Message):
    """Ask for the account's SSH public keys (players only, not guests)."""


@message("add_ssh_key", "client", "ssh_keys")
class AddSshKey(Message):
    """Add a public key, as one OpenSSH line (``ssh-ed25519 AAAA... comment``). The line
    fits the decoder's 2 KiB string limit: ed25519 and ECDSA keys, RSA up to 2048 bits."""

    public_key: str = field(Str(512))


@message("remove_ssh_key", "client", "ssh_keys")
class RemoveSshKey(Message):
    """Remove a public key by its fingerprint."""

    fingerprint: str = field(FINGERPRINT)


@message("ssh_keys", "server")
class SshKeys(Message):
    """The account's SSH public keys (the answer to the three requests above)."""

    keys: tuple[SshKeyInfo, ...] = field(ListOf(Struct(SshKeyInfo), MAX_SSH_KEYS))


# -- chat -------------------------------------------------------------------------------
CHAT_RULES = (
    When("channel", ("table",), require=("table_id",)),
    When("channel", ("lobby",), forbid=("table_id",)),
)


@message("chat_send", "client", "ok")
class ChatSend(Message):
    """Say something in the lobby or at a table."""

    _RULES = CHAT_RULES
    channel: Channel = field(Choice(Channel))
    table_id: int | None = field(Optional(TABLE_ID), "for the table channel", default=None)
    text: str = field(CHAT_TEXT)


@message("chat", "server")
class Chat(Message):
    """A chat line; ``sender`` absent for a notice from the server."""

    _RULES = CHAT_RULES
    channel: Channel = field(Choice(Channel))
    table_id: int | None = field(Optional(TABLE_ID), default=None)
    sender: str | None = field(Optional(NAME), default=None)
    text: str = field(CHAT_TEXT)


# -- tournaments (docs/rules.md §2.12) ---------------------------------------------------
MAX_ENTRANTS = 64
MAX_SESSIONS = 16
SESSION = Int(1, MAX_SESSIONS)
TOURNAMENT_PAGE = 50  # tournaments in one tournament_list
TABLE_POINTS = Int(0, 48 * MAX_SESSIONS)  # ×12: 48 / 24 / 12 / 0 a session


@record
class TournamentInfo(Record):
    """A club tournament as its list shows it."""

    tournament_id: int = field(TOURNAMENT_ID)
    name: str = field(Str(30))
    organiser: str = field(Str(24))
    state: TournamentState = field(Choice(TournamentState))
    sessions: int = field(SESSION)
    session: int = field(Int(0, MAX_SESSIONS), "the session in play, or the last played; 0 none")
    hands: int = field(Int(1, 16), "a session's hands at most")
    minutes: int = field(Int(1, 600), "a session's time limit")
    entrants: int = field(Int(0, MAX_ENTRANTS))
    entered: bool = field(Bool(), "the asking player is entered")


@record
class TournamentLine(Record):
    """One line of a tournament's standings."""

    rank: int = field(Int(1, MAX_ENTRANTS), "equal lines share a rank")
    name: str = field(NAME)
    table_points: int = field(TABLE_POINTS, "×12 (48 for a first place): shown divided by 12")
    score: int = field(POINTS)
    places: tuple[int, ...] = field(
        ListOf(Int(0, MAX_SESSIONS), 4, 4), "how many 1st, 2nd, 3rd, 4th places"
    )
    best: int = field(POINTS, "the best single session's score")
    sessions: int = field(Int(0, MAX_SESSIONS), "sessions with a result")
    dropped: bool = field(Bool())


@record
class TournamentTable(Record):
    """One table of a session: its players by place (East first) and, once its match
    has ended, their scores and table points."""

    session: int = field(SESSION)
    number: int = field(Int(1, MAX_ENTRANTS // 4))
    players: tuple[str, ...] = field(ListOf(NAME, 4, 4), "by place, East first; bots as 'bot'")
    table_id: int | None = field(Optional(TABLE_ID), "once open", default=None)
    match_id: int | None = field(Optional(ID), "once its match has ended", default=None)
    scores: tuple[int, ...] | None = field(Optional(POINTS_PER_SEAT), default=None)
    table_points: tuple[int, ...] | None = field(
        Optional(ListOf(Int(0, 48), 4, 4)), "×12", default=None
    )
    absent: tuple[bool, ...] | None = field(
        Optional(ListOf(Bool(), 4, 4)),
        "who was not there when the session started (a bot played for them)",
        default=None,
    )


@message("list_tournaments", "client", "tournament_list")
class ListTournaments(Message):
    """The server's tournaments, newest first."""


@message("tournament_list", "server")
class TournamentList(Message):
    tournaments: tuple[TournamentInfo, ...] = field(ListOf(Struct(TournamentInfo), TOURNAMENT_PAGE))


@message("enter_tournament", "client", "ok")
class EnterTournament(Message):
    """Register for a tournament while its registration is open (players, not guests)."""

    tournament_id: int = field(TOURNAMENT_ID)


@message("withdraw_tournament", "client", "ok")
class WithdrawTournament(Message):
    """Take one's entry back while registration is open."""

    tournament_id: int = field(TOURNAMENT_ID)


@message("get_tournament", "client", "tournament_detail")
class GetTournament(Message):
    """A tournament's standings and one session's tables (default: the current one)."""

    tournament_id: int = field(TOURNAMENT_ID)
    session: int | None = field(Optional(SESSION), default=None)


@message("tournament_detail", "server")
class TournamentDetail(Message):
    tournament: TournamentInfo = field(Struct(TournamentInfo))
    standings: tuple[TournamentLine, ...] = field(ListOf(Struct(TournamentLine), MAX_ENTRANTS))
    session: int = field(Int(0, MAX_SESSIONS), "the session of ``tables``; 0 none yet")
    tables: tuple[TournamentTable, ...] = field(ListOf(Struct(TournamentTable), MAX_ENTRANTS // 4))
    deals: tuple[str, ...] | None = field(
        Optional(ListOf(Hex(64, 64), 16)),
        "a duplicate session's deals, each its walls' commitment bound to hand k of match 0 "
        "(docs/rules.md §2.14), published from the session's start",
        default=None,
    )
    scale: tuple[int, ...] | None = field(
        Optional(ListOf(Int(1, 10_000), 30)),
        "a duplicate tournament's step scale (docs/rules.md §2.14), its thresholds in "
        "points; empty: no scale, the comparison itself is the score",
        default=None,
    )


@message("tournament_seated", "server")
class TournamentSeated(Message):
    """Where you sit in a tournament's next session: sent when the session is seated,
    and again with ``table_id`` when its table opens (join it with ``join_table``)."""

    tournament_id: int = field(TOURNAMENT_ID)
    session: int = field(SESSION)
    table_number: int = field(Int(1, MAX_ENTRANTS // 4))
    place: int = field(SEAT, "0 East, 1 South, 2 West, 3 North (docs/rules.md §1.5)")
    table_id: int | None = field(Optional(TABLE_ID), "once the table is open", default=None)


@message("create_tournament", "client", "tournament_detail")
class CreateTournament(Message):
    """A new tournament, open for registration (players the host allows to organise)."""

    name: str = field(Str(30))
    sessions: int = field(SESSION)
    hands: int = field(Int(1, 16), "a session's hands at most")
    minutes: int = field(Int(1, 600), "a session's time limit")
    drawn: bool = field(Bool(), "session 1 drawn at random; false: by entry order")
    leaders_last: bool = field(Bool(), "the last session puts the leaders together (高高碰)")
    spectators: bool = field(Bool(), "others may watch its tables")
    duplicate: bool | None = field(
        Optional(Bool()),
        "every table of a session plays the same deals, scored against the field "
        "(docs/rules.md §2.14; absent: not duplicate)",
        default=None,
    )
    scale: str | None = field(
        Optional(Str(200)),
        "a duplicate tournament's scale: `steps` (the default), `raw`, or rising "
        "thresholds in points, `10,20,40`",
        default=None,
    )


@message("manage_tournament", "client", "ok")
class ManageTournament(Message):
    """The organiser opens or closes registration, starts the tournament, or drops a
    player (``name``)."""

    _RULES = (
        When("action", (TournamentAction.DROP,), require=("name",)),
        When(
            "action",
            tuple(a for a in TournamentAction if a is not TournamentAction.DROP),
            forbid=("name",),
        ),
    )
    tournament_id: int = field(TOURNAMENT_ID)
    action: TournamentAction = field(Choice(TournamentAction))
    name: str | None = field(Optional(NAME), "the player to drop", default=None)
