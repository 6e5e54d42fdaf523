"""The client's view model: what one viewer sees of a table, as small immutable values.

The widgets draw these values and nothing else. The model is filled from the wire: a
``snapshot`` builds a ``TableView``, and each event kind of docs/vocabulary.md has one
reducer here (``on_discard``, ``on_draw``...) that returns the next ``TableView``. The
reducers take the event's own fields as keyword arguments, so filling the model from a
protocol message is one call: ``EVENT_REDUCERS[event.kind](view, **fields)``.

Seats are absolute (0-3, turn order). The screen places them relative to the viewer:
``RIGHT`` is the next seat in turn (下家), ``LEFT`` the previous (上家).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from protocol.tiles import Tile
from protocol.vocabulary import TimerClass

# Where a seat sits as seen from the viewer (relative = (seat - viewer) mod 4).
BOTTOM, RIGHT, TOP, LEFT = 0, 1, 2, 3

WINDS_ZH = "东南西北"
WINDS_EN = "ESWN"

# The timer classes in the order of ``TableView.timer_ms``.
TIMERS: tuple[TimerClass, ...] = tuple(TimerClass)


@dataclass(frozen=True, slots=True)
class MeldView:
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


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it: public information only, plus a tile count."""

    seat: int
    name: str = ""
    wind: int = Tile.E  # seat wind for the hand, a wind tile code (27-30) as on the wire
    score: int = 0
    concealed_count: int = 0
    melds: tuple[MeldView, ...] = ()
    flowers: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()
    bot: bool = False
    connected: bool = True
    auto_play: bool = False
    level: int | None = None  # a player's level (SPEC §2.7), shown beside the name


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action of a prompt (docs/vocabulary.md: kind + optional tile)."""

    kind: str
    tile: int | None = None


@dataclass(frozen=True, slots=True)
class PromptView:
    """The legal actions the server offers the viewer now, and the time to answer."""

    actions: tuple[Choice, ...]
    timer: TimerClass
    ms_left: int
    seq: int = 0
    tile: int | None = None  # the discard (or added-kong tile) on offer, for a claim
    from_seat: int | None = None  # who discarded it

    @property
    def is_claim(self) -> bool:
        """A claim window: answer a discard (or a kong to rob) rather than play a turn."""
        return self.timer == "claim_window"

    def of_kind(self, kind: str) -> tuple[Choice, ...]:
        return tuple(a for a in self.actions if a.kind == kind)

    def allows(self, kind: str) -> bool:
        return any(a.kind == kind for a in self.actions)


@dataclass(frozen=True, slots=True)
class TimerView:
    """A countdown the table shows: whose decision, which timer class, time left."""

    seats: tuple[int, ...]
    timer: str
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
    scores: tuple[int, ...] | None = None  # match totals after the hand
    hands: tuple[tuple[int, ...], ...] = ((), (), (), ())
    melds: tuple[tuple[MeldView, ...], ...] = ((), (), (), ())
    flowers: tuple[tuple[int, ...], ...] = ((), (), (), ())


def _four_seats() -> tuple[SeatView, ...]:
    return tuple(SeatView(seat=s, wind=Tile.E + s) for s in range(4))


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one viewer (a player, or a spectator when ``me`` is None) sees."""

    seats: tuple[SeatView, ...] = field(default_factory=_four_seats)
    me: int | None = None
    hand: tuple[int, ...] = ()  # the viewer's concealed tiles, sorted, drawn tile apart
    drawn: int | None = None
    table_id: int = 0
    table_name: str = ""
    round_number: int = 1  # 1-4: 东风圈 … 北风圈
    hand_number: int = 1  # 1-4 within the round
    prevailing_wind: int = Tile.E  # a wind tile code, as on the wire
    dealer: int = 0
    wall_count: int = 0
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

    def seat_at(self, position: int) -> SeatView:
        """The seat at a position relative to the viewer (BOTTOM, RIGHT, TOP, LEFT)."""
        return self.seats[(self.viewpoint + position) % 4]

    def position_of(self, seat: int) -> int:
        return (seat - self.viewpoint) % 4

    def with_seat(self, seat: int, **changes: Any) -> TableView:
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], **changes)
        return replace(self, seats=tuple(seats))


def wind_name(wind: int, lang: str = "zh") -> str:
    """东/E for a wind tile code (27-30)."""
    index = (wind - Tile.E) % 4
    return WINDS_ZH[index] if lang == "zh" else WINDS_EN[index]


def round_label(view: TableView, lang: str = "zh") -> str:
    """``南风圈 第3盘`` / ``South round, hand 3``."""
    index = (view.prevailing_wind - Tile.E) % 4
    if lang == "zh":
        return f"{WINDS_ZH[index]}风圈 第{view.hand_number}盘"
    names = ("East", "South", "West", "North")
    return f"{names[index]} round, hand {view.hand_number}"


def sort_tiles(tiles: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(Tile(t) for t in tiles))


def _remove(tiles: tuple[int, ...], *gone: int) -> tuple[int, ...]:
    # A tile missing here means the view is out of step; the next snapshot resyncs it,
    # so drawing on beats crashing.
    out = list(tiles)
    for t in gone:
        if t in out:
            out.remove(t)
    return tuple(out)


# -- reducers: one per event kind of docs/vocabulary.md -------------------------------------
# Each takes the event's wire fields as keyword arguments (protocol.messages' event
# records), so ``apply_event(view, body.kind, **fields)`` fills the model from a message.


def _timed(view: TableView, seats: tuple[int, ...], timer: str) -> TableView:
    """The countdown the table shows for a decision the viewer is not prompted for."""
    if view.timer_ms is None or not seats:
        return replace(view, timer=None)
    total = view.timer_ms[TIMERS.index(timer)]
    return replace(view, timer=TimerView(seats, timer, total, total))


def on_hand_start(
    view: TableView,
    *,
    round_number: int,
    hand_number: int,
    dealer: int,
    seat_winds: Iterable[int],
    prevailing_wind: int,
    dice: Iterable[tuple[int, int]] = (),
    **_: Any,
) -> TableView:
    """A new hand: clear hands, melds, flowers, discards; set round, dealer, winds."""
    seats = tuple(
        replace(s, wind=w, concealed_count=0, melds=(), flowers=(), discards=())
        for s, w in zip(view.seats, seat_winds, strict=True)
    )
    return replace(
        view,
        seats=seats,
        hand=(),
        drawn=None,
        round_number=round_number,
        hand_number=hand_number,
        dealer=dealer,
        prevailing_wind=prevailing_wind,
        dice=tuple(tuple(d) for d in dice),  # type: ignore[misc]
        wall_count=144,
        turn=dealer,
        last_discard=None,
        offer=None,
        playing=True,
        prompt=None,
        result=None,
        unseen=None,  # a tile counter runs for one hand
    )


def on_deal(
    view: TableView,
    *,
    seat: int,
    count: int,
    tiles: Iterable[int] | None = None,
    **_: Any,
) -> TableView:
    """A seat's starting tiles: the viewer's own tiles, or only the count for others.

    Only the viewer's own deal carries tiles, so it also says which seat is the viewer's
    for this hand (the match seats players anew each round).
    """
    if tiles is not None and view.me is not None:
        view = replace(view, me=seat, hand=sort_tiles(tiles), drawn=None)
    view = view.with_seat(seat, concealed_count=count)
    view = replace(view, wall_count=max(view.wall_count - count, 0))
    if seat == view.dealer:
        view = _timed(view, (seat,), "first_discard")
    return view


def seat_player_at(view: TableView, seat: int, name: str) -> TableView:
    """The view with the player called ``name`` shown at ``seat``: swaps who sits where
    when the names were placed by lobby seat rather than by the hand's seat."""
    here = next((s.seat for s in view.seats if s.name == name), None)
    if here is None or here == seat:
        return view
    a, b = view.seats[here], view.seats[seat]
    keep = ("seat", "wind", "concealed_count", "melds", "flowers", "discards")
    who = [f for f in SeatView.__dataclass_fields__ if f not in keep]
    view = view.with_seat(here, **{f: getattr(b, f) for f in who})
    return view.with_seat(seat, **{f: getattr(a, f) for f in who})


def on_flower(view: TableView, *, seat: int, tile: int, **_: Any) -> TableView:
    """A flower shown and set aside (its replacement comes as a draw)."""
    s = view.seats[seat]
    if seat == view.me:
        if view.drawn == tile:
            view = replace(view, drawn=None)
        elif tile in view.hand:
            view = replace(view, hand=_remove(view.hand, tile))
    return view.with_seat(
        seat, flowers=(*s.flowers, tile), concealed_count=max(s.concealed_count - 1, 0)
    )


def on_draw(
    view: TableView, *, seat: int, tile: int | None = None, replacement: bool = False, **_: Any
) -> TableView:
    """A seat draws from the wall (front, or back for a replacement); others see no tile."""
    s = view.seats[seat]
    if seat == view.me and tile is not None:
        if view.drawn is not None:  # a second draw in a row (after a flower): keep both
            view = replace(view, hand=sort_tiles((*view.hand, view.drawn)))
        view = replace(view, drawn=tile)
    view = view.with_seat(seat, concealed_count=s.concealed_count + 1)
    view = replace(view, wall_count=max(view.wall_count - 1, 0), prompt=None)
    if replacement:  # a flower's or a kong's replacement: the turn does not change
        return view
    return _timed(replace(view, turn=seat, offer=None), (seat,), "turn")


def _out_of_hand(view: TableView, tile: int) -> TableView:
    """The viewer's tile leaves the hand; a drawn tile that stays is sorted in."""
    if view.drawn == tile:
        return replace(view, drawn=None)
    rest = _remove(view.hand, tile)
    if view.drawn is not None:
        rest = (*rest, view.drawn)
    return replace(view, hand=sort_tiles(rest), drawn=None)


def on_discard(view: TableView, *, seat: int, tile: int, **_: Any) -> TableView:
    """A discard: out of the hand, onto the seat's pool, marked as the last discard."""
    s = view.seats[seat]
    if seat == view.me:
        view = _out_of_hand(view, tile)
    view = view.with_seat(
        seat, discards=(*s.discards, tile), concealed_count=max(s.concealed_count - 1, 0)
    )
    view = replace(view, last_discard=seat, offer=(seat, tile), prompt=None)
    others = tuple(x for x in range(4) if x != seat)
    return _timed(view, others, "claim_window")


def _on_claim(
    view: TableView,
    meld_kind: str,
    *,
    seat: int,
    tiles: Iterable[int],
    claimed_tile: int,
    from_seat: int,
    **_: Any,
) -> TableView:
    tiles = sort_tiles(tiles)
    giver = view.seats[from_seat]
    if giver.discards and giver.discards[-1] == claimed_tile:  # the claimed tile leaves
        view = view.with_seat(from_seat, discards=giver.discards[:-1])
    own = _remove(tiles, claimed_tile)
    if seat == view.me:
        hand = view.hand if view.drawn is None else sort_tiles((*view.hand, view.drawn))
        view = replace(view, hand=_remove(hand, *own), drawn=None)
    s = view.seats[seat]
    meld = MeldView(
        kind=meld_kind,
        tile=tiles[0],
        claimed_from=(seat - from_seat) % 4,
        claimed_tile=claimed_tile,
    )
    view = view.with_seat(
        seat, melds=(*s.melds, meld), concealed_count=max(s.concealed_count - len(own), 0)
    )
    view = replace(view, turn=seat, last_discard=None, offer=None, prompt=None)
    return _timed(view, (seat,), "turn")


def on_chow(view: TableView, **fields: Any) -> TableView:
    return _on_claim(view, "chow", **fields)


def on_pung(view: TableView, **fields: Any) -> TableView:
    return _on_claim(view, "pung", **fields)


def on_exposed_kong(view: TableView, **fields: Any) -> TableView:
    return _on_claim(view, "kong", **fields)


def on_concealed_kong(
    view: TableView, *, seat: int, tile: int | None = None, **_: Any
) -> TableView:
    """暗杠: four tiles leave the hand; others see a face-down kong (tile None)."""
    if seat == view.me and tile is not None:
        hand = view.hand if view.drawn is None else sort_tiles((*view.hand, view.drawn))
        view = replace(view, hand=_remove(hand, tile, tile, tile, tile), drawn=None)
    s = view.seats[seat]
    meld = MeldView(kind="kong", tile=tile, concealed=True)
    view = view.with_seat(
        seat, melds=(*s.melds, meld), concealed_count=max(s.concealed_count - 4, 0)
    )
    return replace(view, prompt=None)


def on_added_kong(view: TableView, *, seat: int, tile: int, **_: Any) -> TableView:
    """加杠: the fourth tile joins the seat's exposed pung of that tile (it may be robbed)."""
    if seat == view.me:
        view = _out_of_hand(view, tile)
    s = view.seats[seat]
    melds = tuple(
        replace(m, kind="kong", added=True) if m.kind == "pung" and m.tile == tile else m
        for m in s.melds
    )
    view = view.with_seat(seat, melds=melds, concealed_count=max(s.concealed_count - 1, 0))
    return replace(view, offer=(seat, tile), prompt=None)


def on_win(
    view: TableView,
    *,
    seat: int,
    win_tile: int,
    from_seat: int | None = None,
    fans: Iterable[tuple[int, int]] = (),
    total: int = 0,
    points: Iterable[int] = (0, 0, 0, 0),
    **_: Any,
) -> TableView:
    """A win: who, on what, the fans and points (the hand's end reveals the rest)."""
    result = ResultView(
        outcome="win",
        winner=seat,
        from_seat=from_seat,
        win_tile=win_tile,
        fans=tuple(FanLine(f, c) for f, c in fans),
        total=total,
        points=tuple(points),
    )
    return replace(view, result=result, prompt=None, timer=None)


def on_exhaustive_draw(view: TableView, **_: Any) -> TableView:
    return replace(view, result=ResultView(outcome="exhaustive_draw"), prompt=None, timer=None)


def on_escape(view: TableView, *, seat: int, **_: Any) -> TableView:
    result = ResultView(outcome="escape", escaper=seat)
    return replace(view, result=result, prompt=None, timer=None)


def on_hand_end(
    view: TableView,
    *,
    concealed: Iterable[Iterable[int]] = ((), (), (), ()),
    melds: Iterable[Iterable[MeldView]] = ((), (), (), ()),
    outcome: str | None = None,
    **_: Any,
) -> TableView:
    """Every hand revealed (concealed tiles and melds, concealed kongs face up)."""
    result = view.result or ResultView(outcome=outcome or "exhaustive_draw")
    result = replace(
        result,
        hands=tuple(sort_tiles(h) for h in concealed),
        melds=tuple(tuple(m) for m in melds),
        flowers=tuple(s.flowers for s in view.seats),
    )
    return replace(view, result=result, playing=False, prompt=None, timer=None, offer=None)


EVENT_REDUCERS: dict[str, Callable[..., TableView]] = {
    "hand_start": on_hand_start,
    "deal": on_deal,
    "flower": on_flower,
    "draw": on_draw,
    "discard": on_discard,
    "chow": on_chow,
    "pung": on_pung,
    "exposed_kong": on_exposed_kong,
    "concealed_kong": on_concealed_kong,
    "added_kong": on_added_kong,
    "win": on_win,
    "exhaustive_draw": on_exhaustive_draw,
    "escape": on_escape,
    "hand_end": on_hand_end,
}


def apply_event(view: TableView, kind: str, seq: int | None = None, **fields: Any) -> TableView:
    """The next view after one event (an unknown kind leaves the view as it is)."""
    reducer = EVENT_REDUCERS.get(kind)
    if reducer is not None:
        view = reducer(view, **fields)
    return view if seq is None else replace(view, seq=seq)


def on_prompt(
    view: TableView,
    *,
    actions: Iterable[Choice],
    timer: str,
    ms_left: int | None,
    seq: int = 0,
    **_: Any,
) -> TableView:
    """The server asks the viewer to act: its legal actions and the time left.

    In a claim window the tile on offer and its discarder come from the table's offer.
    """
    seat, tile = view.offer if view.offer is not None and timer == "claim_window" else (None, None)
    prompt = PromptView(tuple(actions), timer, ms_left or 0, seq, tile, seat)
    me = view.viewpoint
    timer_view = None if ms_left is None else TimerView((me,), timer, ms_left, ms_left)
    return replace(view, prompt=prompt, timer=timer_view)
