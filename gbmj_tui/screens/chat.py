"""The table's chat box: Enter sends the line; at a waiting table the box stays open for
the next one and Escape closes it (so the habit of closing the box with Esc never
leaves the table). In a running match Enter also closes it: the box covers the claim
bar and the clock."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input

from gbmj_tui.i18n import N_, tr


class ChatLine(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", N_("Close"))]  # noqa: RUF012

    def __init__(self, lang: str, send: Callable[[str], None], *, keep_open: bool = True) -> None:
        super().__init__()
        self.lang = lang
        self.send = send
        self.keep_open = keep_open

    def compose(self) -> ComposeResult:
        placeholder = tr(
            "chat... (Enter sends, Esc closes)" if self.keep_open else "chat...", self.lang
        )
        yield Input(id="chat-line", max_length=500, placeholder=placeholder)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.send(text)
        if not self.keep_open:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
