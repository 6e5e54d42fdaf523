"""Filling the view model from protocol messages: one function per message.

``from_snapshot`` builds a ``TableView``; ``apply_event_message``, ``apply_prompt``,
``apply_hand_result`` and ``apply_table_info`` return the next one. The reducers take
the events' own field names, so this module only unpacks records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gbmj.game.personal_walls import PERSONAL_WALL_SIZE, verify_personal_commitment
from gbmj.game.wall import verify_commitment
from gbmj_tui import model, reducers
from gbmj_tui.model import FanLine, MeldModel, ResultView, SeatModel, TableView
from protocol import messages as m
from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import Presence, TableStatus


def meld_from_wire(meld: m.MeldView | None) -> MeldModel:
    """A wire meld; ``None`` (another seat's concealed kong) is a face-down kong."""
    if meld is None:
        return model.FACE_DOWN_KONG
    return MeldModel(
        kind=meld.kind,
        tile=meld.tile,
        concealed=meld.concealed,
        claimed_from=meld.claimed_from,
        claimed_tile=meld.claimed_tile,
        added=meld.added,
    )


def _model_value(value: Any) -> Any:
    """Wire melds (also nested in tuples) become model melds; other values stay."""
    if isinstance(value, m.MeldView):
        return meld_from_wire(value)
    if isinstance(value, tuple):
        return tuple(_model_value(v) for v in value)
    return value


def _fields(record: Any) -> dict[str, Any]:
    return {f.name: _model_value(getattr(record, f.name)) for f in dataclasses.fields(record)}


def timer_ms(settings: m.TableSettings) -> tuple[int, int, int] | None:
    t = settings.timers
    return (t.first_discard * 1000, t.turn * 1000, t.claim_window * 1000) if t.on else None


def lobby_seat(seat: int, lobby: m.LobbySeat) -> SeatModel:
    """A seat before the match: who sits there (by lobby seat), ready or not."""
    return SeatModel(
        seat=seat,
        name=lobby.name or "",
        wind=Tile.E + seat,
        bot=lobby.bot,
        level=lobby.level,
        ready=lobby.ready,
        bot_level=lobby.bot_level,
    )


def waiting_view(info: m.TableInfo, me: int | None) -> TableView:
    """A table whose match has not started (or has ended): its seats, no tiles."""
    return TableView(
        seats=tuple(lobby_seat(s, info.seats[s]) for s in range(4)),
        me=me,
        **table_fields(info),
    )


def table_fields(info: m.TableInfo) -> dict[str, Any]:
    """What a ``TableInfo`` says of the table itself, as ``TableView`` fields."""
    return {
        "table_id": info.table_id,
        "table_name": info.settings.name,
        "owner": info.owner,
        "status": info.status,
        "stake": info.settings.stake,
        "settings": info.settings,
        "timer_ms": timer_ms(info.settings),
        "cloth": info.cloth,
        "tournament": info.tournament_id,
    }


def apply_table_info(view: TableView, info: m.TableInfo) -> TableView:
    """The view after a ``table_update``: the table's name, owner and status; before the
    match the seats too (during one, seats are the hand's, set by snapshots and events).
    A match that has just ended leaves its last board for a clean one."""
    if info.status == TableStatus.WAITING:
        me = view.me
        if view.status == TableStatus.PLAYING and me is not None:
            # the match's seats were drawn anew: find the player's lobby seat by name
            name = view.seats[me].name
            me = next((s for s, seat in enumerate(info.seats) if seat.name == name), None)
        elif me is not None and not info.seats[me].name:
            me = None  # stood up
        return replace(waiting_view(info, me), seq=view.seq, viewer=view.viewer)
    return replace(view, **table_fields(info))


def pool_as_played(
    discards: Sequence[int], claimed: Sequence[tuple[int, int]]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A seat's pool as a live viewer saw it: the discards still there and the ones
    another seat claimed (``claimed``: place in the pool as played, tile) back at their
    places, marked as taken: (``SeatView.discards``, ``SeatView.taken``)."""
    at = dict(claimed)
    total = len(discards) + len(at)
    if len(at) != len(claimed) or any(i >= total for i in at):  # not a pool: as it came
        return tuple(discards), ()
    rest = iter(discards)
    played = tuple(at[i] if i in at else next(rest) for i in range(total))
    return played, tuple(sorted(at))


def from_snapshot(msg: m.Snapshot) -> TableView:
    """Everything the snapshot shows: seats, players, the hand in play, the viewer's tiles."""
    info, game = msg.table, msg.game
    seats = []
    for s in range(4):
        player = msg.players[s] if msg.players else None
        if player is None:
            seat = lobby_seat(s, info.seats[s])
        else:  # a match's seat: its player, not the lobby seat of the same number
            seat = SeatModel(
                seat=s,
                name=player.name,
                score=player.score,
                bot=player.bot,
                presence=Presence(player.presence),
                level=player.level,
            )
        if game is not None:
            g = game.seats[s]
            discards, taken = pool_as_played(g.discards, g.claimed or ())
            seat = replace(
                seat,
                wind=g.wind,
                concealed_count=g.concealed_count,
                melds=tuple(meld_from_wire(x) for x in g.melds),
                flowers=tuple(g.flowers),
                discards=discards,
                taken=taken,
            )
        seats.append(seat)
    view = TableView(seats=tuple(seats), me=msg.seat, seq=msg.seq, **table_fields(info))
    if game is None:
        return view
    hand: tuple[int, ...] = ()
    drawn = None
    if msg.seat is not None:
        own = game.seats[msg.seat]
        hand = tuple(own.concealed or ())
        drawn = own.drawn
        if drawn is not None and drawn in hand:  # the drawn tile is shown apart
            rest = list(hand)
            rest.remove(drawn)
            hand = tuple(rest)
    offer = (game.offer[0], game.offer[1]) if game.offer else None
    view = replace(
        view,
        hand=model.sort_tiles(hand),
        drawn=drawn,
        round_number=game.round_number,
        hand_number=game.hand_number,
        dealer=game.dealer,
        prevailing_wind=game.prevailing_wind,
        dice=tuple(game.dice),
        commitment=game.commitment,
        wall_count=game.wall_remaining,
        turn=game.to_act[0] if game.phase == "turn" and game.to_act else None,
        last_discard=offer[0] if offer else None,
        offer=offer,
        playing=game.phase != "ended",
    )
    if game.timer is not None and game.ms_left is not None:
        total = view.timer_ms[model.TIMERS.index(game.timer)] if view.timer_ms else game.ms_left
        timer = model.TimerView(tuple(game.to_act), game.timer, game.ms_left, total)
        view = replace(view, timer=timer)
    return view


def apply_event_message(view: TableView, msg: m.Event) -> TableView:
    """The view after one table event."""
    body = msg.event
    assert body.TAG is not None, "every event kind is registered with its tag"
    return reducers.apply_event(view, body.TAG, seq=msg.seq, **_fields(body))


def apply_prompt(view: TableView, msg: m.Prompt) -> TableView:
    """The view with the server's prompt of legal actions."""
    return reducers.on_prompt(
        view,
        actions=msg.actions,
        timer=msg.timer,
        ms_left=msg.ms_left,
        seq=msg.seq,
        reserve_ms=msg.reserve_ms,
    )


def apply_hand_result(view: TableView, msg: m.HandResult) -> TableView:
    """The hand's result: every hand revealed, fans, points, and the match scores."""
    result = ResultView(
        outcome=msg.outcome,
        winner=msg.winner,
        from_seat=msg.from_seat,
        win_tile=msg.win_tile,
        escaper=msg.escaper,
        fans=tuple(FanLine(f, c) for f, c in msg.fans),
        total=msg.total,
        points=tuple(msg.points),
        coins=None if msg.coins is None else tuple(msg.coins),
        fees=None if msg.fees is None else tuple(msg.fees),
        scores=tuple(msg.scores),
        hands=tuple(model.sort_tiles(h) for h in msg.concealed),
        melds=tuple(tuple(meld_from_wire(x) for x in ms) for ms in msg.melds),
        flowers=tuple(tuple(f) for f in msg.flowers),
        hand_id=msg.hand_id,
        wall_verified=None
        if msg.wall_order is None or msg.salt is None
        else wall_verified(
            view.commitment,
            msg.wall_order,
            msg.salt,
            msg.match_id,
            hand_number_in_match(msg.round_number, msg.hand_number),
        ),
        sealed=msg.wall_order is None,
    )
    seats = tuple(replace(s, score=score) for s, score in zip(view.seats, msg.scores, strict=True))
    return replace(
        view,
        seats=seats,
        result=result,
        hand_number=msg.hand_number,
        playing=False,
        prompt=None,
        timer=None,
    )


def hand_number_in_match(round_number: int, hand_number: int) -> int:
    """The hand's number in its match (1-16), as the commitment binds it."""
    return 4 * (round_number - 1) + hand_number


def wall_verified(
    announced: str | None,
    order: Sequence[int],
    salt: str,
    match_id: int | None,
    number: int,
) -> bool | None:
    """Whether the wall and salt revealed at the hand's end are what the commitment
    announced before the deal promised for hand ``number`` of match ``match_id``
    (docs/rules.md §1.1); None when this client saw no announcement (or the server did
    not say the match). The commitment sent again with the result counts for nothing: a
    server that changed the wall could send a new one with it."""
    if announced is None or match_id is None:
        return None
    if len(order) == 4 * PERSONAL_WALL_SIZE:
        return verify_personal_commitment(announced, order, salt, match_id, number)
    return verify_commitment(announced, order, salt, match_id, number)


def action_message(view: TableView, choice: ActionChoice) -> m.Action:
    """The ``action`` answering the view's prompt with ``choice``."""
    seq = view.prompt.seq if view.prompt is not None else view.seq
    return m.Action(table_id=view.table_id, seq=seq, kind=choice.kind, tile=choice.tile)
