"""The table's events, one reducer each: the next ``TableView`` after an event.

Each reducer takes the event's wire fields as keyword arguments (protocol.messages'
event records), so filling the model from a message is one call:
``apply_event(view, body.TAG, **fields)``. A reducer never fails on a view that is out
of step (a tile it should remove is missing): the next snapshot puts it right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from gbmj_tui.model import (
    FACE_DOWN_KONG,
    TIMERS,
    FanLine,
    MeldModel,
    PromptView,
    ResultView,
    TableView,
    TimerView,
    sort_tiles,
)
from protocol.messages import ActionChoice
from protocol.vocabulary import TableStatus, TimerClass


def _remove(tiles: tuple[int, ...], *gone: int) -> tuple[int, ...]:
    # A tile missing here means the view is out of step; the next snapshot resyncs it,
    # so drawing on beats crashing.
    out = list(tiles)
    for t in gone:
        if t in out:
            out.remove(t)
    return tuple(out)


def _timed(view: TableView, seats: tuple[int, ...], timer: TimerClass) -> TableView:
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
    commitment: str | None = None,
    **_: Any,
) -> TableView:
    """A new hand: clear hands, melds, flowers, discards; set round, dealer, winds, and
    keep the wall's commitment to check the wall against when it is revealed."""
    seats = tuple(
        replace(s, wind=w, concealed_count=0, melds=(), flowers=(), discards=(), taken=())
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
        dice=tuple((a, b) for a, b in dice),
        commitment=commitment,
        status=TableStatus.PLAYING,
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
        view = _timed(view, (seat,), TimerClass.FIRST_DISCARD)
    return view


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
    return _timed(replace(view, turn=seat, offer=None), (seat,), TimerClass.TURN)


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
    return _timed(view, others, TimerClass.CLAIM_WINDOW)


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
    if giver.discards and giver.discards[-1] == claimed_tile:  # marked, not removed
        view = view.with_seat(from_seat, taken=(*giver.taken, len(giver.discards) - 1))
    own = _remove(tiles, claimed_tile)
    if seat == view.me:
        hand = view.hand if view.drawn is None else sort_tiles((*view.hand, view.drawn))
        view = replace(view, hand=_remove(hand, *own), drawn=None)
    s = view.seats[seat]
    meld = MeldModel(
        kind=meld_kind,
        tile=tiles[0],
        claimed_from=(seat - from_seat) % 4,
        claimed_tile=claimed_tile,
    )
    view = view.with_seat(
        seat, melds=(*s.melds, meld), concealed_count=max(s.concealed_count - len(own), 0)
    )
    view = replace(view, turn=seat, last_discard=None, offer=None, prompt=None)
    return _timed(view, (seat,), TimerClass.TURN)


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
    meld = MeldModel(kind="kong", tile=tile, concealed=True)
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
    melds: Iterable[Iterable[MeldModel | None]] = ((), (), (), ()),
    outcome: str | None = None,
    points: Iterable[int] | None = None,
    **_: Any,
) -> TableView:
    """Every hand revealed (concealed tiles and melds, concealed kongs face up), and the
    hand's points (an escape's penalty too)."""
    result = view.result or ResultView(outcome=outcome or "exhaustive_draw")
    result = replace(
        result,
        hands=tuple(sort_tiles(h) for h in concealed),
        # (a sealed duplicate hand's end keeps another seat's concealed kong face down)
        melds=tuple(tuple(FACE_DOWN_KONG if x is None else x for x in ms) for ms in melds),
        flowers=tuple(s.flowers for s in view.seats),
        points=result.points if points is None else tuple(points),
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
    actions: Iterable[ActionChoice],
    timer: TimerClass,
    ms_left: int | None,
    seq: int = 0,
    reserve_ms: int | None = None,
    **_: Any,
) -> TableView:
    """The server asks the viewer to act: its legal actions and the time left (of
    which ``reserve_ms`` is the player's time bank).

    In a claim window the tile on offer and its discarder come from the table's offer.
    """
    claim = view.offer is not None and timer == TimerClass.CLAIM_WINDOW
    seat, tile = view.offer if view.offer is not None and claim else (None, None)
    prompt = PromptView(tuple(actions), timer, ms_left or 0, seq, tile, seat, reserve_ms or 0)
    me = view.viewpoint
    timer_view = None if ms_left is None else TimerView((me,), timer, ms_left, ms_left)
    return replace(view, prompt=prompt, timer=timer_view)
