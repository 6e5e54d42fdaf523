"""The hand's end: every hand revealed, the winning tile marked, the fan table, each
seat's points and score; and the match's standings."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from gbmj_tui.i18n import tr
from gbmj_tui.model import TableView, wind_name
from gbmj_tui.tiles import TileStyle, tile_text
from gbmj_tui.widgets.fans import fan_table
from gbmj_tui.widgets.render import meld_text
from protocol import messages as m


def result_heading(view: TableView, lang: str) -> Text:
    r = view.result
    if r is None or r.outcome == "exhaustive_draw":
        return Text(tr("draw_game", lang), style="bold")
    if r.outcome == "escape" and r.escaper is not None:
        name = view.seats[r.escaper].name
        return Text(f"{name} " + ("逃跑" if lang == "zh" else "escaped"), style="bold")
    assert r.winner is not None
    winner = view.seats[r.winner]
    out = Text(f"{wind_name(winner.wind, lang)} {winner.name} {tr('wins', lang)}", style="bold")
    if r.from_seat is None:
        out.append(f"  ({tr('self_drawn_by', lang)})")
    else:
        giver = view.seats[r.from_seat]
        out.append(f"  ({tr('on_discard_of', lang)}: {giver.name})")
    return out


def revealed_hands(view: TableView, style: TileStyle, lang: str) -> Group:
    """Each seat on two lines: wind, name, the hand's points and the match score; then
    the concealed tiles (the winning tile last and marked), the melds and the flowers."""
    r = view.result
    assert r is not None
    lines: list[Text] = []
    for seat in view.seats:
        s = seat.seat
        points = r.points[s] if s < len(r.points) else 0
        score = r.scores[s] if r.scores else seat.score
        head = Text(f"{wind_name(seat.wind, lang)} {seat.name}", style="bold")
        head.append(f"   {points:+d}", style="bold green" if points > 0 else "bold")
        head.append(f"   ({tr('score', lang)} {score})")
        if r.winner == s:
            head.append(f"   {tr('wins', lang)}", style="bold yellow")
        flowers = r.flowers[s] if s < len(r.flowers) else ()
        if flowers:
            head.append("   ")
            for f in flowers:
                head.append_text(tile_text(f, style))
        tiles = list(r.hands[s]) if s < len(r.hands) else []
        marked = None
        if r.winner == s and r.win_tile is not None and r.win_tile in tiles:
            tiles.remove(r.win_tile)  # the winning tile goes last, marked
            tiles.append(r.win_tile)
            marked = len(tiles) - 1
        line = Text("  ")
        for i, tile in enumerate(tiles):
            if marked is not None and i == marked:
                line.append(" ")
            line.append_text(tile_text(tile, style, marked=i == marked))
        if marked is not None:
            line.append("<", style="bold")
        for meld in r.melds[s] if s < len(r.melds) else ():
            line.append(" ")
            line.append_text(meld_text(meld, style, lang))
        lines.extend((head, line))
    return Group(*lines)


class ResultScreen(ModalScreen[None]):
    """A hand's result over the table; any of Enter, Space or Escape goes back."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter,space,escape", "close", "OK"),
    ]

    def __init__(self, view: TableView, style: TileStyle = TileStyle.CJK, lang: str = "zh"):
        super().__init__()
        self.view = view
        self.tile_style = style
        self.lang = lang

    def compose(self) -> ComposeResult:
        parts: list = [result_heading(self.view, self.lang)]
        parts.append(revealed_hands(self.view, self.tile_style, self.lang))
        r = self.view.result
        if r is not None and r.outcome == "win":
            parts.append(fan_table(r.fans, style=self.tile_style, lang=self.lang))
        with VerticalScroll(id="result-box"):
            yield Static(Group(*parts), id="result")
        yield Footer()

    def on_mount(self) -> None:
        self.set_class(getattr(self, "tile_style", None) is TileStyle.ASCII, "-ascii")

    def action_close(self) -> None:
        self.dismiss(None)


class StandingsScreen(ModalScreen[None]):
    """The match's end: the standings."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("enter,space,escape", "close", "OK")]  # noqa: RUF012

    def __init__(self, standings: tuple[m.Standing, ...], lang: str = "zh") -> None:
        super().__init__()
        self.standings = standings
        self.lang = lang

    def compose(self) -> ComposeResult:
        zh = self.lang == "zh"
        table = Table(title="终局排名" if zh else "Final standings", box=None)
        for col in (
            ("名次", "玩家", "分数", "金币") if zh else ("Rank", "Player", "Points", "Coins")
        ):
            table.add_column(col)
        for s in self.standings:
            table.add_row(str(s.rank), s.name, f"{s.points:+d}", f"{s.coins:+d}")
        with VerticalScroll(id="result-box"):
            yield Static(table)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
