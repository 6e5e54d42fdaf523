"""Small modal dialogs: a table's settings (to create one, or the owner's changes before
the match), a table's password, a yes-or-no question, solo's pace."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from gbmj_tui.i18n import N_, tr
from gbmj_tui.widgets.toggle import Toggle
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.vocabulary import Item, SeatChanges

STAKES = m.STAKES[:13]
ROUNDS = (1, 2, 3, 4)
SEAT_CHANGE_WORDS = {
    SeatChanges.EVERY_ROUND: N_("every round"),
    SeatChanges.THIRD_ROUND: N_("before round 3 only"),
}
DEFAULT_TIMERS = m.TimerSettings(
    on=True, first_discard=30, turn=15, claim_window=5, pung_window=3, reserve=60
)
DEFAULT_SETTINGS = m.TableSettings(
    name=N_("my table"), stake=0, timers=DEFAULT_TIMERS, rounds=1, bots_allowed=True
)


@dataclass(frozen=True, slots=True)
class TableRequest:
    """What the settings dialog answers: the settings and the table's password."""

    settings: m.TableSettings
    password: str | None
    sign: Item | None = None  # the sign a new name uses (None: the table sign)


class SettingsDialog(ModalScreen[TableRequest | None]):
    """Every table setting: name, stake, timers, rounds, password, bots. Opened empty to
    create a table, or with a table's settings for its owner to change them (a new name
    then costs one table sign)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(
        self, lang: str, settings: m.TableSettings | None = None, *, ascii: bool = False
    ) -> None:
        super().__init__()
        self.lang = lang
        self.ascii = ascii
        self.editing = settings is not None
        self.settings = settings or replace(DEFAULT_SETTINGS, name=tr(DEFAULT_SETTINGS.name, lang))

    def compose(self) -> ComposeResult:
        lang, s = self.lang, self.settings
        t = s.timers
        stakes = [(str(x) if x else tr("free", lang), x) for x in STAKES]
        rounds = [(str(r), r) for r in ROUNDS]
        with Vertical(id="dialog"):
            with Horizontal(classes="row"):
                yield Label(tr("Name", lang))
                yield Input(s.name, id="t-name", max_length=40, compact=True)
            if self.editing:
                with Horizontal(classes="row"):
                    yield Label(tr("A new name costs one", lang))
                    signs = [
                        (tr("table sign (protected 1 h)", lang), Item.TABLE_SIGN),
                        (tr("gold sign (protected 24 h)", lang), Item.GOLD_SIGN),
                    ]
                    yield Select(
                        signs, value=Item.TABLE_SIGN, allow_blank=False, id="t-sign", compact=True
                    )
            with Horizontal(classes="row"):
                yield Label(tr("Stake", lang))
                yield Select(stakes, value=s.stake, allow_blank=False, id="t-stake", compact=True)
                yield Label(tr("Rounds", lang))
                yield Select(rounds, value=s.rounds, allow_blank=False, id="t-rounds", compact=True)
            with Horizontal(classes="row"):
                yield Label(tr("Seat changes", lang))
                changes = [(tr(w, lang), k) for k, w in SEAT_CHANGE_WORDS.items()]
                scheme = s.seat_changes or SeatChanges.EVERY_ROUND
                yield Select(changes, value=scheme, allow_blank=False, id="t-seats", compact=True)
            with Horizontal(classes="row"):
                yield Toggle(tr("Timers (s)", lang), t.on, id="t-timers", ascii=self.ascii)
                yield Label(tr("first", lang))
                yield Input(str(t.first_discard), id="t-first", max_length=3, type="integer")
                yield Label(tr("turn", lang))
                yield Input(str(t.turn), id="t-turn", max_length=3, type="integer")
                yield Label(tr("claim", lang))
                yield Input(str(t.claim_window), id="t-claim", max_length=3, type="integer")
                yield Label(tr("pung", lang))
                pung = t.pung_window or t.claim_window
                yield Input(str(pung), id="t-pung", max_length=3, type="integer")
            with Horizontal(classes="row"):
                yield Label(tr("reserve a match (s)", lang))
                yield Input(str(t.reserve or 0), id="t-reserve", max_length=4, type="integer")
                yield Label(tr("pause after a hand (s)", lang))
                pause = "" if s.result_pause is None else str(s.result_pause)
                default = tr("host's", lang)  # blank: the host's hand_pause
                yield Input(pause, id="t-pause", max_length=3, type="integer", placeholder=default)
            with Horizontal(classes="row"):
                yield Toggle(
                    tr("Bots allowed", lang), s.bots_allowed, id="t-bots", ascii=self.ascii
                )
                # Hints are for free tables only: the server refuses them with a stake.
                yield Toggle(
                    tr("Hints", lang), s.coach is not False, id="t-coach", ascii=self.ascii
                )
                yield Label(tr("Password", lang))
                yield Input(id="t-password", password=True, max_length=64, compact=True)
            with Horizontal(classes="row"):
                word = tr("Save" if self.editing else "Create", lang)  # both in the catalog
                yield Button(word, id="create", variant="primary", compact=True)
                yield Button(tr("Cancel", lang), id="cancel", compact=True)
            yield Static("", id="dialog-error")

    def on_mount(self) -> None:
        for field_id in ("#t-first", "#t-turn", "#t-claim", "#t-pung", "#t-reserve", "#t-pause"):
            self.query_one(field_id, Input).compact = True

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def _number(self, selector: str, default: int) -> int:
        text = self.query_one(selector, Input).value
        return int(text) if text.strip().isdigit() else default

    @on(Button.Pressed, "#create")
    @on(Input.Submitted)  # Enter in any field goes on, as in a web form
    def _create(self) -> None:
        stake = self.query_one("#t-stake", Select).value
        rounds = self.query_one("#t-rounds", Select).value
        scheme = self.query_one("#t-seats", Select).value
        try:
            timers = m.TimerSettings(
                on=self.query_one("#t-timers", Toggle).value,
                first_discard=self._number("#t-first", 30),
                turn=self._number("#t-turn", 15),
                claim_window=self._number("#t-claim", 5),
                pung_window=self._number("#t-pung", 3),
                reserve=self._number("#t-reserve", 0),
            )
            pause = self.query_one("#t-pause", Input).value.strip()
            settings = replace(
                self.settings,  # what the dialog does not show stays as it was
                result_pause=int(pause) if pause.isdigit() else None,
                name=self.query_one("#t-name", Input).value.strip() or tr("table", self.lang),
                stake=stake if isinstance(stake, int) else 0,
                timers=timers,
                rounds=rounds if isinstance(rounds, int) else 1,
                bots_allowed=self.query_one("#t-bots", Toggle).value,
                seat_changes=scheme if isinstance(scheme, SeatChanges) else None,
            )
            if not settings.stake:
                settings = replace(settings, coach=self.query_one("#t-coach", Toggle).value)
            settings.to_wire()  # the protocol's own range checks
        except ProtocolError as exc:  # a number out of range: say which
            text = tr("out of range: {field}", self.lang).format(field=exc.field or str(exc))
            self.query_one("#dialog-error", Static).update(Text(text))
            return
        password = self.query_one("#t-password", Input).value or None
        sign = self.query_one("#t-sign", Select).value if self.editing else None
        gold = sign if sign == Item.GOLD_SIGN else None  # the table sign goes without saying
        self.dismiss(TableRequest(settings, password, gold))


class PasswordPrompt(ModalScreen[str | None]):
    """The password of a protected table (Enter to go on, Escape to give up)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(self, table_name: str, lang: str) -> None:
        super().__init__()
        self.table_name = table_name
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="password-box"):
            yield Label(Text(f"{self.table_name} *"), id="password-title")
            yield Input(
                id="table-password",
                password=True,
                max_length=64,
                placeholder=tr("table password", self.lang),
            )
            yield Label(tr("Enter: go on   Esc: cancel", self.lang), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#password-box").border_title = tr("Password", self.lang)
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes-or-no question (Enter or y: yes; Esc or n: no)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter,y", "answer(True)", N_("Yes")),
        Binding("escape,n", "answer(False)", N_("No")),
    ]

    def __init__(self, question: str, lang: str) -> None:
        super().__init__()
        self.question = question
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question), id="confirm-question")
            yield Label(tr("Enter: yes   Esc: no", self.lang), classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


PACE_WORDS = {
    "relaxed": N_("Relaxed: 60 s for the first discard, 30 s a turn, 10 s a claim, 3 min reserve"),
    "standard": N_("Standard: 30 s, 15 s a turn, 5 s a claim, 1 min reserve"),
    "off": N_("No timers: take all the time you like"),
}


class PaceDialog(ModalScreen[str | None]):
    """Solo's pace, asked once at the start (``gbmj solo --timers`` skips it)."""

    CSS_PATH = "../styles/app.tcss"

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        options = [Option(tr(words, self.lang), id=pace) for pace, words in PACE_WORDS.items()]
        with Vertical(id="confirm-box"):
            yield Static(tr("How fast do you want to play?", self.lang), id="confirm-question")
            yield OptionList(*options, id="pace")
            yield Label(tr("arrows: choose   Enter: play", self.lang), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = tr("Pace", self.lang)
        paces = self.query_one(OptionList)
        paces.highlighted = 0
        paces.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id or "relaxed")
