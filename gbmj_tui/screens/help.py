"""Help (``?`` in the lobby, F1): the keys, and every fan of the rules."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gbmj_tui.i18n import N_, tr
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets.fans import reference_table
from gbmj_tui.widgets.help import help_body
from gbmj_tui.widgets.keybar import KeyBar


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("escape,question_mark,f1,q", "close", N_("Close"))]  # noqa: RUF012

    def __init__(self, style: TileStyle = TileStyle.CJK, lang: str = "zh") -> None:
        super().__init__()
        self.tile_style = style
        self.lang = lang

    def compose(self) -> ComposeResult:
        lang = self.lang
        body = Group(
            help_body(lang),
            Text(""),
            Text(tr("Fans (8 to win, flowers not counted)", lang), style="bold underline"),
            reference_table(style=self.tile_style, lang=lang),
        )
        with VerticalScroll(id="help-box"):
            yield Static(body)
        yield KeyBar(lang)

    def action_close(self) -> None:
        self.dismiss(None)
