"""The lobby: the live table list, create / join / spectate, lobby chat, the player's
name with coins and level, and the keys to the items and shop (i) and the leaderboard (l).

The screen follows the table list while it shows (``FollowLobby`` on resume, off on
suspend) and applies each ``LobbyChanged`` to the rows it names: a changed table
updates its changed cells, a new one is a new row; nothing is rebuilt. While hidden it
only remembers which rows changed, and draws them when it shows again. Every text that
comes from another person (table names, owners, chat) is plain ``Text``, never markup.
"""

from __future__ import annotations

import contextlib
from collections import deque

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Input, RichLog, Static
from textual.widgets.data_table import RowDoesNotExist

from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import (
    FollowLobby,
    JoinAsked,
    LinkState,
    LobbyChanged,
    MuteAsked,
    Requested,
)
from gbmj_tui.screens.dialogs import PasswordPrompt, SettingsDialog, TableRequest
from gbmj_tui.screens.moderation import PasswordDialog, remember
from gbmj_tui.screens.ssh_keys import SshKeysScreen
from gbmj_tui.screens.tournaments import TournamentsScreen
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.widgets.linkbar import LinkBar
from protocol import messages as m
from protocol.vocabulary import Channel

COLUMNS = (
    ("id", N_("#")),
    ("name", N_("Table")),
    ("owner", N_("Owner")),
    ("stake", N_("Stake")),
    ("timers", N_("Timers")),
    ("rounds", N_("Rounds")),
    ("seats", N_("Seats")),
    ("watch", N_("Watch")),
    ("status", N_("Status")),
)
STATUS = {"waiting": N_("waiting"), "playing": N_("playing")}
CHAT_LINES = 200
SPEAKERS = 30  # chat senders remembered, to mute one


def stake_cell(s: m.TableSettings, lang: str) -> str:
    """The stake, and the house's fee a hand when the table has one (§2.5)."""
    if not s.stake:
        return tr("free", lang)
    if not s.table_fee:
        return str(s.stake)
    return f"{s.stake} ({tr('fee {fee}', lang).format(fee=s.table_fee)})"


def table_row(t: m.TableInfo, lang: str) -> tuple[Text, ...]:
    """The cells of a table's row: every one plain text (a name may hold brackets)."""
    s = t.settings
    c = s.timers
    timers = f"{c.first_discard}/{c.turn}/{c.claim_window}" if c.on else "-"
    if c.on and c.reserve:
        timers += f"+{c.reserve}"  # the reserve of each player for the match
    if c.on and c.pung_window is not None and c.pung_window != c.claim_window:
        timers += " " + tr("(pung {seconds})", lang).format(seconds=c.pung_window)
    taken = sum(1 for seat in t.seats if seat.name)
    cells = (
        str(t.table_id),
        s.name + (" *" if t.has_password else ""),
        t.owner,
        stake_cell(s, lang),
        timers,
        str(s.rounds),
        f"{taken}/4",
        str(t.spectators),
        tr(STATUS.get(t.status, t.status), lang),
    )
    return tuple(Text(c) for c in cells)


class LobbyScreen(Screen[None]):
    """Tables, chat and the player's account."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("n", "new_table", N_("New table")),
        Binding("j", "join", N_("Join")),
        Binding("s", "spectate", N_("Watch")),
        Binding("r", "refresh", N_("Refresh")),
        Binding("i", "app.open_shop", N_("Items/Shop")),
        Binding("l", "app.open_leaderboard", N_("Leaders")),
        Binding("h", "app.open_history", N_("History")),
        Binding("k", "ssh_keys", N_("SSH keys")),
        Binding("t", "tournaments", N_("Tournaments")),
        Binding("p", "password", N_("Change password")),
        Binding("m", "mute", N_("Mute")),
        Binding("question_mark", "app.help", N_("Help")),
        Binding("ctrl+q", "app.quit", N_("Quit")),
    ]

    def __init__(self, lang: str, profile: m.Profile | None = None, *, solo: bool = False) -> None:
        super().__init__()
        self._ready = False  # the widgets exist (from on_mount on)
        self.lang = lang
        self.profile = profile
        self.solo = solo  # solo's account: its password is the client's, not the player's
        self.speakers: deque[str] = deque(maxlen=SPEAKERS)  # the chat's recent senders
        self.tables: dict[int, m.TableInfo] = {}
        self.rows: dict[int, tuple[Text, ...]] = {}  # what each row shows now
        self.dirty: set[int] = set()  # rows changed while hidden
        self.counters = ""

    def compose(self) -> ComposeResult:
        yield LinkBar(self.lang)
        yield Static("", id="profile")
        table: DataTable[Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        with Vertical(id="lobby-chat"):
            yield RichLog(id="chat-log", max_lines=CHAT_LINES, wrap=True, markup=False)
            yield Input(id="chat-input", placeholder=tr("chat...", self.lang), compact=True)
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._ready = True
        table = self.query_one("#tables", DataTable)
        for key, label in COLUMNS:
            table.add_column(tr(label, self.lang), key=key)
        if self.profile is not None:
            self.set_profile(self.profile)
        table.focus()

    def on_screen_resume(self) -> None:
        self._draw_rows(self.dirty)
        self.dirty.clear()
        self.post_message(FollowLobby(True))

    def on_screen_suspend(self) -> None:
        self.post_message(FollowLobby(False))

    # -- fed by the app ---------------------------------------------------------------------
    def set_link(self, state: LinkState) -> None:
        if self._ready:
            with contextlib.suppress(NoMatches):  # the screen going while the link changes
                self.query_one(LinkBar).state = state

    def set_profile(self, profile: m.Profile) -> None:
        self.profile = profile
        if not self._ready:
            return  # drawn on mount
        lang = self.lang
        line = Text(profile.name, style="bold")  # a name, not markup
        if profile.guest:
            line.append(" " + tr("(guest)", lang))
        for word, value in (
            (tr("coins", lang), profile.coins),
            (tr("level", lang), profile.level),
            (tr("rating", lang), profile.rating),
        ):
            line.append(f"   {word} {value}")
        if self.counters:
            line.append(f"   {self.counters}", style="dim")
        with contextlib.suppress(NoMatches):  # the screen going while the server talks
            self.query_one("#profile", Static).update(line, layout=False)  # one line, 1fr wide

    def apply(self, change: LobbyChanged) -> None:
        """Fold a change of the table list in; draw it now if the lobby shows."""
        if change.reset:
            gone = set(self.tables) - {t.table_id for t in change.tables}
            self.tables = {}
        else:
            gone = set(change.removed)
        for table_id in gone:
            self.tables.pop(table_id, None)
        for info in change.tables:
            self.tables[info.table_id] = info
        if change.total is not None:
            words = tr("{tables} tables, {players} online", self.lang)
            self.counters = words.format(tables=change.total, players=change.online or 0)
            if self.profile is not None:
                self.set_profile(self.profile)
        touched = gone | {t.table_id for t in change.tables}
        if self._ready and self.is_current:
            with contextlib.suppress(NoMatches):  # the app closing while the server talks
                self._draw_rows(touched)
        else:
            self.dirty |= touched

    def _draw_rows(self, table_ids: set[int]) -> None:
        """Update, add or remove the rows of ``table_ids``; the others stay as they are."""
        if not self._ready or not table_ids:
            return
        table = self.query_one("#tables", DataTable)
        appended = False
        for table_id in sorted(table_ids):
            key = str(table_id)
            info = self.tables.get(table_id)
            if info is None:
                if self.rows.pop(table_id, None) is not None:
                    table.remove_row(key)
                continue
            cells = table_row(info, self.lang)
            old = self.rows.get(table_id)
            self.rows[table_id] = cells
            if old is None:
                table.add_row(*cells, key=key)
                appended = True
                continue
            for (column, _), before, now in zip(COLUMNS, old, cells, strict=True):
                if before != now:
                    table.update_cell(key, column, now)
        if appended and list(self.rows) != sorted(self.rows):
            table.sort("id", key=lambda cell: int(cell.plain))
            self.rows = dict(sorted(self.rows.items()))

    def add_chat(self, sender: str | None, text: str) -> None:
        if sender:
            remember(self.speakers, sender)
        if self._ready:
            line = Text(f"{sender or '*'}: ", style="bold")
            line.append(text)  # another person's words, as they are
            self.query_one("#chat-log", RichLog).write(line)

    @property
    def selected(self) -> m.TableInfo | None:
        table = self.query_one("#tables", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        except RowDoesNotExist:
            return None
        return self.tables.get(int(key)) if key is not None else None

    # -- actions ----------------------------------------------------------------------------
    def action_new_table(self) -> None:
        ascii = self.app.has_class("-ascii")
        self.app.push_screen(SettingsDialog(self.lang, ascii=ascii), self._create)

    def _create(self, request: TableRequest | None) -> None:
        if request is not None:
            create = m.CreateTable(settings=request.settings, password=request.password)
            self.post_message(Requested(create))

    def action_join(self) -> None:
        self._enter(self.selected, spectate=False)

    def action_spectate(self) -> None:
        self._enter(self.selected, spectate=True)

    def _enter(self, table: m.TableInfo | None, *, spectate: bool) -> None:
        """Sit at ``table`` (its first free seat; watch it when none is free) or watch
        it, asking for its password first if it has one."""
        if table is None:
            return

        def entered(password: str | None) -> None:
            if password is None and table.has_password:
                return
            if spectate:
                self.post_message(Requested(m.Spectate(table_id=table.table_id, password=password)))
            else:
                self.post_message(JoinAsked(table.table_id, password))

        if table.has_password:
            self.app.push_screen(PasswordPrompt(table.settings.name, self.lang), entered)
        else:
            entered(None)

    def action_ssh_keys(self) -> None:
        self.app.push_screen(SshKeysScreen(self.lang))

    def action_tournaments(self) -> None:
        me = self.profile.name if self.profile is not None else ""
        self.app.push_screen(TournamentsScreen(self.lang, me))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "password":  # guests have none; solo's is kept by the client
            return self.profile is not None and not self.profile.guest and not self.solo
        return True

    def action_password(self) -> None:
        def changed(done: bool | None) -> None:
            if done:
                words = tr("Password changed: your other sessions are signed out", self.lang)
                self.notify(words, markup=False)

        self.app.push_screen(PasswordDialog(self.lang), changed)

    def action_mute(self) -> None:
        """Mute someone who spoke in the lobby's chat."""
        me = self.profile.name if self.profile is not None else None
        names = tuple(n for n in reversed(self.speakers) if n != me)
        self.post_message(MuteAsked(names))

    def action_refresh(self) -> None:
        self.post_message(FollowLobby(True))

    @on(DataTable.RowSelected)
    def _row(self) -> None:
        self.action_join()

    @on(Input.Submitted, "#chat-input")
    def _chat(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.post_message(Requested(m.ChatSend(channel=Channel.LOBBY, text=text[:500])))
        event.input.value = ""
