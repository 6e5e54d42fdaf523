"""The client's view model: what one viewer sees of a table, as small immutable values.

The widgets draw these values and nothing else. The model is filled from the wire
(gbmj_tui.wire): a ``snapshot`` builds a ``TableView`` and each event kind has one
reducer (gbmj_tui.reducers) that returns the next one.

Seats are absolute (0-3, turn order). The screen places them relative to the viewer:
``RIGHT`` is the next seat in turn (下家), ``LEFT`` the previous (上家).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gbmj_tui.i18n import tr, wind_name
from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import Presence, TableStatus, TimerClass

# Where a seat sits as seen from the viewer (relative = (seat - viewer) mod 4).
BOTTOM, RIGHT, TOP, LEFT = 0, 1, 2, 3

# The timer classes in the order of ``TableView.timer_ms``.
TIMERS: tuple[TimerClass, ...] = tuple(TimerClass)


@dataclass(frozen=True, slots=True)
class MeldModel:
    """A declared meld as a viewer sees it.

    ``tile`` is the lowest tile (chow) or the tile (pung, kong); ``None`` for another
    seat's concealed kong. ``claimed_from`` is relative to the owner (1 left, 2 opposite,
    3 right, 0 nobody), as on the wire.
    """

    kind: str  # "chow" | "pung" | "kong"
    tile: int | None
    concealed: bool = False
    claimed_from: int = 0
    claimed_tile: int | None = None
    added: bool = False

    @property
    def tiles(self) -> tuple[int | None, ...]:
        t = self.tile
        if self.kind == "chow":
            assert t is not None
            return (t, t + 1, t + 2)
        return (t,) * (4 if self.kind == "kong" else 3)


FACE_DOWN_KONG = MeldModel("kong", None, concealed=True)  # another seat's concealed kong


@dataclass(frozen=True, slots=True)
class SeatModel:
    """One seat as the client keeps it: the protocol's ``SeatView`` (public information
    only, plus a tile count) with who plays it, their score and presence, folded from
    the snapshot and the events."""

    seat: int
    name: str = ""
    wind: int = Tile.E  # seat wind for the hand, a wind tile code (27-30) as on the wire
    score: int = 0
    concealed_count: int = 0
    melds: tuple[MeldModel, ...] = ()
    flowers: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()
    # The places in ``discards`` of tiles another seat claimed: they stay in the pool,
    # marked as taken, so that whose discard was claimed stays in sight.
    taken: tuple[int, ...] = ()
    bot: bool = False
    presence: Presence = Presence.ONLINE
    level: int | None = None  # a player's level (docs/rules.md §2.7), shown beside the name
    ready: bool = False  # before the match: the player said ready
    bot_level: str | None = None  # a bot's level, before the match
    # The seat's concealed tiles where the viewer may see them (a replay face up, or a
    # hand that has ended), sorted; the tile just drawn apart.
    shown: tuple[int, ...] | None = None
    shown_drawn: int | None = None

    @property
    def pool(self) -> tuple[int, ...]:
        """The discards still in the pool: a claimed one lies in its claimer's meld."""
        if not self.taken:
            return self.discards
        return tuple(t for i, t in enumerate(self.discards) if i not in self.taken)

    @property
    def connected(self) -> bool:
        return self.presence is not Presence.OFFLINE

    @property
    def auto_play(self) -> bool:
        return self.presence is Presence.AUTO_PLAY


@dataclass(frozen=True, slots=True)
class PromptView:
    """The legal actions the server offers the viewer now, and the time to answer."""

    actions: tuple[ActionChoice, ...]
    timer: TimerClass
    ms_left: int
    seq: int = 0
    tile: int | None = None  # the discard (or added-kong tile) on offer, for a claim
    from_seat: int | None = None  # who discarded it
    reserve_ms: int = 0  # of ms_left, the player's time bank (docs/rules.md §2.3)

    @property
    def is_claim(self) -> bool:
        """A claim window: answer a discard (or a kong to rob) rather than play a turn."""
        return self.timer == "claim_window"

    def of_kind(self, kind: str) -> tuple[ActionChoice, ...]:
        return tuple(a for a in self.actions if a.kind == kind)

    def allows(self, kind: str) -> bool:
        return any(a.kind == kind for a in self.actions)


@dataclass(frozen=True, slots=True)
class TimerView:
    """A countdown the table shows: whose decision, which timer class, time left."""

    seats: tuple[int, ...]
    timer: TimerClass
    ms_left: int
    total_ms: int


@dataclass(frozen=True, slots=True)
class FanLine:
    """One fan of a scored hand: id (protocol.fans) and how many times it counts."""

    fan_id: int
    count: int = 1


@dataclass(frozen=True, slots=True)
class ResultView:
    """A hand's end: every hand revealed, the win (if any), the fans, the points."""

    outcome: str = "win"  # win | exhaustive_draw | escape
    winner: int | None = None
    from_seat: int | None = None  # None: self-drawn
    win_tile: int | None = None
    escaper: int | None = None
    fans: tuple[FanLine, ...] = ()  # flowers are fan 81 (花牌), as on the wire
    total: int = 0
    points: tuple[int, ...] = (0, 0, 0, 0)
    coins: tuple[int, ...] | None = None  # what each seat won or paid, at a stake table
    fees: tuple[int, ...] | None = None  # the table fee each seat paid (within ``coins``)
    scores: tuple[int, ...] | None = None  # match totals after the hand
    hands: tuple[tuple[int, ...], ...] = ((), (), (), ())
    melds: tuple[tuple[MeldModel, ...], ...] = ((), (), (), ())
    flowers: tuple[tuple[int, ...], ...] = ((), (), (), ())
    hand_id: int | None = None  # for the replay (``get_hand``)
    # The revealed wall and salt against the commitment announced before the deal
    # (docs/rules.md §1.1): True verified, False not, None not checked.
    wall_verified: bool | None = None
    # A duplicate deal still to be played at another table (docs/rules.md §2.14): the
    # others' concealed tiles and the walls are revealed later, in the history.
    sealed: bool = False


def _four_seats() -> tuple[SeatModel, ...]:
    return tuple(SeatModel(seat=s, wind=Tile.E + s) for s in range(4))


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one viewer (a player, or a spectator when ``me`` is None) sees."""

    seats: tuple[SeatModel, ...] = field(default_factory=_four_seats)
    me: int | None = None
    hand: tuple[int, ...] = ()  # the viewer's concealed tiles, sorted, drawn tile apart
    drawn: int | None = None
    table_id: int = 0
    table_name: str = ""
    owner: str = ""  # the table's owner, by name
    viewer: str = ""  # the viewer's own name (seated or not)
    settings: m.TableSettings | None = None  # the owner's choices
    cloth: str | None = None  # the board's look, from the owner's tablecloth
    status: TableStatus = TableStatus.WAITING  # a match runs, or the seats fill
    stake: int = 0  # coins per point; 0: a free table
    tournament: int | None = None  # the tournament whose table this is: no items here
    round_number: int = 1  # 1-4: 东风圈 … 北风圈
    hand_number: int = 1  # 1-4 within the round
    prevailing_wind: int = Tile.E  # a wind tile code, as on the wire
    dealer: int = 0
    wall_count: int = 0
    commitment: str | None = None  # the wall's, announced before the deal
    dice: tuple[tuple[int, int], ...] = ()
    turn: int | None = None
    last_discard: int | None = None  # the seat whose newest discard is the table's last
    offer: tuple[int, int] | None = None  # (seat, tile) that may be claimed or robbed
    timer_ms: tuple[int, int, int] | None = None  # the table's timers; None: untimed
    playing: bool = False  # a hand is in play (else waiting, or between hands)
    prompt: PromptView | None = None
    timer: TimerView | None = None
    result: ResultView | None = None
    seq: int = 0
    unseen: tuple[int, ...] | None = None  # the tile counter's counts (34), while it runs
    extension_armed: bool = False  # the viewer armed a timer extension for this match

    @property
    def viewpoint(self) -> int:
        """The seat drawn at the bottom: the player's own, or seat 0 for a spectator."""
        return 0 if self.me is None else self.me

    def seat_at(self, position: int) -> SeatModel:
        """The seat at a position relative to the viewer (BOTTOM, RIGHT, TOP, LEFT)."""
        return self.seats[(self.viewpoint + position) % 4]

    def position_of(self, seat: int) -> int:
        return (seat - self.viewpoint) % 4

    def with_seat(self, seat: int, **changes: Any) -> TableView:
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], **changes)
        return replace(self, seats=tuple(seats))

    @property
    def is_owner(self) -> bool:
        return bool(self.viewer) and self.viewer == self.owner

    @property
    def match_running(self) -> bool:
        """A match runs at the table (a hand in play, or between two hands)."""
        return self.status == TableStatus.PLAYING or self.playing

    def who(self, seat: int, lang: str) -> str:
        """``东 Alice``: a seat's wind and player, as the table names them."""
        s = self.seats[seat]
        return f"{wind_name(s.wind, lang)} {s.name or tr('empty', lang)}"


def hand_name(round_number: int, hand_number: int, lang: str) -> str:
    """A hand as players name it (docs/rules.md §1.5): ``南风西局`` (the round's wind,
    then the wind of the hand's place in the round: East for its first hand …) /
    ``South round, hand 3``."""
    return tr("{wind} round, hand {hand}", lang).format(
        wind=wind_name(Tile.E + round_number - 1, lang),
        hand=hand_number,
        hand_wind=wind_name(Tile.E + hand_number - 1, lang),
    )


def round_label(view: TableView, lang: str) -> str:
    """The current (or last) hand's name: ``南风西局`` / ``South round, hand 3``."""
    return hand_name(view.round_number, view.hand_number, lang)


def sort_tiles(tiles: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(Tile(t) for t in tiles))
