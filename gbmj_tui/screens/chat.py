"""One line of table chat: Enter sends, Escape cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input

from gbmj_tui.i18n import N_, tr


class ChatLine(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]  # noqa: RUF012

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Input(id="chat-line", max_length=500, placeholder=tr("chat...", self.lang))

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
