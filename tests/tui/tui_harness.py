"""Running the table screen in Textual's test pilot, and reading what it shows."""

from __future__ import annotations

from textual.app import App

from gbmj_tui.model import Choice, TableView
from gbmj_tui.screens.table import ActionChosen, TableScreen
from gbmj_tui.tiles import TileStyle


class TableHost(App[None]):
    """A bare app showing one table screen; records the actions the screen sends."""

    def __init__(self, view: TableView, style: TileStyle = TileStyle.CJK, lang: str = "zh"):
        super().__init__()
        self.table = TableScreen(view, tile_style=style, lang=lang)
        self.sent: list[Choice] = []

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def on_action_chosen(self, message: ActionChosen) -> None:
        self.sent.append(message.choice)

    def action_help(self) -> None:
        """The real app opens the help screen."""

    def action_leave_table(self) -> None:
        """The real app goes back to the lobby."""


def screen_text(app: App) -> str:
    """The characters on the terminal, one line per row."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)
