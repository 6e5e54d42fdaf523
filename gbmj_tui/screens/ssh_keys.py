"""The player's SSH keys: the public keys that sign them in over SSH (``ssh -p 2222 host``).

Opened from the lobby (``k``). Paste a public key line and press Enter to add it; Tab to
the list and Delete to remove the selected key; Esc to close. The screen asks the server
itself (``list_ssh_keys``, ``add_ssh_key``, ``remove_ssh_key``) on the app's connection.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label

from gbmj_tui.connection import ConnectError, RequestFailed
from protocol import messages as m

TEXT = {
    "zh": {
        "title": "SSH 公钥",
        "paste": "粘贴公钥 (ssh-ed25519 AAAA… 注释), 回车添加",
        "hint": "Enter 添加   Tab 到列表   Delete 删除   Esc 关闭",
        "columns": ("指纹", "类型", "注释"),
        "none": "还没有公钥: 用密码登录, 或在这里添加公钥",
        "guest": "游客没有公钥, 请先注册",
    },
    "en": {
        "title": "SSH keys",
        "paste": "paste a public key (ssh-ed25519 AAAA... comment), Enter to add",
        "hint": "Enter: add   Tab: to the list   Delete: remove   Esc: close",
        "columns": ("Fingerprint", "Type", "Comment"),
        "none": "no keys yet: sign in with your password, or add a key here",
        "guest": "guests have no SSH keys: register first",
    },
}


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
        Binding("escape", "close", "Close"),
        Binding("delete", "remove", "Remove", show=False),
    ]

    def __init__(self, lang: str = "zh") -> None:
        super().__init__()
        self.text = TEXT.get(lang, TEXT["en"])
        self.keys: tuple[m.SshKeyInfo, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="ssh-keys"):
            yield DataTable(id="ssh-key-list", cursor_type="row")
            yield Label("", id="ssh-status")
            yield Input(id="ssh-key-input", placeholder=self.text["paste"], max_length=512)
            yield Label(self.text["hint"], classes="hint")

    def on_mount(self) -> None:
        self.query_one("#ssh-keys").border_title = self.text["title"]
        table = self.query_one("#ssh-key-list", DataTable)
        for label in self.text["columns"]:
            table.add_column(label)
        self.query_one(Input).focus()
        self._ask(m.ListSshKeys())

    @work(exclusive=True, group="ssh_keys")
    async def _ask(self, request: m.Message) -> None:
        """Send a key request; show the keys it answers with, or why it failed."""
        conn = getattr(self.app, "conn", None)
        if conn is None:
            return
        try:
            reply = await conn.request(request)
        except RequestFailed as exc:
            guest = exc.code == "guest_not_allowed"
            self._status(self.text["guest"] if guest else str(exc))
            return
        except (ConnectError, TimeoutError) as exc:
            self._status(str(exc))
            return
        if isinstance(reply, m.SshKeys):
            self._show(reply.keys)
            if isinstance(request, m.AddSshKey):
                self.query_one(Input).value = ""

    def _show(self, keys: tuple[m.SshKeyInfo, ...]) -> None:
        self.keys = keys
        table = self.query_one("#ssh-key-list", DataTable)
        table.clear()
        for key in keys:
            table.add_row(key.fingerprint, key.algorithm, Text(key.comment))
        self._status("" if keys else self.text["none"])

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
