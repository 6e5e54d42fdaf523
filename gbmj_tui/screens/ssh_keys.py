"""The player's SSH keys: the public keys that sign them in over SSH (``ssh -p 2222 host``).

Opened from the lobby (``k``). Paste a public key line and press Enter to add it; Tab to
the list and Delete to remove the selected key; Esc to close. The screen asks the server
itself (``list_ssh_keys``, ``add_ssh_key``, ``remove_ssh_key``: ``Requested`` with the
screen as ``reply_to``).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label

from gbmj_tui.i18n import N_, tr
from gbmj_tui.messages import Refused, Replied, Requested
from protocol import messages as m
from protocol.errors import ErrorCode


class SshKeysScreen(ModalScreen[None]):
    """List, add and remove the account's SSH public keys."""

    DEFAULT_CSS = """
    SshKeysScreen { align: center middle; }
    #ssh-keys { width: 96; max-width: 100%; height: auto; max-height: 90%;
                border: round $accent; padding: 0 1; background: $surface; }
    #ssh-keys DataTable { height: auto; max-height: 12; }
    #ssh-keys Input { margin-top: 1; }
    #ssh-keys .hint { color: $text-muted; }
    #ssh-status { color: $warning; }
    """
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", N_("Close")),
        Binding("delete", "remove", N_("Remove"), show=False),
    ]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        self.keys: tuple[m.SshKeyInfo, ...] = ()

    def compose(self) -> ComposeResult:
        lang = self.lang
        paste = tr("paste a public key (ssh-ed25519 AAAA... comment), Enter to add", lang)
        with Vertical(id="ssh-keys"):
            yield DataTable(id="ssh-key-list", cursor_type="row")
            yield Label("", id="ssh-status")
            yield Input(id="ssh-key-input", placeholder=paste, max_length=512)
            hint = tr("Enter: add   Tab: to the list   Delete: remove   Esc: close", lang)
            yield Label(hint, classes="hint")

    def on_mount(self) -> None:
        self.query_one("#ssh-keys").border_title = tr("SSH keys", self.lang)
        table = self.query_one("#ssh-key-list", DataTable)
        for label in (N_("Fingerprint"), N_("Type"), N_("Comment")):
            table.add_column(tr(label, self.lang))
        self.query_one(Input).focus()
        self._ask(m.ListSshKeys())

    def _ask(self, request: m.Message) -> None:
        self.post_message(Requested(request, reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.SshKeys):
            self._show(replied.reply.keys)
            if isinstance(replied.request, m.AddSshKey):
                self.query_one(Input).value = ""

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        guest = refused.code == ErrorCode.GUEST_NOT_ALLOWED
        self._status(
            tr("guests have no SSH keys: register first", self.lang) if guest else refused.text
        )

    def _show(self, keys: tuple[m.SshKeyInfo, ...]) -> None:
        self.keys = keys
        table = self.query_one("#ssh-key-list", DataTable)
        table.clear()
        for key in keys:
            table.add_row(Text(key.fingerprint), Text(key.algorithm), Text(key.comment))
        none = tr("no keys yet: sign in with your password, or add a key here", self.lang)
        self._status("" if keys else none)

    def _status(self, text: str) -> None:
        self.query_one("#ssh-status", Label).update(Text(text))

    @on(Input.Submitted, "#ssh-key-input")
    def _add(self, event: Input.Submitted) -> None:
        line = " ".join(event.value.split())  # a pasted line may carry a newline or tabs
        if line:
            self._ask(m.AddSshKey(public_key=line))

    def action_remove(self) -> None:
        table = self.query_one("#ssh-key-list", DataTable)
        if not table.has_focus or not self.keys:
            return
        row = table.cursor_coordinate.row
        if 0 <= row < len(self.keys):
            self._ask(m.RemoveSshKey(fingerprint=self.keys[row].fingerprint))

    def action_close(self) -> None:
        self.dismiss(None)
