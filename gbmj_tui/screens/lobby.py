"""The lobby: the live table list, create / join / spectate, lobby chat, the player's
name with coins and level, and the keys to the items and shop (i) and the leaderboard (l).

The screen shows what the app hands it (``set_tables``, ``set_profile``, ``add_chat``)
and asks the app to act (``App.create_table``, ``join_table``, ``spectate``, ``chat``,
``open_shop``, ``open_leaderboard``). Joining or watching a table with a password asks
for it first (``PasswordPrompt``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Footer,
    Input,
    Label,
    RichLog,
    Select,
    Static,
)

from gbmj_tui.screens.ssh_keys import SshKeysScreen
from protocol import messages as m

W = TypeVar("W", bound=Widget)

COLUMNS = {
    "zh": ("号", "桌名", "底注", "计时", "圈", "座位", "观战", "状态"),
    "en": ("#", "Table", "Stake", "Timers", "Rounds", "Seats", "Watch", "Status"),
}
STATUS = {"zh": {"waiting": "等待", "playing": "对局中"}, "en": {}}


def table_row(t: m.TableInfo, lang: str = "zh") -> tuple[str, ...]:
    s = t.settings
    timers = (
        f"{s.timers.first_discard}/{s.timers.turn}/{s.timers.claim_window}" if s.timers.on else "-"
    )
    taken = sum(1 for seat in t.seats if seat.name)
    name = s.name + (" *" if t.has_password else "")
    status = STATUS[lang].get(t.status, t.status)
    stake = str(s.stake) if s.stake else ("免费" if lang == "zh" else "free")
    return (
        str(t.table_id),
        name,
        stake,
        timers,
        str(s.rounds),
        f"{taken}/4",
        str(t.spectators),
        status,
    )


class LobbyScreen(Screen[None]):
    """Tables, chat and the player's account."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("n", "new_table", "New table"),
        Binding("j", "join", "Join"),
        Binding("s", "spectate", "Watch"),
        Binding("r", "refresh", "Refresh"),
        Binding("k", "ssh_keys", "SSH keys"),
        Binding("i", "app.open_shop", "Items/Shop"),
        Binding("l", "app.open_leaderboard", "Leaders"),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, lang: str = "zh") -> None:
        super().__init__()
        self.lang = lang
        self.tables: dict[int, m.TableInfo] = {}
        self.profile: m.Profile | None = None
        self._ready = False  # widgets exist once mounted

    def compose(self) -> ComposeResult:
        yield Static("", id="profile")
        table: DataTable[str] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        with Vertical(id="lobby-chat"):
            yield RichLog(id="chat-log", max_lines=200, wrap=True)
            hint = "聊天…" if self.lang == "zh" else "chat..."
            yield Input(id="chat-input", placeholder=hint, compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self._ready = True
        table = self.query_one("#tables", DataTable)
        for key, label in zip(COLUMNS["en"], COLUMNS[self.lang], strict=True):
            table.add_column(label, key=key)
        self._redraw()
        if self.profile is not None:
            self.set_profile(self.profile)
        table.focus()

    # -- fed by the app ---------------------------------------------------------------------
    def set_profile(self, profile: m.Profile) -> None:
        self.profile = profile
        if not self._ready:
            return  # drawn on mount
        guest = (" (游客)" if self.lang == "zh" else " (guest)") if profile.guest else ""
        words = ("金币", "等级", "积分") if self.lang == "zh" else ("coins", "level", "rating")
        values = (profile.coins, profile.level, profile.rating)
        pairs = zip(words, values, strict=True)
        text = profile.name + guest + "".join(f"   {w} {v}" for w, v in pairs)
        if (profile_line := self._find("#profile", Static)) is not None:
            profile_line.update(Text(text))

    def set_tables(self, tables: Iterable[m.TableInfo]) -> None:
        self.tables = {t.table_id: t for t in tables}
        self._redraw()

    def update_table(self, table: m.TableInfo) -> None:
        self.tables[table.table_id] = table
        self._redraw()

    def remove_table(self, table_id: int) -> None:
        self.tables.pop(table_id, None)
        self._redraw()

    def add_chat(self, sender: str | None, text: str) -> None:
        if (log := self._find("#chat-log", RichLog)) is not None:
            log.write(f"{sender or '*'}: {text}")

    def _redraw(self) -> None:
        table = self._find("#tables", DataTable)
        if table is None:
            return
        keep = table.cursor_row
        table.clear()
        for table_id in sorted(self.tables):
            table.add_row(*table_row(self.tables[table_id], self.lang), key=str(table_id))
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1))

    def _find(self, selector: str, kind: type[W]) -> W | None:
        """A widget of this screen, or None before it is mounted or while it closes
        (pushes from the server may arrive at either time)."""
        if not self._ready:
            return None
        try:
            return self.query_one(selector, kind)
        except NoMatches:
            return None

    @property
    def selected(self) -> m.TableInfo | None:
        table = self.query_one("#tables", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.tables.get(int(key)) if key is not None else None

    # -- actions ----------------------------------------------------------------------------
    def action_new_table(self) -> None:
        self.app.push_screen(CreateTableDialog(self.lang), self._create)

    def _create(self, request: tuple[m.TableSettings, str | None] | None) -> None:
        if request is not None:
            self.app.create_table(*request)  # type: ignore[attr-defined]

    def action_join(self) -> None:
        self._enter(self.selected, "join_table")

    def action_spectate(self) -> None:
        self._enter(self.selected, "spectate")

    def _enter(self, table: m.TableInfo | None, how: str) -> None:
        """Join or watch ``table``, asking for its password first if it has one."""
        if table is None:
            return
        enter = getattr(self.app, how)
        if not table.has_password:
            enter(table.table_id)
            return

        def entered(password: str | None) -> None:
            if password is not None:
                enter(table.table_id, password)

        self.app.push_screen(PasswordPrompt(table.settings.name, self.lang), entered)

    def action_ssh_keys(self) -> None:
        self.app.push_screen(SshKeysScreen(self.lang))

    def action_refresh(self) -> None:
        self.app.refresh_tables()  # type: ignore[attr-defined]

    @on(DataTable.RowSelected)
    def _row(self) -> None:
        self.action_join()

    @on(Input.Submitted, "#chat-input")
    def _chat(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.app.chat("lobby", event.value.strip())  # type: ignore[attr-defined]
        event.input.value = ""


class PasswordPrompt(ModalScreen[str | None]):
    """The password of a protected table (Enter to go on, Escape to give up)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]  # noqa: RUF012

    def __init__(self, table_name: str, lang: str = "zh") -> None:
        super().__init__()
        self.table_name = table_name
        self.lang = lang

    def compose(self) -> ComposeResult:
        zh = self.lang == "zh"
        with Vertical(id="password-box"):
            yield Label(Text(f"{self.table_name} *"), id="password-title")
            yield Input(
                id="table-password",
                password=True,
                max_length=64,
                placeholder="桌子密码" if zh else "table password",
            )
            yield Label(
                "Enter 确定   Esc 取消" if zh else "Enter: go on   Esc: cancel", classes="hint"
            )

    def on_mount(self) -> None:
        self.query_one("#password-box").border_title = (
            "桌子密码" if self.lang == "zh" else "Password"
        )
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


STAKE_CHOICES = [(str(s) if s else "free / 免费", s) for s in m.STAKES[:13]]


class CreateTableDialog(ModalScreen[tuple[m.TableSettings, str | None] | None]):
    """Every table setting of SPEC §2.2: name, stake, timers, rounds, password, bots."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]  # noqa: RUF012

    def __init__(self, lang: str = "zh") -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        zh = self.lang == "zh"
        rounds = [(str(r), r) for r in (1, 2, 3, 4)]
        with Vertical(id="dialog"):
            with Horizontal(classes="row"):
                yield Label("桌名" if zh else "Name")
                yield Input("my table", id="t-name", max_length=40, compact=True)
            with Horizontal(classes="row"):
                yield Label("底注" if zh else "Stake")
                yield Select(STAKE_CHOICES, value=0, allow_blank=False, id="t-stake", compact=True)
                yield Label("圈数" if zh else "Rounds")
                yield Select(rounds, value=1, allow_blank=False, id="t-rounds", compact=True)
            with Horizontal(classes="row"):
                yield Checkbox(
                    "计时 (秒)" if zh else "Timers (s)", True, id="t-timers", compact=True
                )
                yield Label("首打" if zh else "first")
                yield Input("30", id="t-first", max_length=3, type="integer", compact=True)
                yield Label("出牌" if zh else "turn")
                yield Input("15", id="t-turn", max_length=3, type="integer", compact=True)
                yield Label("鸣牌" if zh else "claim")
                yield Input("5", id="t-claim", max_length=3, type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Checkbox(
                    "允许机器人" if zh else "Bots allowed", True, id="t-bots", compact=True
                )
                yield Label("密码" if zh else "Password")
                yield Input(id="t-password", password=True, max_length=64, compact=True)
            with Horizontal(classes="row"):
                yield Button(
                    "创建" if zh else "Create", id="create", variant="primary", compact=True
                )
                yield Button("取消" if zh else "Cancel", id="cancel", compact=True)
            yield Static("", id="dialog-error")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#create")
    @on(Input.Submitted)  # Enter in any field creates the table, as in a web form
    @work
    async def _create(self) -> None:
        try:
            timers = m.TimerSettings(
                on=self.query_one("#t-timers", Checkbox).value,
                first_discard=int(self.query_one("#t-first", Input).value or 30),
                turn=int(self.query_one("#t-turn", Input).value or 15),
                claim_window=int(self.query_one("#t-claim", Input).value or 5),
            )
            settings = m.TableSettings(
                name=self.query_one("#t-name", Input).value.strip() or "table",
                stake=self.query_one("#t-stake", Select).value,  # type: ignore[arg-type]
                timers=timers,
                rounds=self.query_one("#t-rounds", Select).value,  # type: ignore[arg-type]
                bots_allowed=self.query_one("#t-bots", Checkbox).value,
            )
            settings.to_wire()  # the protocol's own range checks
        except Exception as exc:  # a bad number or a value out of range: say so
            self.query_one("#dialog-error", Static).update(Text(str(exc)))
            return
        password = self.query_one("#t-password", Input).value or None
        self.dismiss((settings, password))
