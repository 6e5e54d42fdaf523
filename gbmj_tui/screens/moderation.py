"""The player's own moderation (docs/rules.md §2.11): changing one's password, and
muting another player, for oneself or, for a table's owner, at the table.

``PasswordDialog`` (``p`` in the lobby) asks for the old password and the new one
twice and sends ``change_password``; the server answers with a new session, whose
token the session keeps (every other token of the account stops working).

``MuteDialog`` (``m`` in the lobby and at the table, or a click on a seat's panel)
lists the players the screen knows: those seated at the table and those who spoke in
its chat, bots left out. ``m`` mutes the selected player for oneself (their lines no
longer reach you) or unmutes them; at a table its owner mutes with ``t`` for everyone
there. Names are another person's text: plain ``Text``.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import Refused, Replied, Requested
from gbmj_tui.widgets.keybar import KeyBar
from protocol import messages as m
from protocol.errors import ErrorCode


def remember(speakers: deque[str], name: str) -> None:
    """``name`` spoke last: at the end of the chat's recent senders, once."""
    with contextlib.suppress(ValueError):
        speakers.remove(name)
    speakers.append(name)


class PasswordDialog(ModalScreen[bool]):
    """Change the account's password; dismissed with True once the server took it."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="account-box"):
            for field_id, label in (
                ("old-password", N_("Old password")),
                ("new-password", N_("New password")),
                ("new-again", N_("New password again")),
            ):
                yield Label(tr(label, lang))
                yield Input(id=field_id, password=True, max_length=128, compact=True)
            yield Label(tr("Enter: change   Esc: cancel", lang), classes="hint")
            yield Static(id="account-note")
        yield KeyBar(lang)

    def on_mount(self) -> None:
        self.query_one("#account-box").border_title = tr("Change password", self.lang)
        self.query_one("#old-password", Input).focus()

    def note(self, text: str) -> None:
        self.query_one("#account-note", Static).update(Text(text))

    @on(Input.Submitted)
    def _submitted(self) -> None:
        fields = ("old-password", "new-password", "new-again")
        old, new, again = (self.query_one(f"#{i}", Input).value for i in fields)
        if not (old and new):
            self.note(tr("enter the old password and the new one", self.lang))
        elif new != again:
            self.note(tr("the two new passwords differ", self.lang))
        else:
            self.note("...")
            self.post_message(Requested(m.ChangePassword(old=old, new=new), reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.Session):
            self.dismiss(True)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        wrong = refused.code == ErrorCode.BAD_CREDENTIALS  # not "wrong name": it is yours
        self.note(tr("the old password is wrong", self.lang) if wrong else refused.text)

    def action_cancel(self) -> None:
        self.dismiss(False)


class MuteDialog(ModalScreen[None]):
    """Mute or unmute a player, for oneself or (the owner) at the table."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("m,enter", "mute", N_("Mute/unmute for me")),
        Binding("t", "mute_table", N_("Mute/unmute at the table")),
        Binding("escape", "close", N_("Close")),
    ]

    def __init__(
        self,
        names: Iterable[str],
        lang: str,
        *,
        muted: set[str],
        table_id: int | None = None,
        table_muted: set[str] | None = None,
        owner: bool = False,
        selected: str | None = None,
    ) -> None:
        super().__init__()
        self.names = tuple(dict.fromkeys(names))  # in order, once each
        self.lang = lang
        # The session's own sets, read here: the session changes them when the server
        # takes a mute (before the reply reaches this dialog).
        self.muted = muted
        self.table_id = table_id
        self.table_muted = table_muted if table_muted is not None else set()
        self.owner = owner and table_id is not None
        self.selected = selected

    def compose(self) -> ComposeResult:
        with Vertical(id="mute-box"):
            yield DataTable(id="mute-list", cursor_type="row")
            yield Static(id="mute-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        lang = self.lang
        self.query_one("#mute-box").border_title = tr("Mute", lang)
        table = self.query_one(DataTable)
        for label in (N_("Player"), N_("Muted for me"), N_("Muted at the table")):
            table.add_column(tr(label, lang))
        self._draw()
        if self.selected in self.names:
            table.move_cursor(row=self.names.index(self.selected))
        if not self.names:
            self.query_one("#mute-note", Static).update(Text(tr("Nobody to mute here", lang)))
        table.focus()

    def _draw(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        yes = tr("muted", self.lang)
        for name in self.names:
            mine = yes if name in self.muted else ""
            here = yes if name in self.table_muted else ""
            table.add_row(Text(name), Text(mine), Text(here))
        if self.names:
            table.move_cursor(row=min(max(row, 0), len(self.names) - 1))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mute_table":
            return self.owner
        return True

    @property
    def picked(self) -> str | None:
        row = self.query_one(DataTable).cursor_row
        return self.names[row] if self.names and 0 <= row < len(self.names) else None

    def action_mute(self) -> None:
        name = self.picked
        if name is not None:
            self._request(m.Mute(name=name, on=name not in self.muted))

    def action_mute_table(self) -> None:
        name = self.picked
        if name is not None and self.owner:
            on = name not in self.table_muted
            self._request(m.Mute(name=name, on=on, table_id=self.table_id))

    def _request(self, request: m.Mute) -> None:
        self.query_one("#mute-note", Static).update(Text("..."))
        self.post_message(Requested(request, reply_to=self))

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter is the binding's

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        request = replied.request
        if isinstance(request, m.Mute) and isinstance(replied.reply, m.Ok):
            words = tr("{name} is muted" if request.on else "{name} is no longer muted", self.lang)
            self.query_one("#mute-note", Static).update(Text(words.format(name=request.name)))
            self._draw()

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.query_one("#mute-note", Static).update(Text(refused.text))

    def action_close(self) -> None:
        self.dismiss(None)
