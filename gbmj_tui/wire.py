"""Filling the view model from protocol messages: one function per message.

``from_snapshot`` builds a ``TableView``; ``apply_event_message``, ``apply_prompt`` and
``apply_hand_result`` return the next one. The model's reducers take the events' own
field names, so this module only unpacks records.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from typing import Any

from gbmj_tui import model
from gbmj_tui.model import Choice, FanLine, MeldView, ResultView, SeatView, TableView
from protocol import messages as m
from protocol.tiles import Tile


def meld_from_wire(meld: m.MeldView | None) -> MeldView:
    """A wire meld; ``None`` (another seat's concealed kong) is a face-down kong."""
    if meld is None:
        return MeldView("kong", None, concealed=True)
    return MeldView(
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


def from_snapshot(msg: m.Snapshot) -> TableView:
    """Everything the snapshot shows: seats, players, the hand in play, the viewer's tiles."""
    info, game = msg.table, msg.game
    seats = []
    for s in range(4):
        lobby = info.seats[s]
        player = msg.players[s] if msg.players else None
        seat = SeatView(
            seat=s,
            name=player.name if player else (lobby.name or ""),
            wind=Tile.E + s,
            score=player.score if player else 0,
            bot=player.bot if player else lobby.bot,
            connected=player.presence != "offline" if player else True,
            auto_play=player.presence == "auto_play" if player else False,
            level=player.level if player else lobby.level,
        )
        if game is not None:
            g = game.seats[s]
            seat = replace(
                seat,
                wind=g.wind,
                concealed_count=g.concealed_count,
                melds=tuple(meld_from_wire(x) for x in g.melds),
                flowers=tuple(g.flowers),
                discards=tuple(g.discards),
            )
        seats.append(seat)
    view = TableView(
        seats=tuple(seats),
        me=msg.seat,
        table_id=info.table_id,
        table_name=info.settings.name,
        timer_ms=timer_ms(info.settings),
        seq=msg.seq,
    )
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
    return model.apply_event(view, body.TAG, seq=msg.seq, **_fields(body))


def apply_prompt(view: TableView, msg: m.Prompt) -> TableView:
    """The view with the server's prompt of legal actions."""
    return model.on_prompt(
        view,
        actions=tuple(Choice(a.kind, a.tile) for a in msg.actions),
        timer=msg.timer,
        ms_left=msg.ms_left,
        seq=msg.seq,
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
        scores=tuple(msg.scores),
        hands=tuple(model.sort_tiles(h) for h in msg.concealed),
        melds=tuple(tuple(meld_from_wire(x) for x in ms) for ms in msg.melds),
        flowers=tuple(tuple(f) for f in msg.flowers),
    )
    seats = tuple(replace(s, score=score) for s, score in zip(view.seats, msg.scores, strict=True))
    return replace(view, seats=seats, result=result, playing=False, prompt=None, timer=None)


def action_message(view: TableView, choice: Choice) -> m.Action:
    """The ``action`` answering the view's prompt with ``choice``."""
    seq = view.prompt.seq if view.prompt is not None else view.seq
    return m.Action(table_id=view.table_id, seq=seq, kind=choice.kind, tile=choice.tile)
