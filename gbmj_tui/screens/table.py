"""The table screen: the other three seats on their sides of the table (left, across,
right), each with its name, wind, score, melds and discard pool; the player's own pool
in the middle; the action line, the player's melds and hand at the bottom, the
countdown and the prompt bar; the table chat (or the help) under the right seat and the
tile counter (when one runs) under the left. The tile under the hand's cursor is marked
wherever else it lies on the table.

The screen draws a ``TableView`` (``show``) and turns the player's keys into messages
(``ActionChosen`` for the prompt, ``Requested`` for everything else); it never talks to
the network. A key that does nothing says why on the action line. A spectator's view
(``view.me is None``) has no hand row, no prompt and no seat controls.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from dataclasses import replace

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import RichLog, Static

from gbmj_tui.explain import why_key_does_nothing
from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import (
    ActionChosen,
    KeyRefused,
    LinkState,
    MuteAsked,
    Refused,
    Replied,
    Requested,
)
from gbmj_tui.model import TableView
from gbmj_tui.screens.chat import ChatLine
from gbmj_tui.screens.dialogs import Confirm, SettingsDialog, TableRequest
from gbmj_tui.screens.fans import FanReference
from gbmj_tui.screens.moderation import remember
from gbmj_tui.screens.seats import SeatsDialog
from gbmj_tui.screens.shop import ClothDialog, lay_cloth
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets import (
    ActionLine,
    CountdownBar,
    HandRow,
    PromptBar,
    SeatPanel,
)
from gbmj_tui.widgets.board import Board, is_big, is_compact
from gbmj_tui.widgets.coach import CoachPanel, coach_allowed
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.widgets.linkbar import LinkBar
from gbmj_tui.widgets.status import status_text
from gbmj_tui.words import TIMERS as TIMER_WORDS
from gbmj_tui.words import item_name
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, Channel, Cloth, Item

SPEAKERS = 30  # chat senders remembered, to mute one
_ITEM_OF = {m.ArmTimerExtension: Item.TIMER_EXTENSION, m.UseTileCounter: Item.TILE_COUNTER}
ESCAPE_CONFIRM_S = 3.0  # leaving a running match needs the key twice within this time
GAME_KEYS = frozenset({"h", "p", "g", "1", "2", "3", "space", "enter"})


class TableScreen(Screen[None]):
    """One table as the viewer sees it."""

    CSS_PATH = ["../styles/table.tcss", "../styles/app.tcss"]  # noqa: RUF012
    BINDINGS = [  # noqa: RUF012  (Textual's declaration style)
        Binding("question_mark", "toggle_help", N_("Help")),
        Binding("escape", "leave", N_("Lobby")),
        Binding("r", "ready", N_("Ready")),
        Binding("b", "seats", N_("Seats/bots")),
        Binding("o", "settings", N_("Settings")),
        Binding("a", "auto_play", N_("Auto-play")),
        Binding("w", "auto_win", N_("Auto-win")),
        Binding("x", "auto_pass", N_("Auto-pass")),
        Binding("e", "extension", N_("Extension")),
        Binding("t", "tile_counter", N_("Counter")),
        Binding("c", "chat", N_("Chat")),
        Binding("m", "mute", N_("Mute")),
        Binding("i", "coach", N_("Hints")),
        Binding("I", "coach_keep", N_("Keep hints open"), show=False),
        Binding("f", "fans", N_("Fans")),
        Binding("l", "tablecloth", N_("Tablecloth")),
        Binding("ctrl+q", "app.quit", N_("Quit")),
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
        self.auto_win = False  # declare every win offered at once
        self.auto_pass = False  # pass every claim that is not a win
        self.seats_dialog: SeatsDialog | None = None
        self._leave_armed = 0.0  # when the player was warned that leaving is an escape
        self._controls: tuple[object, ...] = ()  # what the key bar was shown for
        self._ready = False  # the widgets exist (from on_mount; is_mounted comes later)
        self.speakers: deque[str] = deque(maxlen=SPEAKERS)  # the chat's recent senders
        self._buying: Item | None = None  # an item the player was offered to buy here
        self._status = Text()  # the status line shown

    def compose(self) -> ComposeResult:
        yield LinkBar(self.lang)
        yield Static(id="status")
        yield Board(self.tile_style, self.lang)
        with Vertical(id="me"):
            yield ActionLine(id="actions")
            yield SeatPanel(id="seat-bottom")
            yield HandRow(id="hand")
            yield CountdownBar(id="countdown")
            yield PromptBar(id="prompt")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self.query_one("#side-right").mount(CoachPanel(self.lang, self.tile_style, id="coach"))
        self._ready = True
        self.show(self.view)
        self.query_one(HandRow).focus()
        self._fit(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        compact, big = is_compact(width, height), is_big(width, height)
        self.set_class(compact, "-compact")
        with contextlib.suppress(NoMatches):
            self.query_one(Board).fit(width, compact, big)
            self.query_one(HandRow).big = big
            self.query_one(ActionLine).lines = 1 if height < 30 else (2 if height < 44 else 4)

    # -- fed by the app -------------------------------------------------------------------
    def set_link(self, state: LinkState) -> None:
        with contextlib.suppress(NoMatches):
            self.query_one(LinkBar).state = state

    def add_chat(self, sender: str | None, text: str) -> None:
        """A line of table chat in the chat panel (a server notice has no sender)."""
        if sender:
            remember(self.speakers, sender)
        line = Text(f"{sender or '*'}: ", style="bold")
        line.append(text)  # another person's words, as they are
        with contextlib.suppress(NoMatches):
            self.query_one("#table-chat", RichLog).write(line)

    def note(self, line: Text) -> None:
        """A line for the action line (what just happened)."""
        with contextlib.suppress(NoMatches):
            self.query_one(ActionLine).add(line)

    def note_reason(self, reason: str) -> None:
        """Why a key did nothing, or a request was refused."""
        self.note(Text(reason, style="bold yellow"))

    def show(self, view: TableView, *, prompted: bool = False) -> None:
        """Draw ``view`` (the whole table; cheap enough to do after every event)."""
        self.view = view
        if self.seats_dialog is not None and self.seats_dialog.is_attached:
            self.seats_dialog.show(view)
        if not self._ready:
            return
        with contextlib.suppress(NoMatches):  # closing while the server still talks
            self._draw(view)
            self.query_one(CoachPanel).show_view(view)
        # The key bar follows the view (``check_action``); only redraw it when what it
        # depends on changed.
        me = view.seats[view.me] if view.me is not None else None
        controls = (
            view.me,
            view.tournament,
            view.timer_ms,
            view.match_running,
            view.playing,
            view.unseen is None,
            view.owner,
            me.ready if me else None,
        )
        if controls != self._controls:
            self._controls = controls
            self.refresh_bindings()
        if prompted and view.prompt is not None:
            self._prompted(view)

    def _prompted(self, view: TableView) -> None:
        """A new prompt: the bell (the player's turn, or a discard they may claim), or
        the auto toggles' answers."""
        prompt = view.prompt
        assert prompt is not None
        if self.auto_win and prompt.allows("win"):
            self._send(ActionChoice(kind=ActionKind.WIN))
        elif self.auto_pass and prompt.is_claim and not prompt.allows("win"):
            self._send(ActionChoice(kind=ActionKind.PASS))
        else:
            self.app.bell()

    def _draw(self, view: TableView) -> None:
        style, lang = self.tile_style, self.lang
        spectator = view.me is None
        self.query_one(Board).show(view)
        lay_cloth(self, view.cloth)
        toggles = (self.auto_win, self.auto_pass)
        status = status_text(view, lang, toggles)
        if status != self._status:  # a discard leaves it as it was: no repaint
            self._status = status
            # one line whatever it says: no new layout
            self.query_one("#status", Static).update(status, layout=False)

        hand = self.query_one(HandRow)
        hand.display = not spectator
        hand.tile_style = style
        hand.set_hand(view.hand, view.drawn)
        self.query_one(Board).highlight(None if spectator else hand.selected_tile)
        prompt = view.prompt
        hand.active = prompt is not None and not prompt.is_claim and prompt.allows("discard")

        bar = self.query_one(PromptBar)
        bar.tile_style, bar.lang = style, lang
        bar.prompt = prompt
        bar.selected = hand.selected_tile
        if prompt is not None and prompt.from_seat is not None:
            bar.discarder = view.who(prompt.from_seat, lang)

        countdown = self.query_one(CountdownBar)
        countdown.lang = lang
        countdown.timer = view.timer
        if view.timer is not None:
            who = ", ".join(view.who(s, lang) for s in view.timer.seats)
            label = f"{tr(TIMER_WORDS[view.timer.timer], lang)}: {who}"
            if prompt is not None and prompt.reserve_ms:
                bank = tr("{seconds} s of it your reserve", lang)
                label += " (" + bank.format(seconds=prompt.reserve_ms // 1000) + ")"
            countdown.label = label

    # -- which keys the key bar offers ------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        player = view.me is not None
        if action in ("auto_play", "auto_win", "auto_pass"):
            return player and view.match_running
        # Items: none at a tournament's table; an extension only where turns are timed.
        items = player and view.tournament is None
        if action == "extension":
            return items and view.match_running and view.timer_ms is not None
        if action == "tile_counter":
            return items and view.playing and view.unseen is None
        if action == "ready":
            return player and not view.match_running
        if action == "seats":
            return not view.match_running
        if action == "settings":
            return view.is_owner and not view.match_running
        if action in ("coach", "coach_keep"):
            return coach_allowed(view) and view.playing
        if action == "tablecloth":
            return view.is_owner
        return True

    # -- keys ---------------------------------------------------------------------------------
    def _request(self, request: m.Message) -> None:
        self.post_message(Requested(request, reply_to=self))

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        if isinstance(refused.request, m.Buy):
            self._buying = None  # not bought (too few coins...): the reason follows
        item = _ITEM_OF.get(type(refused.request))
        if refused.code == ErrorCode.NO_SUCH_ITEM and item is not None:
            self._missing(item)
            return
        self.note_reason(refused.text)

    # -- an item the player does not have (t, e) --------------------------------------------
    def _missing(self, item: Item) -> None:
        """Say where to get ``item``; at a free table offer to buy it here (a player
        seated at a stake table buys nothing: the lobby's shop, before the match)."""
        name = item_name(item, self.lang)
        if self.view.stake:
            words = tr(
                "No {item}: buy it in the lobby's shop (i), not while seated at a stake table",
                self.lang,
            )
            self.note_reason(words.format(item=name))
            return
        self._buying = item
        self.post_message(Requested(m.GetShop(), reply_to=self))  # its price, to ask

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        reply, item = replied.reply, self._buying
        if isinstance(reply, m.Shop) and item is not None:
            offer = next((o for o in reply.offers if o.item == item and o.price), None)
            name = item_name(item, self.lang)
            if offer is None:
                self._buying = None
                words = tr("You have no {item}, and the shop does not sell it here.", self.lang)
                self.note_reason(words.format(item=name))
                return
            question = tr(
                "You have no {item} (it is sold in the shop, i in the lobby). Buy one here "
                "for {price} coins and use it?",
                self.lang,
            ).format(item=name, price=offer.price)
            self.app.push_screen(Confirm(question, self.lang), self._buy)
        elif isinstance(replied.request, m.Buy) and item is not None:
            self._buying = None
            self.post_message(Requested(m.GetInventory()))
            if item is Item.TIMER_EXTENSION:
                self.action_extension()
            else:
                self.action_tile_counter()

    def _buy(self, yes: bool | None) -> None:
        if yes and self._buying is not None:
            self._request(m.Buy(item=self._buying, count=1))
        else:
            self._buying = None

    @on(KeyRefused)
    def _key_refused(self, refused: KeyRefused) -> None:
        refused.stop()
        self.note_reason(refused.reason)

    def may_leave(self) -> bool:
        """Whether the player may go now: a seated player's first press only warns (a
        second within ESCAPE_CONFIRM_S goes). Leaving a running match is an escape;
        leaving a waiting table gives the seat up."""
        if self.view.me is None:
            return True
        now = time.monotonic()
        if now - self._leave_armed <= ESCAPE_CONFIRM_S:
            return True
        self._leave_armed = now
        if self.view.match_running:
            warning = tr(
                "Leaving a running match is an escape (80 points). Press again to go.", self.lang
            )
        else:
            warning = tr("Leaving the table gives up your seat. Press again to go.", self.lang)
        self.note_reason(warning)
        self.notify(warning, severity="warning", markup=False, timeout=ESCAPE_CONFIRM_S)
        return False

    def action_leave(self) -> None:
        if self.may_leave():
            self._request(m.LeaveTable(table_id=self.view.table_id))

    def action_ready(self) -> None:
        view = self.view
        if view.me is not None:
            ready = not view.seats[view.me].ready
            self._request(m.Ready(table_id=view.table_id, ready=ready))

    def action_seats(self) -> None:
        self.seats_dialog = SeatsDialog(self.view, self.lang, owner=self.view.is_owner)
        self.app.push_screen(self.seats_dialog)

    def action_settings(self) -> None:
        settings = self.view.settings
        ascii = self.app.has_class("-ascii")
        self.app.push_screen(SettingsDialog(self.lang, settings, ascii=ascii), self._configure)

    def _configure(self, request: TableRequest | None) -> None:
        if request is not None:
            table_id = self.view.table_id
            self._request(
                m.ConfigureTable(
                    table_id=table_id,
                    settings=request.settings,
                    password=request.password,
                    sign=request.sign,
                )
            )

    def action_tablecloth(self) -> None:
        """The owner lays a tablecloth (one from the inventory): the board's look."""
        table_id = self.view.table_id

        def chosen(cloth: Cloth | None) -> None:
            if cloth is not None:
                self._request(m.LayTablecloth(table_id=table_id, cloth=cloth))

        self.app.push_screen(ClothDialog(self.lang), chosen)

    def action_auto_play(self) -> None:
        view = self.view
        if view.me is not None:
            on_now = view.seats[view.me].auto_play
            self._request(m.AutoPlay(table_id=view.table_id, on=not on_now))

    def action_auto_win(self) -> None:
        self.auto_win = not self.auto_win
        self._toggled(self.auto_win, N_("Auto-win is on: every win offered is declared"))

    def action_auto_pass(self) -> None:
        self.auto_pass = not self.auto_pass
        self._toggled(self.auto_pass, N_("Auto-pass is on: every claim but a win is passed"))

    def _toggled(self, on_now: bool, words: str) -> None:
        self.note(Text(tr(words if on_now else "Auto-answer is off", self.lang), style="bold"))
        self.show(self.view)
        if self.view.prompt is not None:
            self._prompted(self.view)

    def action_extension(self) -> None:
        """Arm the timer extension for this match (e), or disarm it: it fires when the
        player's own discard turn runs out (docs/rules.md §2.6)."""
        view = self.view
        self._request(m.ArmTimerExtension(table_id=view.table_id, armed=not view.extension_armed))

    def action_tile_counter(self) -> None:
        self._request(m.UseTileCounter(table_id=self.view.table_id))
        self.post_message(Requested(m.GetInventory()))

    def action_chat(self) -> None:
        self.app.push_screen(ChatLine(self.lang, self._chat, keep_open=not self.view.match_running))

    def _chat(self, text: str) -> None:
        chat = m.ChatSend(channel=Channel.TABLE, table_id=self.view.table_id, text=text[:500])
        self._request(chat)

    def action_mute(self, selected: str | None = None) -> None:
        """Mute a player at the table or in its chat (the owner: for the whole table)."""
        view = self.view
        me = view.viewer or (view.seats[view.me].name if view.me is not None else "")
        seated = [s.name for s in view.seats if s.name and not s.bot]
        names = tuple(n for n in (*seated, *reversed(self.speakers)) if n != me)
        owner = view.is_owner
        self.post_message(MuteAsked(names, table_id=view.table_id, owner=owner, selected=selected))

    @on(SeatPanel.Picked)
    def _picked(self, picked: SeatPanel.Picked) -> None:
        seat = picked.seat
        if seat.name and not seat.bot and seat.seat != self.view.me:
            self.action_mute(seat.name)

    def action_coach(self) -> None:
        """The hints (docs/rules.md §2.13), computed here from the player's own view."""
        panel = self.query_one(CoachPanel)
        panel.set_open(not panel.display, self.view)

    def action_coach_keep(self) -> None:
        """Keep the hints open across turns (else they close when the player acts)."""
        panel = self.query_one(CoachPanel)
        panel.kept = not panel.kept
        panel.set_open(panel.kept, self.view)

    def action_fans(self) -> None:
        self.app.push_screen(FanReference(self.lang, self.tile_style))

    def action_toggle_help(self) -> None:
        self.query_one(Board).toggle_help()

    def on_key(self, event: events.Key) -> None:
        # Keys the hand row did not take (it is not the player's turn, or it lost focus)
        # go to the prompt bar: claim choices, pass on Space, win and kong.
        bar = self.query_one(PromptBar)
        if bar.press(event.key):
            event.stop()
            event.prevent_default()
        elif event.key in GAME_KEYS and self.view.me is not None:
            self.post_message(KeyRefused(why_key_does_nothing(self.view, event.key, self.lang)))

    @on(PromptBar.Chosen)
    def _chosen(self, message: PromptBar.Chosen) -> None:
        message.stop()
        self._send(message.choice)

    @on(HandRow.Discard)
    def _discard(self, message: HandRow.Discard) -> None:
        message.stop()
        prompt = self.view.prompt
        choice = ActionChoice(kind=ActionKind.DISCARD, tile=Tile(message.tile))
        if prompt is not None and choice in prompt.actions:
            self._send(choice)
        elif prompt is not None and prompt.allows("discard"):
            self.note_reason(tr("That tile cannot be discarded now", self.lang))

    @on(HandRow.Selected)
    def _selected(self, message: HandRow.Selected) -> None:
        self.query_one(PromptBar).selected = message.tile
        self.query_one(Board).highlight(message.tile)

    def _send(self, choice: ActionChoice) -> None:
        # One answer per prompt: the bar clears until the server's next prompt.
        self.post_message(ActionChosen(choice))
        coach = self.query_one(CoachPanel)
        coach.set_open(coach.display and coach.kept, self.view)
        self.view = replace(self.view, prompt=None)
        self.query_one(PromptBar).prompt = None
        self.query_one(HandRow).active = False
