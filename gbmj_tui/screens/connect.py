"""Connect and log in: server address, name, password; log in, register or play as guest.

The screen only collects what the player typed and shows errors; it posts ``SignIn``
and the app connects, answering with an error text (``show_error``) or the lobby. A
checkbox connects over plain TCP, for a server that serves no TLS; the client remembers
it for that server (``ClientConfig.insecure``) and ticks it when the server is chosen
again.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Static

from gbmj_tui.config import ClientConfig
from gbmj_tui.i18n import tr
from gbmj_tui.messages import SignIn
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.widgets.toggle import Toggle


class ConnectScreen(Screen[None]):
    """The first screen: where to connect and who to be."""

    CSS_PATH = "../styles/app.tcss"

    def __init__(
        self,
        config: ClientConfig,
        lang: str = "zh",
        *,
        server: str | None = None,
        fixed: str | None = None,
        insecure: bool = False,
        ascii: bool = False,
    ) -> None:
        super().__init__()
        self.insecure = insecure  # plain TCP to every server (the command line)
        self.ascii = ascii
        self._ready = False  # the widgets exist (from on_mount on)
        self.config = config
        self.lang = lang
        self.server = fixed or server or config.servers[0]
        self.fixed = fixed is not None  # a hosted client reaches its own server only
        self.error = ""

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="connect-box"):
            yield Static(tr("gbmj - Chinese Official Mahjong", lang), id="connect-title")
            if not self.fixed:  # a hosted client's front door chose its server and how
                yield from self._server_fields()
            yield Label(tr("Name", lang))
            yield Input(self.config.name, id="name", max_length=24, compact=True)
            yield Label(tr("Password", lang))
            yield Input(id="password", password=True, max_length=128, compact=True)
            with Horizontal(id="connect-buttons"):
                yield Button(tr("Log in", lang), id="login", variant="primary", compact=True)
                yield Button(tr("Register", lang), id="register", compact=True)
                yield Button(tr("Guest", lang), id="guest", compact=True)
            yield Static("", id="connect-error")
        yield KeyBar(self.lang)

    def _server_fields(self) -> ComposeResult:
        lang = self.lang
        yield Label(tr("Server", lang))
        yield Input(self.server, id="server", placeholder="host:port", compact=True)
        others = [s for s in self.config.servers if s != self.server][:3]
        if others:  # said what it is: a bare address reads as a field
            words = tr("Other servers: {servers}", lang).format(servers="  ".join(others))
            yield Static(Text(words), classes="hint")
        plain = self.insecure or self.server in self.config.insecure
        label = tr("Plain TCP, no TLS (--insecure)", lang)
        yield Toggle(label, plain, id="insecure", ascii=self.ascii)

    def on_mount(self) -> None:
        self._ready = True
        target = "#password" if self.config.name else "#name"
        self.query_one(target, Input).focus()
        self.show_error(self.error)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self._go("login")

    @on(Input.Changed, "#server")
    def _server_changed(self, event: Input.Changed) -> None:
        """A server used before gets the choice made for it (a new one keeps the box as
        it is)."""
        server = event.value.strip()
        if not self.insecure and server in self.config.servers:
            self.query_one("#insecure", Toggle).value = server in self.config.insecure

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self._go(event.button.id or "login")

    def show_error(self, text: str) -> None:
        self.error = text
        if self._ready:
            self.query_one("#connect-error", Static).update(Text(text))  # not markup

    def _go(self, how: str) -> None:
        server, insecure = self.server, self.insecure
        if not self.fixed:
            server = self.query_one("#server", Input).value
            insecure = self.query_one("#insecure", Toggle).value
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        self.show_error(tr("connecting...", self.lang))
        self.post_message(SignIn(how, server, name, password, insecure=insecure))
