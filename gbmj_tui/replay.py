"""A hand replayed for the screen: its steps, each as every seat and a spectator saw it.

A hand's log (``hand_log``) becomes a replay file's hand (``gbmj.replay.hand_from_log``:
the actions played again on the revealed wall with the rules), whose events are the
live game's. Each event goes, in the form its viewer would have been sent
(``gbmj.game.events.for_viewer``), through the same reducers that follow a live table
(gbmj_tui.reducers), once for each seat and once for a spectator: a step of the replay
is what the live client showed at that moment, and the hand's own view of a seat is its
player's. Face up, every seat's concealed tiles come from that seat's own view.

Steps: the deal (with its flower replacements) is step 0; then each draw, discard,
claim, kong, win, draw of the wall or escape is one step (a flower and its replacement
join the draw that brought the flower; the hand's end joins the win).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text

from gbmj.game.events import SPECTATOR, for_viewer
from gbmj.replay import ReplayHand, hand_state
from gbmj_tui.model import SeatModel, TableView
from gbmj_tui.narrate import draw_line, event_line
from gbmj_tui.wire import apply_event_message, wall_verified
from protocol import messages as m
from protocol.tiles import Tile
from protocol.vocabulary import TableStatus

PUBLIC = 4  # the spectator's place in ``Step.views``, after seats 0-3
_DEAL = (m.HandStart, m.Deal, m.Flower)


@dataclass(frozen=True, slots=True)
class Step:
    """The table after one step, as seats 0-3 and a spectator (``PUBLIC``) saw it, and
    what happened in words: as everyone saw it (``line``) and face up (``line_face_up``)."""

    views: tuple[TableView, ...]
    line: Text | None
    line_face_up: Text | None


@dataclass(frozen=True, slots=True)
class HandReplay:
    hand: ReplayHand
    steps: tuple[Step, ...]
    viewer: int | None  # the seat whose own view the replay shows (None: a spectator's)
    match_id: int  # the hand's match, whose id its commitment binds

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    def view(self, index: int, *, face_up: bool) -> TableView:
        """The table after step ``index``: the viewer's own view, or every hand face up
        (the hand's end shows every hand in both)."""
        step = self.steps[max(0, min(index, self.last))]
        own = step.views[PUBLIC if self.viewer is None else self.viewer]
        ended = own.result is not None and not own.playing
        if ended and own.result is not None:
            wall, r = self.hand.wall, self.hand.result
            result = replace(
                own.result,
                coins=r.coins,
                wall_verified=wall_verified(
                    wall.commitment, wall.order, wall.salt, self.match_id, self.hand.number
                ),
            )
            own = replace(own, result=result)
        seats = []
        for s, seat in enumerate(own.seats):
            if ended and own.result is not None:
                seat = _revealed(seat, own, s)
            elif face_up or s == self.viewer:
                their = step.views[s]
                seat = replace(seat, shown=their.hand, shown_drawn=their.drawn)
            seats.append(seat)
        return replace(own, seats=tuple(seats))

    def line(self, index: int, *, face_up: bool) -> Text | None:
        step = self.steps[max(0, min(index, self.last))]
        return step.line_face_up if face_up else step.line


def _revealed(seat: SeatModel, view: TableView, s: int) -> SeatModel:
    """A seat at the hand's end: its concealed tiles and melds as revealed (the winning
    tile apart), and the hand's points as its score."""
    r = view.result
    assert r is not None
    tiles = list(r.hands[s])
    drawn = None
    if r.winner == s and r.win_tile is not None and r.win_tile in tiles:
        tiles.remove(r.win_tile)
        drawn = r.win_tile
    shown = tuple(tiles)
    return replace(seat, shown=shown, shown_drawn=drawn, melds=r.melds[s], score=r.points[s])


def steps_of_events(events: list[m.EventBody]) -> list[list[m.EventBody]]:
    """The hand's events in steps (the module's docstring)."""
    steps: list[list[m.EventBody]] = [[]]
    for event in events:
        current = steps[-1]
        dealing = len(steps) == 1 and (
            isinstance(event, _DEAL) or (isinstance(event, m.Draw) and event.replacement)
        )
        follows = isinstance(event, m.Flower | m.HandEnd) or (
            isinstance(event, m.Draw)
            and event.replacement
            and bool(current)
            and isinstance(current[-1], m.Flower)
        )
        if dealing or (follows and len(steps) > 1):
            current.append(event)
        else:
            steps.append([event])
    return steps


def replay_hand(hand: ReplayHand, viewer_name: str | None, lang: str, match_id: int) -> HandReplay:
    """Every step of ``hand``, for the player named ``viewer_name`` (their own view if
    they played it). ``IllegalAction`` or ``ValueError`` if the hand does not replay."""
    names = [s.player for s in sorted(hand.seats, key=lambda s: s.seat)]
    viewer = names.index(viewer_name) if viewer_name in names else None
    start = tuple(
        TableView(
            seats=tuple(SeatModel(seat=s, name=names[s], wind=Tile.E + s) for s in range(4)),
            me=None if v == PUBLIC else v,
            viewer=viewer_name or "",
            status=TableStatus.PLAYING,
            dealer=hand.dealer,
        )
        for v in range(PUBLIC + 1)
    )
    events = hand_state(hand, match_id=match_id).events
    views = start
    steps: list[Step] = []
    seq = 0
    own = PUBLIC if viewer is None else viewer
    for group in steps_of_events(events):
        before = views[PUBLIC]
        seen: list[m.EventBody] = []  # as the replay's viewer was sent them
        full: list[m.EventBody] = []
        for event in group:
            seq += 1
            bodies = [for_viewer(event, SPECTATOR if v == PUBLIC else v) for v in range(5)]
            views = tuple(
                apply_event_message(view, m.Event(table_id=0, seq=seq, event=body))
                for view, body in zip(views, bodies, strict=True)
            )
            seen.append(bodies[own])
            full.append(event)
        steps.append(Step(views, _step_line(before, seen, lang), _step_line(before, full, lang)))
    return HandReplay(hand, tuple(steps), viewer, match_id)


def _step_line(view: TableView, bodies: list[m.EventBody], lang: str) -> Text | None:
    """What a step says: its first event with words; its draw only when nothing else
    is said (a flower drawn is said as the flower set aside)."""
    for body in bodies:
        line = None if isinstance(body, m.Draw) else event_line(view, body, lang)
        if line is not None:
            return line
    draw = next((b for b in bodies if isinstance(b, m.Draw)), None)
    return None if draw is None else draw_line(view, draw, lang)
