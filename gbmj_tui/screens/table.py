"""The table screen: the other three seats left, top and right around the four discard
pools in the centre (each under its seat's wind), the player's melds and hand at the
bottom, the countdown and the prompt bar; the table chat under the right seat and the
tile counter (when one runs) under the left.

The screen draws a ``TableView`` (``show(view)``) and turns the player's keys and clicks
into ``ActionChosen`` messages; it never talks to the network itself. A spectator's view
(``view.me is None``) has no hand row and no prompt.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, RichLog, Static

from gbmj_tui.i18n import tr
from gbmj_tui.model import BOTTOM, LEFT, RIGHT, TOP, Choice, TableView, round_label, wind_name
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets import (
    CountdownBar,
    DiscardPool,
    HandRow,
    PromptBar,
    SeatPanel,
    TileCounter,
)
from gbmj_tui.widgets.seat import pool_label

POSITIONS = {"left": LEFT, "top": TOP, "right": RIGHT, "bottom": BOTTOM}
COMPACT_WIDTH = 90  # below this many columns (or COMPACT_HEIGHT rows) drop the borders
COMPACT_HEIGHT = 28
# The centre holds two pools side by side: six 4-column tiles and the last-discard mark
# each (25 columns), or 30 with a space between tiles when the terminal is wide enough;
# around them a box and padding (4 columns) unless the screen is compact.
POOL_NARROW, POOL_WIDE, POOL_CHROME, SIDE_WANTED = 25, 30, 4, 24
CHAT_LINES = 100


class ActionChosen(Message):
    """The player chose an action for the server (discard, win, kong, claim, pass)."""

    def __init__(self, choice: Choice) -> None:
        super().__init__()
        self.choice = choice


class ChatLine(ModalScreen[str | None]):
    """One line of table chat (Enter sends, Escape cancels)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]  # noqa: RUF012

    def compose(self) -> ComposeResult:
        yield Input(id="chat-line", max_length=500, placeholder="chat / 聊天")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TableScreen(Screen[None]):
    """One table as the viewer sees it."""

    CSS_PATH = ["../styles/table.tcss", "../styles/app.tcss"]  # noqa: RUF012
    BINDINGS = [  # noqa: RUF012  (Textual's declaration style)
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("escape", "app.leave_table", "Lobby"),
        Binding("a", "seat('auto_play')", "Auto"),
        Binding("w", "seat('toggle_auto_win')", "Auto-win"),
        Binding("x", "seat('toggle_auto_pass')", "Auto-pass"),
        Binding("c", "chat", "Chat"),
        Binding("e", "seat('arm_extension')", "Ext."),
        Binding("t", "seat('use_tile_counter')", "Counter"),
        Binding("r", "seat('ready')", "Ready"),
        Binding("b", "seat('add_bots')", "Bots"),
    ]

    def __init__(
        self,
        view: TableView | None = None,
        *,
        tile_style: TileStyle = TileStyle.CJK,
        lang: str = "zh",
    ) -> None:
        super().__init__()
        self.view = view or TableView()
        self.tile_style = tile_style
        self.lang = lang
        self._ready = False  # widgets exist only once mounted
        self._controls: tuple[bool, ...] = ()  # what the footer's bindings were shown for

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="board"):
            with Vertical(id="side-left", classes="side"):
                with Vertical(id="area-left", classes="area"):
                    yield SeatPanel(id="seat-left")
                yield TileCounter(id="counter")
            with Vertical(id="centre"):
                with Vertical(id="area-top", classes="area"):
                    yield SeatPanel(id="seat-top")
                with Vertical(id="pools"):
                    yield DiscardPool(id="pool-top")
                    with Horizontal(id="pools-middle"):
                        yield DiscardPool(id="pool-left")
                        yield DiscardPool(id="pool-right")
                    yield DiscardPool(id="pool-bottom")
            with Vertical(id="side-right", classes="side"):
                with Vertical(id="area-right", classes="area"):
                    yield SeatPanel(id="seat-right")
                yield RichLog(
                    id="table-chat", max_lines=CHAT_LINES, wrap=True, markup=False, min_width=8
                )
        with Vertical(id="me"):
            yield SeatPanel(id="seat-bottom")
            yield HandRow(id="hand")
            yield CountdownBar(id="countdown")
            yield PromptBar(id="prompt")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self._ready = True
        self.query_one("#table-chat", RichLog).border_title = tr("chat", self.lang)
        self.show(self.view)
        self.query_one(HandRow).focus()
        self._fit(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        compact = width < COMPACT_WIDTH or height < COMPACT_HEIGHT
        self.set_class(compact, "-compact")
        self.set_class(self.tile_style is TileStyle.ASCII, "-ascii")
        # The pools get what they need; the side seats the rest, evenly.
        chrome = 0 if compact else POOL_CHROME
        least, most = 2 * POOL_NARROW + 1 + chrome, 2 * POOL_WIDE + 1 + chrome
        centre = max(least, min(width - 2 * SIDE_WANTED, most))
        with contextlib.suppress(NoMatches):
            self.query_one("#centre").styles.width = centre

    def add_chat(self, sender: str | None, text: str) -> None:
        """A line of table chat in the chat panel (a server notice has no sender)."""
        line = Text()
        line.append(f"{sender or '*'}: ", style="bold")
        line.append(text)
        with contextlib.suppress(NoMatches):
            self.query_one("#table-chat", RichLog).write(line)

    # -- drawing the view -------------------------------------------------------------------
    def show(self, view: TableView) -> None:
        """Draw ``view`` (the whole table; cheap enough to do after every event)."""
        self.view = view
        if not self._ready:
            return
        with contextlib.suppress(NoMatches):  # closing while the server still talks
            self._draw(view)
        # The footer's seat controls follow the view (``check_action``); redrawing the
        # footer is costly, so only when what it depends on changed.
        controls = (view.me is None, view.playing, view.unseen is None)
        if controls != self._controls:
            self._controls = controls
            self.refresh_bindings()

    def _draw(self, view: TableView) -> None:
        style, lang = self.tile_style, self.lang
        spectator = view.me is None
        for name, position in POSITIONS.items():
            seat = view.seat_at(position)
            turn = view.turn == seat.seat and view.playing
            panel = self.query_one(f"#seat-{name}", SeatPanel)
            panel.tile_style, panel.lang = style, lang
            panel.seat = seat
            panel.dealer = seat.seat == view.dealer
            panel.show_count = position != BOTTOM or spectator
            pool = self.query_one(f"#pool-{name}", DiscardPool)
            pool.tile_style = style
            pool.discards = seat.discards
            pool.last = view.last_discard == seat.seat
            pool.centre = position in (TOP, BOTTOM)
            pool.label = pool_label(seat, lang, turn=turn)
            if position != BOTTOM:
                self.query_one(f"#area-{name}").set_class(turn, "-turn")
        counter = self.query_one(TileCounter)
        counter.lang = lang
        counter.counts = view.unseen
        self.query_one("#status", Static).update(self._status(view))

        hand = self.query_one(HandRow)
        hand.display = not spectator
        hand.tile_style = style
        hand.set_hand(view.hand, view.drawn)
        prompt = view.prompt
        hand.active = prompt is not None and not prompt.is_claim and prompt.allows("discard")

        bar = self.query_one(PromptBar)
        bar.tile_style, bar.lang = style, lang
        bar.prompt = prompt
        bar.selected = hand.selected_tile
        if prompt is not None and prompt.from_seat is not None:
            giver = view.seats[prompt.from_seat]
            bar.discarder = f"{wind_name(giver.wind, lang)} {giver.name}"

        countdown = self.query_one(CountdownBar)
        countdown.lang = lang
        countdown.timer = view.timer
        if view.timer is not None:
            who = ", ".join(
                f"{wind_name(view.seats[s].wind, lang)} {view.seats[s].name}"
                for s in view.timer.seats
            )
            countdown.label = f"{tr(view.timer.timer, lang)}: {who}"

    def _status(self, view: TableView) -> Text:
        lang = self.lang
        dealer = view.seats[view.dealer]
        dice = " ".join(f"{a}+{b}" for a, b in view.dice) or "-"
        if not view.playing and not view.dice:  # no hand dealt yet: the match waits
            parts = [tr("waiting_to_start", lang)]
        else:
            parts = [
                round_label(view, lang),
                f"{tr('dealer', lang)}: {wind_name(dealer.wind, lang)} {dealer.name}",
                f"{tr('wall', lang)} {view.wall_count}",
                f"{tr('dice', lang)} {dice}",
            ]
        if view.table_name:
            parts.insert(0, view.table_name)
        if view.me is None:
            parts.insert(0, tr("spectating", lang))
        toggles = [
            tr(key, lang)
            for key, on in (
                ("auto_win", getattr(self.app, "auto_win", False)),
                ("auto_pass", getattr(self.app, "auto_pass", False)),
                ("auto_play", view.me is not None and view.seats[view.me].auto_play),
                ("extension_armed", view.extension_armed),
            )
            if on
        ]
        if toggles:  # before the dice: a narrow terminal cuts the end of the line
            parts.insert(len(parts) - 1, "[" + " ".join(toggles) + "]")
        return Text(" | ".join(parts))  # plain text: names may contain [brackets]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Seat controls only for a player; ready and bots only before the deal."""
        if action != "seat":
            return True
        if self.view.me is None:
            return False
        if parameters and parameters[0] in ("ready", "add_bots"):
            return not self.view.playing
        if parameters and parameters[0] == "use_tile_counter":
            return self.view.playing and self.view.unseen is None
        return True

    async def action_seat(self, name: str) -> None:
        """A seat control, done by the app (``action_<name>``) when it has one."""
        await self.app.run_action(name)

    def action_chat(self) -> None:
        self.app.push_screen(ChatLine(), self._chat)

    def _chat(self, text: str | None) -> None:
        if text and hasattr(self.app, "chat"):
            self.app.chat("table", text)

    # -- input ------------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        # Keys the hand row did not take (it is not the player's turn, or it lost focus)
        # go to the prompt bar: claim choices, pass on Space, win and kong.
        if self.query_one(PromptBar).press(event.key):
            event.stop()
            event.prevent_default()

    @on(PromptBar.Chosen)
    def _chosen(self, message: PromptBar.Chosen) -> None:
        message.stop()
        self._send(message.choice)

    @on(HandRow.Discard)
    def _discard(self, message: HandRow.Discard) -> None:
        message.stop()
        prompt = self.view.prompt
        if prompt is not None and Choice("discard", message.tile) in prompt.actions:
            self._send(Choice("discard", message.tile))
        elif prompt is not None and prompt.allows("discard"):
            self.notify(tr("discard", self.lang) + ": ?", severity="warning")

    @on(HandRow.Selected)
    def _selected(self, message: HandRow.Selected) -> None:
        self.query_one(PromptBar).selected = message.tile

    def _send(self, choice: Choice) -> None:
        # One answer per prompt: the bar clears until the server's next prompt.
        self.post_message(ActionChosen(choice))
        self.view = replace(self.view, prompt=None)
        self.query_one(PromptBar).prompt = None
        self.query_one(HandRow).active = False
