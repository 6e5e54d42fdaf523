"""The table's seats before the match: choose a seat, and for the owner bots and kicks.

Opened with ``b`` at a table whose match has not started. One row per seat: who sits
there, a bot's level, ready or not. Enter takes the selected empty seat (moving there
from another; ``s`` too, as the dialog says); the owner adds a bot of a level with
``1`` ``2`` ``3`` (easy, normal, hard), fills every empty seat with ``f``, and removes
the bot or the player of the selected seat with ``d`` (a person once the owner says
yes). The dialog follows the table's view as it changes; a refusal is shown in it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from gbmj_tui.i18n import N_, tr, wind_name
from gbmj_tui.messages import Refused, Requested
from gbmj_tui.model import TableView
from gbmj_tui.screens.dialogs import Confirm
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.words import BOT_LEVELS
from protocol import messages as m
from protocol.vocabulary import BotLevel

LEVEL_KEYS = {"1": BotLevel.EASY, "2": BotLevel.NORMAL, "3": BotLevel.HARD}


class SeatsDialog(ModalScreen[None]):
    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("s", "sit", N_("Sit here")),
        Binding("enter", "sit", N_("Sit here"), show=False),
        Binding("1", "bot('1')", N_("Easy bot")),
        Binding("2", "bot('2')", N_("Normal bot")),
        Binding("3", "bot('3')", N_("Hard bot")),
        Binding("f", "fill", N_("Fill with bots")),
        Binding("d,delete", "remove", N_("Remove")),
        Binding("escape,b", "close", N_("Close")),
    ]

    def __init__(self, view: TableView, lang: str, *, owner: bool) -> None:
        super().__init__()
        self._ready = False  # the widgets exist (from on_mount on)
        self.view = view
        self.lang = lang
        self.owner = owner

    def compose(self) -> ComposeResult:
        with Vertical(id="seats-box"):
            yield DataTable(id="seat-list", cursor_type="row")
            yield Static(self._hint(), id="seats-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._ready = True
        lang = self.lang
        self.query_one("#seats-box").border_title = tr("Seats", lang)
        table = self.query_one(DataTable)
        for label in (N_("Seat"), N_("Player"), N_("Ready")):
            table.add_column(tr(label, lang))
        self.show(self.view)
        table.focus()

    def show(self, view: TableView) -> None:
        self.view = view
        if not self._ready:
            return
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        lang = self.lang
        for seat in view.seats:
            who = Text(seat.name or tr("empty", lang), style="" if seat.name else "dim")
            if seat.bot and seat.bot_level:
                who.append(f" ({tr(BOT_LEVELS[BotLevel(seat.bot_level)], lang)})")
            if seat.seat == view.me:
                who.append(" " + tr("(you)", lang), style="bold")
            ready = tr("ready", lang) if seat.ready or seat.bot else ""
            table.add_row(Text(wind_name(seat.wind, lang)), who, Text(ready))
        table.move_cursor(row=min(max(row, 0), 3))

    def _hint(self) -> Text:
        return Text(tr("Choose a seat with the arrows, then Enter or s to sit", self.lang), "dim")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("bot", "fill", "remove"):
            return self.owner
        return True

    def _seat(self) -> int:
        return self.query_one(DataTable).cursor_row

    def _request(self, request: m.Message) -> None:
        self.query_one("#seats-note", Static).update(self._hint())
        self.post_message(Requested(request, reply_to=self))

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.query_one("#seats-note", Static).update(Text(refused.text))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_sit()

    def action_sit(self) -> None:
        seat = self._seat()
        if self.view.seats[seat].name:
            self.query_one("#seats-note", Static).update(tr("that seat is taken", self.lang))
            return
        self._request(m.Sit(table_id=self.view.table_id, seat=seat))

    def action_bot(self, key: str) -> None:
        seat = self._seat()
        level = LEVEL_KEYS[key]
        self._request(m.AddBot(table_id=self.view.table_id, seat=seat, level=level))

    def action_fill(self) -> None:
        for seat in self.view.seats:
            if not seat.name:
                self._request(
                    m.AddBot(table_id=self.view.table_id, seat=seat.seat, level=BotLevel.NORMAL)
                )

    def action_remove(self) -> None:
        seat = self.view.seats[self._seat()]
        table_id = self.view.table_id
        if seat.bot:
            self._request(m.RemoveBot(table_id=table_id, seat=seat.seat))
        elif seat.name and seat.seat != self.view.me:
            # A person, not a bot: the owner is asked first.
            question = tr("Remove {name} from the table?", self.lang).format(name=seat.name)

            def answered(yes: bool | None) -> None:
                if yes:
                    self._request(m.Kick(table_id=table_id, seat=seat.seat))

            self.app.push_screen(Confirm(question, self.lang), answered)

    def action_close(self) -> None:
        self.dismiss(None)
