"""A hand replayed step by step (docs/rules.md §2.10): from the history or from the
result of the hand just played.

The screen asks for the hand's log (``get_hand``), replays it with the rules
(gbmj_tui.replay) and draws each step on the table's own board: every hand face up, or
the player's own view as they saw it live (a spectator's for a hand they did not
play). The keys in the footer step forward and back through each draw, discard, claim
and kong, jump to the start or the end, and turn the hands face up or back. The end
shows the live table's result screen: every hand, the fans, each seat's points and
coins, and whether the wall was the one promised before the deal. ``x`` writes the hand
to a replay file (``ExportAsked``; not in a hosted session, which writes no file).
"""

from __future__ import annotations

import contextlib

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static

from gbmj.game.hand_state import IllegalAction
from gbmj.replay import hand_from_log
from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import ExportAsked, Refused, Replied, Requested
from gbmj_tui.model import TableView, round_label
from gbmj_tui.replay import HandReplay, replay_hand
from gbmj_tui.screens.result import ResultScreen
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets import SeatPanel
from gbmj_tui.widgets.board import Board, is_big, is_compact
from gbmj_tui.widgets.coach import review_of
from gbmj_tui.widgets.keybar import KeyBar
from protocol import messages as m

JUMP = 10  # steps a page key moves


class ReplayResultScreen(ResultScreen):
    """The replayed hand's result: the live table's result screen, back to the replay."""

    BINDINGS = [Binding("enter,space,escape", "close", N_("Back to the replay"))]  # noqa: RUF012


class ReplayScreen(Screen[None]):
    """One hand, step by step (the module's docstring)."""

    CSS_PATH = ["../styles/table.tcss", "../styles/app.tcss"]  # noqa: RUF012
    # The steps' keys come first: the board's panels scroll with the same keys.
    BINDINGS = [  # noqa: RUF012
        Binding("right,n", "step(1)", N_("Next step"), priority=True),
        Binding("left,p", "step(-1)", N_("Previous step"), priority=True),
        Binding("pagedown", f"step({JUMP})", N_("+10"), show=False, priority=True),
        Binding("pageup", f"step(-{JUMP})", N_("-10"), show=False, priority=True),
        Binding("home", "jump(0)", N_("To the start"), priority=True),
        Binding("end", "jump(-1)", N_("To the end"), priority=True),
        Binding("enter", "result", N_("Result")),
        Binding("f", "face_up", N_("Face up/own view")),
        Binding("x", "export", N_("Export")),
        Binding("c", "costly", N_("Costly discards")),
        Binding("escape", "close", N_("Close")),
    ]

    def __init__(
        self,
        hand_id: int,
        *,
        me: str | None,
        lang: str = "zh",
        tile_style: TileStyle = TileStyle.CJK,
        may_export: bool = True,
    ) -> None:
        super().__init__()
        self.hand_id = hand_id
        self.me = me
        self.lang = lang
        self.tile_style = tile_style
        self.may_export = may_export
        self.replay: HandReplay | None = None
        self.match_id = 0
        self.index = 0
        self.face_up = True
        self.costly: tuple[tuple[int, Text], ...] | None = None  # the review, when asked
        self.costly_at = -1
        self.start_costly = False  # opened from a result's c: go to the first at once

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Board(self.tile_style, self.lang)
        with Vertical(id="me"):
            yield Static(id="replay-line")
            yield SeatPanel(id="seat-bottom")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self.query_one("#table-chat").display = False  # nothing to say in a replay
        self.query_one("#status", Static).update(Text(tr("Loading the hand...", self.lang)))
        self._fit(self.size.width, self.size.height)
        self.post_message(Requested(m.GetHand(hand_id=self.hand_id), reply_to=self))

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        compact = is_compact(width, height)
        self.set_class(compact, "-compact")
        with contextlib.suppress(NoMatches):
            self.query_one(Board).fit(width, compact, is_big(width, height))

    # -- the hand's log --------------------------------------------------------------------
    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.HandLog):
            self.load(replied.reply)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self._say(Text(refused.text, style="bold yellow"))

    def load(self, log: m.HandLog) -> None:
        """Replay ``log`` with the rules and show its start; a log the rules refuse is
        said, and nothing is shown."""
        try:
            self.replay = replay_hand(hand_from_log(log), self.me, self.lang, log.match_id)
        except (IllegalAction, ValueError) as exc:
            words = tr("This hand's log does not replay with the rules: {reason}", self.lang)
            self._say(Text(words.format(reason=exc), style="bold red"))
            return
        self.match_id = log.match_id
        self.face_up = self.replay.viewer is None  # a player starts from their own view
        self.index = 0
        self.draw()
        self.refresh_bindings()
        if self.start_costly:
            self.action_costly()

    def _say(self, line: Text) -> None:
        self.query_one("#replay-line", Static).update(line)

    # -- drawing -----------------------------------------------------------------------------
    def draw(self) -> None:
        replay = self.replay
        if replay is None:
            return
        view = replay.view(self.index, face_up=self.face_up)
        self.query_one(Board).show(view)
        self.query_one("#status", Static).update(self._status(replay, view))
        line = replay.line(self.index, face_up=self.face_up)
        self._say(line if line is not None else Text(""))

    def _status(self, replay: HandReplay, view: TableView) -> Text:
        lang = self.lang
        hand = replay.hand
        words = tr("Replay: hand {number} of match {match}", lang)
        out = Text(words.format(number=hand.number, match=self.match_id))
        out.append(" | " + round_label(view, lang))
        step = tr("step {step} of {steps}", lang)
        out.append(" | " + step.format(step=self.index, steps=replay.last))
        if self.face_up:
            mode = tr("face up", lang)
        elif replay.viewer is None:
            mode = tr("as a spectator saw it", lang)
        else:
            mode = tr("as you saw it", lang)
        out.append(" | " + mode)
        return out

    # -- keys --------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("step", "jump", "face_up"):
            return self.replay is not None
        if action == "result":
            return self.replay is not None and self.index == self.replay.last
        if action == "export":
            return self.may_export and self.replay is not None
        if action == "costly":
            return self.replay is not None and self.replay.viewer is not None
        return True

    def action_step(self, by: int) -> None:
        if self.replay is not None:
            self._go(max(0, min(self.index + by, self.replay.last)))

    def action_jump(self, to: int) -> None:
        if self.replay is not None:
            self._go(self.replay.last if to < 0 else 0)

    def _go(self, index: int) -> None:
        """Show step ``index``; arriving at the end shows the result too."""
        assert self.replay is not None
        arrived = index == self.replay.last and self.index != index
        self.index = index
        self.draw()
        self.refresh_bindings()
        if arrived:
            self.action_result()

    def action_result(self) -> None:
        """The hand's result over the board, as the live table shows it."""
        if self.replay is not None:
            view = self.replay.view(self.replay.last, face_up=self.face_up)
            self.app.push_screen(ReplayResultScreen(view, self.tile_style, self.lang))

    def action_face_up(self) -> None:
        self.face_up = not self.face_up
        self.draw()

    def action_costly(self) -> None:
        """The player's next costliest discard (docs/rules.md §2.13): its step, and what
        the strongest bot would have done."""
        if self.replay is None:
            return
        if self.costly is None:
            self.costly = review_of(self.replay, self.lang, self.tile_style)
        if not self.costly:
            self._say(Text(tr("No costly discard in this hand", self.lang)))
            return
        self.costly_at = (self.costly_at + 1) % len(self.costly)
        step, words = self.costly[self.costly_at]
        self._go(step)
        self._say(words)

    def action_export(self) -> None:
        if self.may_export:
            self.post_message(ExportAsked(self.hand_id))

    def action_close(self) -> None:
        self.dismiss(None)
