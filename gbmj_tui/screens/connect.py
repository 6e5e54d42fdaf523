"""Connect and log in: server address, name, password; log in, register or play as guest.

The screen only collects what the player typed and shows errors; the app connects
(``App.sign_in``) and answers with an error text or moves on to the lobby.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static

from gbmj_tui.config import ClientConfig

TEXT = {
    "zh": ("gbmj 国标麻将", "服务器", "名字", "密码", "登录", "注册", "游客", "连接中…"),
    "en": (
        "gbmj - Chinese Official Mahjong",
        "Server",
        "Name",
        "Password",
        "Log in",
        "Register",
        "Guest",
        "connecting...",
    ),
}


class ConnectScreen(Screen[None]):
    """The first screen: where to connect and who to be."""

    CSS_PATH = "../styles/app.tcss"

    def __init__(self, config: ClientConfig, lang: str = "zh") -> None:
        super().__init__()
        self.config = config
        self.lang = lang

    def compose(self) -> ComposeResult:
        title, server, name, password, login, register, guest, _ = TEXT[self.lang]
        with Vertical(id="connect-box"):
            yield Static(title, id="connect-title")
            yield Label(server)
            yield Input(self.config.servers[0], id="server", placeholder="host:port", compact=True)
            if len(self.config.servers) > 1:
                yield Static("  " + "  ".join(self.config.servers[1:4]), classes="hint")
            yield Label(name)
            yield Input(self.config.name, id="name", max_length=24, compact=True)
            yield Label(password)
            yield Input(id="password", password=True, max_length=128, compact=True)
            with Horizontal(id="connect-buttons"):
                yield Button(login, id="login", variant="primary", compact=True)
                yield Button(register, id="register", compact=True)
                yield Button(guest, id="guest", compact=True)
            yield Static("", id="connect-error")
        yield Footer()

    def on_mount(self) -> None:
        target = "#password" if self.config.name else "#name"
        self.query_one(target, Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self._go("login")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self._go(event.button.id or "login")

    def show_error(self, text: str) -> None:
        self.query_one("#connect-error", Static).update(Text(text))  # not markup

    def _go(self, how: str) -> None:
        server = self.query_one("#server", Input).value
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        self.show_error(TEXT[self.lang][7])
        # The app signs in (this screen goes away on success, so not its own worker).
        self.app.start_sign_in(how, server, name, password, self)  # type: ignore[attr-defined]
