"""The fan reference (``f`` at the table): the 81 fans of the rules, searchable in both
languages; the highlighted fan with its points, the fans it excludes and an example hand
scored in full (docs/rules.md §2.13)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from gbmj.coach.reference import EXAMPLES, EXCLUDES
from gbmj.rules.hand import Hand
from gbmj_tui.i18n import N_, fan_name, tr, wind_name
from gbmj_tui.model import FanLine
from gbmj_tui.tiles import TileStyle, tile_row, tile_text, tiles_label
from gbmj_tui.widgets.fans import fan_table
from gbmj_tui.widgets.keybar import KeyBar
from protocol.fans import FAN_BY_ID, FANS, Fan
from protocol.tiles import Tile

SITUATIONS = {
    "self_drawn": N_("self-drawn"),
    "fourth_tile": N_("the last copy"),
    "kong_related": N_("after a kong / robbing a kong"),
    "last_tile": N_("the last tile"),
}


def matches(fan: Fan, query: str) -> bool:
    """A fan found by its Chinese or English name (any part, any case), id or points."""
    q = query.strip().lower()
    if not q:
        return True
    return q in fan.name_zh or q in fan.name_en.lower() or q == str(fan.id) or q == str(fan.points)


def fan_detail(fan: Fan, lang: str, style: TileStyle) -> RenderableType:
    """One fan: names in both languages, points, what it excludes, an example scored."""
    head = Text(f"{fan.name_zh}  {fan.name_en}", style="bold")
    head.append("  " + tr("{n} fan", lang).format(n=fan.points))
    parts: list[RenderableType] = [head]
    excluded = EXCLUDES.get(fan.id, ())
    line = Text(tr("Excludes:", lang) + " ", style="bold")
    line.append(", ".join(fan_name(x, lang) for x in excluded) or tr("nothing", lang))
    parts.append(line)
    example = EXAMPLES.get(fan.id)
    if example is not None:
        hand = Hand.parse(example.hand)
        context = example.context()
        shown = Text(tr("Example:", lang) + " ", style="bold")
        shown.append_text(tile_row(hand.concealed, style, gap=0))
        for m in hand.melds:
            shown.append(f" [{tiles_label(m.tiles, style)}]")
        shown.append(" + ")
        shown.append_text(tile_text(context.win_tile, style))
        parts.append(shown)
        words = [tr(SITUATIONS[s], lang) for s in example.situation]
        words.append(tr("seat {seat}, round {round}", lang).format(
            seat=wind_name(Tile.parse(example.seat), lang),
            round=wind_name(Tile.parse(example.round), lang),
        ))  # fmt: skip
        if example.flowers:
            words.append(tr("{n} flowers", lang).format(n=example.flowers))
        parts.append(Text("  " + ", ".join(words), style="dim"))
        score = example.score()
        lines = [FanLine(fc.fan.id, fc.count) for fc in score.fans]
        parts.append(fan_table(lines, style=style, lang=lang))
    return Group(*parts)


class FanReference(ModalScreen[None]):
    """Type to search; the arrows move through the fans found; Esc closes."""

    CSS_PATH = "../styles/app.tcss"
    SCOPED_CSS = False  # the app's -ascii class picks the borders
    DEFAULT_CSS = """
    .-ascii FanReference #fan-search, .-ascii FanReference #fan-list { border: ascii $accent; }
    FanReference #fan-search { margin: 0 1; }
    FanReference #fan-body { height: 1fr; }
    FanReference #fan-list { width: 36; height: 1fr; }
    FanReference #fan-detail-box { width: 1fr; height: 1fr; padding: 0 1; }
    """
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", N_("Close")),
        Binding("down", "move(1)", N_("Next"), show=False),
        Binding("up", "move(-1)", N_("Previous"), show=False),
    ]

    def __init__(self, lang: str, style: TileStyle = TileStyle.CJK) -> None:
        super().__init__()
        self.lang = lang
        self.tile_style = style
        self.found: list[Fan] = list(FANS)

    def compose(self) -> ComposeResult:
        yield Input(placeholder=tr("search: 混一色, half flush, 6 …", self.lang), id="fan-search")
        with Horizontal(id="fan-body"):
            yield OptionList(id="fan-list")
            with VerticalScroll(id="fan-detail-box"):
                yield Static(id="fan-detail")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#fan-search", Input).focus()

    def _fill(self, query: str) -> None:
        self.found = [f for f in FANS if matches(f, query)]
        options = self.query_one("#fan-list", OptionList)
        options.clear_options()
        options.add_options(
            Option(f"{f.id:>2} {fan_name(f.id, self.lang)} {f.points}", id=str(f.id))
            for f in self.found
        )
        if self.found:
            options.highlighted = 0
            self._show(self.found[0])
        else:
            self.query_one("#fan-detail", Static).update(Text(tr("No fan found", self.lang)))

    def _show(self, fan: Fan) -> None:
        detail = fan_detail(fan, self.lang, self.tile_style)
        self.query_one("#fan-detail", Static).update(detail)

    @on(Input.Changed, "#fan-search")
    def _search(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(OptionList.OptionHighlighted, "#fan-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._show(FAN_BY_ID[int(event.option.id)])

    def action_move(self, step: int) -> None:
        options = self.query_one("#fan-list", OptionList)
        if self.found:
            now = options.highlighted or 0
            options.highlighted = max(0, min(len(self.found) - 1, now + step))

    def action_close(self) -> None:
        self.dismiss(None)
