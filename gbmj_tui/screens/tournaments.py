"""Club tournaments (docs/rules.md §2.12): the open tournaments to enter, one's seat and
table in the session to come, the live standings (table points, score, places) and each
session's tables and results; a finished tournament's final standings.

Opened from the lobby (``t``). The list on top; Enter shows the selected tournament
below (its standings and the current session's tables); ``e`` enters it, ``w``
withdraws, ``[`` and ``]`` step through the sessions, ``r`` refreshes (the screen also
refreshes by itself while it shows). A player the host allows to organise creates a
tournament (``c``; duplicate or not, docs/rules.md §2.14), opens or closes its
registration (``o``) and starts it (``s``).
Names come from other people: plain ``Text``.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static

from gbmj.tournament.duplicate import STEPS, scale_of
from gbmj.tournament.points import shown
from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import Refused, Replied, Requested
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.widgets.toggle import Toggle
from gbmj_tui.words import PLACES
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.vocabulary import TournamentAction, TournamentState

LIVE_EVERY = 10.0  # seconds between two refreshes of the tournament shown
STATES = {
    TournamentState.OPEN: N_("registration open"),
    TournamentState.CLOSED: N_("registration closed"),
    TournamentState.RUNNING: N_("running"),
    TournamentState.FINISHED: N_("finished"),
}
# Entered beside the name: in sight on an 80-column terminal, where the last are cut.
LIST_COLUMNS = (
    N_("#"),
    N_("Tournament"),
    N_("Entered"),
    N_("Organiser"),
    N_("State"),
    N_("Session"),
    N_("Hands"),
    N_("Minutes"),
    N_("Players"),
)
STANDING_COLUMNS = (
    N_("Rank"),
    N_("Player"),
    N_("Table points"),
    N_("Score"),
    N_("1st"),
    N_("2nd"),
    N_("3rd"),
    N_("4th"),
    N_("Best"),
)
TABLE_COLUMNS = (N_("Table"), *PLACES, N_("Scores"), N_("Table points"))


def seat_line(detail: m.TournamentDetail, me: str, lang: str) -> str:
    """Where ``me`` sits in the session shown, if anywhere."""
    for table in detail.tables:
        if me in table.players:
            place = tr(PLACES[table.players.index(me)], lang)
            text = tr("Your seat in session {session}: table {table}, {place}", lang)
            return text.format(session=detail.session, table=table.number, place=place)
    return ""


def scale_line(detail: m.TournamentDetail, lang: str) -> str:
    """How a duplicate tournament scores against the field (docs/rules.md §2.14)."""
    if detail.scale is None:
        return ""
    if not detail.scale:
        return tr("Duplicate: the score is the difference against the field itself", lang)
    text = tr("Duplicate: the score counts the steps reached, at {steps} points", lang)
    return text.format(steps=" ".join(map(str, detail.scale)))


class TournamentsScreen(ModalScreen[None]):
    """The server's tournaments, and the one selected."""

    DEFAULT_CSS = """
    TournamentsScreen { align: center middle; }
    #tournaments { width: 110; max-width: 100%; height: 100%;
                   border: round $accent; padding: 0 1; background: $surface; }
    #tournaments DataTable { height: auto; max-height: 10; }
    #t-standings { max-height: 14; }
    #t-foot { dock: bottom; height: auto; }
    #tournaments .hint { color: $text-muted; }
    #t-seat { color: $success; }
    #t-status { color: $warning; }
    """
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", N_("Close")),
        Binding("e", "enter", N_("Sign up")),
        Binding("w", "withdraw", N_("Withdraw")),
        Binding("left_square_bracket", "session(-1)", N_("Previous session")),
        Binding("right_square_bracket", "session(1)", N_("Next session")),
        Binding("r", "refresh", N_("Refresh")),
        Binding("c", "create", N_("New tournament"), show=False),
        Binding("o", "registration", N_("Open/close registration"), show=False),
        Binding("s", "start", N_("Start"), show=False),
    ]

    def __init__(self, lang: str, me: str = "") -> None:
        super().__init__()
        self.lang = lang
        self.me = me
        self.listed: tuple[m.TournamentInfo, ...] = ()
        self.detail: m.TournamentDetail | None = None
        self.chosen: int | None = None  # the tournament shown below
        self.session: int | None = None  # the session shown (None: the current one)

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="tournaments"):
            yield DataTable(id="t-list", cursor_type="row")
            yield Label("", id="t-title")
            yield Label("", id="t-seat")
            yield DataTable(id="t-standings", cursor_type="row", zebra_stripes=True)
            yield Label("", id="t-session")
            yield DataTable(id="t-tables", cursor_type="row")
            # What a key did, and the keys not on the key bar: in sight on a small
            # terminal too, where a long field's tables go below the box's edge.
            with Vertical(id="t-foot"):
                yield Label("", id="t-status")
                hint = tr("Enter: show   organisers: c new, o registration, s start", lang)
                yield Label(hint, classes="hint")
        yield KeyBar(lang)

    def on_mount(self) -> None:
        self.query_one("#tournaments").border_title = tr("Tournaments", self.lang)
        for table_id, columns in (
            ("#t-list", LIST_COLUMNS),
            ("#t-standings", STANDING_COLUMNS),
            ("#t-tables", TABLE_COLUMNS),
        ):
            table = self.query_one(table_id, DataTable)
            for label in columns:
                table.add_column(tr(label, self.lang))
        self.query_one("#t-list", DataTable).focus()
        self.action_refresh()
        self.set_interval(LIVE_EVERY, self._live)

    # -- asking and hearing ----------------------------------------------------------------
    def _ask(self, request: m.Message) -> None:
        self.post_message(Requested(request, reply_to=self))

    def action_refresh(self) -> None:
        self._ask(m.ListTournaments())
        self._live()

    def _live(self) -> None:
        if self.chosen is not None:
            self._ask(m.GetTournament(tournament_id=self.chosen, session=self.session))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        reply = replied.reply
        if isinstance(reply, m.TournamentList):
            self._show_list(reply.tournaments)
        elif isinstance(reply, m.TournamentDetail):
            self._show_detail(reply)
        elif isinstance(replied.request, m.EnterTournament | m.WithdrawTournament):
            entered = isinstance(replied.request, m.EnterTournament)
            self._status(tr("You are entered" if entered else "Entry withdrawn", self.lang))
            self.action_refresh()
        elif isinstance(replied.request, m.ManageTournament):
            self._status(tr("Done", self.lang))
            self.action_refresh()
        if isinstance(reply, m.TournamentDetail) and isinstance(
            replied.request, m.CreateTournament
        ):
            self.chosen = reply.tournament.tournament_id
            self._ask(m.ListTournaments())

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self._status(refused.text)

    def _status(self, text: str) -> None:
        self.query_one("#t-status", Label).update(Text(text))

    # -- showing -----------------------------------------------------------------------------
    def _show_list(self, listed: tuple[m.TournamentInfo, ...]) -> None:
        self.listed = listed
        table = self.query_one("#t-list", DataTable)
        row = table.cursor_coordinate.row
        table.clear()
        for t in listed:
            table.add_row(
                *(
                    Text(cell)
                    for cell in (
                        str(t.tournament_id),
                        t.name,
                        "✓" if t.entered else "",
                        t.organiser,
                        tr(STATES[t.state], self.lang),
                        f"{t.session}/{t.sessions}",
                        str(t.hands),
                        str(t.minutes),
                        str(t.entrants),
                    )
                )
            )
        if listed and self.chosen is None:
            # Nothing shown yet: the player's own tournament (else the first), at once.
            row = next((i for i, t in enumerate(listed) if t.entered), 0)
            self.chosen = listed[row].tournament_id
            self._live()
        if listed:
            table.move_cursor(row=min(row, len(listed) - 1))
        else:
            self._status(tr("No tournaments on this server yet", self.lang))
        self.refresh_bindings()

    def _show_detail(self, detail: m.TournamentDetail) -> None:
        self.detail = detail
        lang = self.lang
        t = detail.tournament
        # Before its start no session is under way: "session 0 of 4" read as a mistake.
        words = N_("{name}: {state}, session {session} of {sessions}")
        if not t.session:
            words = N_("{name}: {state}, sessions: {sessions}")
        title = tr(words, lang).format(
            name=t.name, state=tr(STATES[t.state], lang), session=t.session, sessions=t.sessions
        )
        scale = scale_line(detail, lang)
        self.query_one("#t-title", Label).update(Text(title + ("\n" + scale if scale else "")))
        self.query_one("#t-seat", Label).update(Text(seat_line(detail, self.me, lang)))
        standings = self.query_one("#t-standings", DataTable)
        standings.clear()
        for line in detail.standings:
            name = line.name + (" " + tr("(dropped)", lang) if line.dropped else "")
            cells = (str(line.rank), name, shown(line.table_points), str(line.score))
            standings.add_row(*(Text(c) for c in (*cells, *map(str, line.places), str(line.best))))
        heading = tr("Session {session}", lang).format(session=detail.session)
        self.query_one("#t-session", Label).update(Text(heading if detail.session else ""))
        tables = self.query_one("#t-tables", DataTable)
        tables.clear()
        for table in detail.tables:
            # No spaces round the strokes: a table's line fits 80 columns.
            scores = "/".join(map(str, table.scores)) if table.scores else "-"
            points = "/".join(shown(p) for p in table.table_points) if table.table_points else "-"
            absent = table.absent or (False,) * 4
            players = [
                name + (" " + tr("(absent)", lang) if gone else "")
                for name, gone in zip(table.players, absent, strict=True)
            ]
            tables.add_row(*(Text(c) for c in (str(table.number), *players, scores, points)))

    # -- keys ----------------------------------------------------------------------------------
    def _selected(self) -> m.TournamentInfo | None:
        row = self.query_one("#t-list", DataTable).cursor_coordinate.row
        return self.listed[row] if 0 <= row < len(self.listed) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Signing up and withdrawing are offered while the tournament under the cursor
        takes entries (the server refuses them after), each as the player stands."""
        if action in ("enter", "withdraw"):
            selected = self._selected()
            if selected is None or selected.state is not TournamentState.OPEN:
                return False
            return selected.entered == (action == "withdraw")
        return True

    @on(DataTable.RowHighlighted, "#t-list")
    def _moved(self) -> None:
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#t-list")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        selected = self._selected()
        if selected is not None:
            self.chosen, self.session = selected.tournament_id, None
            self._live()

    def action_enter(self) -> None:
        selected = self._selected()
        if selected is not None:
            self._ask(m.EnterTournament(tournament_id=selected.tournament_id))

    def action_withdraw(self) -> None:
        selected = self._selected()
        if selected is not None:
            self._ask(m.WithdrawTournament(tournament_id=selected.tournament_id))

    def action_session(self, step: int) -> None:
        detail = self.detail
        if detail is None or not detail.session:
            return
        wanted = detail.session + step
        if 1 <= wanted <= detail.tournament.session:
            self.session = wanted
            self._live()

    # -- an organiser's keys (the server refuses anyone the host has not allowed) ------------
    def action_create(self) -> None:
        def sent(request: m.CreateTournament | None) -> None:
            if request is not None:
                self._ask(request)

        self.app.push_screen(TournamentDialog(self.lang, self.app.has_class("-ascii")), sent)

    def _manage(self, action: TournamentAction) -> None:
        selected = self._selected()
        if selected is not None:
            self._ask(m.ManageTournament(tournament_id=selected.tournament_id, action=action))

    def action_registration(self) -> None:
        selected = self._selected()
        if selected is not None:
            opened = selected.state is TournamentState.OPEN
            self._manage(TournamentAction.CLOSE if opened else TournamentAction.OPEN)

    def action_start(self) -> None:
        self._manage(TournamentAction.START)

    def action_close(self) -> None:
        self.dismiss(None)


class TournamentDialog(ModalScreen[m.CreateTournament | None]):
    """A new tournament's settings, for a player the host allows to organise."""

    CSS_PATH = "../styles/app.tcss"
    DEFAULT_CSS = "TournamentDialog .hint { color: $text-muted; }"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(self, lang: str, ascii: bool = False) -> None:
        super().__init__()
        self.lang = lang
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        lang, ascii = self.lang, self.ascii
        with Vertical(id="dialog"):
            with Horizontal(classes="row"):
                yield Label(tr("Name", lang))
                yield Input(id="tn-name", max_length=30, compact=True)
            with Horizontal(classes="row"):
                for label, field_id, value in (
                    (N_("Sessions"), "tn-sessions", "4"),
                    (N_("Hands"), "tn-hands", "16"),
                    (N_("Minutes"), "tn-minutes", "90"),
                ):
                    yield Label(tr(label, lang))
                    yield Input(value, id=field_id, max_length=3, type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Toggle(tr("First session drawn", lang), True, id="tn-drawn", ascii=ascii)
                yield Toggle(tr("Leaders together last", lang), False, id="tn-leaders", ascii=ascii)
                yield Toggle(tr("Spectators", lang), False, id="tn-spectators", ascii=ascii)
            # Duplicate play (docs/rules.md §2.14): a duplicate session of 2-4 tables is a
            # duplicate tournament of one session.
            with Horizontal(classes="row"):
                yield Toggle(tr("Duplicate", lang), False, id="tn-duplicate", ascii=ascii)
                yield Label(tr("Scale", lang))
                yield Input(STEPS, id="tn-scale", max_length=200, compact=True)
            yield Static(
                tr(
                    "Duplicate: every table plays the same deals, each result scored against "
                    "the field. Scale: steps, raw, or your thresholds in points (10,20,40). "
                    "A duplicate session of 2-4 tables: 1 session.",
                    lang,
                ),
                classes="row hint",
            )
            with Horizontal(classes="row"):
                yield Button(tr("Create", lang), id="tn-create", variant="primary", compact=True)
                yield Button(tr("Cancel", lang), id="tn-cancel", compact=True)
            yield Static("", id="dialog-error")

    @on(Button.Pressed, "#tn-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def _number(self, selector: str) -> int:
        text = self.query_one(selector, Input).value.strip()
        return int(text) if text.isdigit() else 0

    @on(Button.Pressed, "#tn-create")
    @on(Input.Submitted)
    def _create(self) -> None:
        duplicate = self.query_one("#tn-duplicate", Toggle).value
        try:
            request = m.CreateTournament(
                name=self.query_one("#tn-name", Input).value.strip(),
                sessions=self._number("#tn-sessions"),
                hands=self._number("#tn-hands"),
                minutes=self._number("#tn-minutes"),
                drawn=self.query_one("#tn-drawn", Toggle).value,
                leaders_last=self.query_one("#tn-leaders", Toggle).value,
                spectators=self.query_one("#tn-spectators", Toggle).value,
                duplicate=duplicate or None,
                scale=(self.query_one("#tn-scale", Input).value.strip() or None)
                if duplicate
                else None,
            )
            request.to_wire()  # the protocol's own range checks
            if not request.name:
                raise ProtocolError(ErrorCode.OUT_OF_RANGE, "a name is needed", "name")
        except ProtocolError as exc:  # a number out of range, or no name: say which
            text = tr("out of range: {field}", self.lang).format(field=exc.field or str(exc))
            self.query_one("#dialog-error", Static).update(Text(text))
            return
        try:
            scale_of(request.scale or STEPS)
        except ValueError:  # said here, in the player's language, before the server would
            text = tr("A scale is steps, raw or rising thresholds in points: 10,20,40", self.lang)
            self.query_one("#dialog-error", Static).update(Text(text))
            return
        self.dismiss(request)
