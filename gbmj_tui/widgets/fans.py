"""The fan table of a scored hand: names in the interface language, points, total, and
the 8-fan check; or the same in a few lines (``fan_lines``) where the terminal is low."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from gbmj_tui.i18n import fan_name, tr, trp
from gbmj_tui.model import FanLine
from gbmj_tui.tiles import TileStyle
from gbmj_tui.widgets.render import Packed
from protocol.fans import FAN_BY_ID, FANS, Fan

MIN_FAN = 8  # a win needs 8 fan without flowers
FLOWER_FAN = 81  # 花牌: one per flower, counted after the 8-fan check


def fan_total(fans: Sequence[FanLine], *, flowers: bool = True) -> int:
    """Points of the fans, with or without the flower fan."""
    return sum(
        FAN_BY_ID[f.fan_id].points * f.count for f in fans if flowers or f.fan_id != FLOWER_FAN
    )


def fan_table(
    fans: Sequence[FanLine],
    *,
    style: TileStyle = TileStyle.CJK,
    lang: str = "zh",
) -> Table:
    """A Rich table: one row per fan (its name in the interface language), the total and
    the 8-fan check (without flowers)."""
    table = Table(box=box.ASCII if style is TileStyle.ASCII else box.SIMPLE, pad_edge=False)
    table.add_column(tr("Fan", lang))
    table.add_column(tr("Points", lang), justify="right")
    table.add_column(trp("fan count", "x", lang), justify="right")
    table.add_column(tr("Sum", lang), justify="right")
    for line in fans:
        fan = FAN_BY_ID[line.fan_id]
        points = (str(fan.points), str(line.count), str(fan.points * line.count))
        table.add_row(fan_name(fan.id, lang), *points)
    table.add_section()
    table.add_row(tr("Total", lang), "", "", str(fan_total(fans)), style="bold")
    check, base, style_of_check = minimum_check(fans, lang)
    table.add_row(check, "", "", str(base), style=style_of_check)
    return table


def minimum_check(fans: Sequence[FanLine], lang: str) -> tuple[str, int, str]:
    """The 8-fan check's words, the fan it counts (without flowers) and its style."""
    base = fan_total(fans, flowers=False)
    ok = base >= MIN_FAN
    check = tr("8-fan minimum: met" if ok else "8-fan minimum: NOT met", lang)
    check += " (" + tr("without flowers", lang) + ")"
    return check, base, "bold green" if ok else "bold red"


def fan_lines(fans: Sequence[FanLine], *, lang: str = "zh") -> Group:
    """``fan_table`` in a few lines, for a low terminal: each fan with its points (``x``
    how many times, when more than once) packed to the width given, then the total and
    the 8-fan check on one line."""
    chunks = []
    for line in fans:
        fan = FAN_BY_ID[line.fan_id]
        chunk = Text(fan_name(fan.id, lang) + " ")
        chunk.append(str(fan.points), style="bold")
        if line.count > 1:
            chunk.append(f"x{line.count}", style="bold")
        chunks.append(chunk)
    check, base, style_of_check = minimum_check(fans, lang)
    total = Text(tr("Total", lang) + " ", style="bold")
    total.append(str(fan_total(fans)), style="bold")
    total.append("   ")
    total.append(f"{check} {base}", style=style_of_check)
    return Group(Packed(chunks, sep=3), total)


def reference_table(
    fans: Sequence[Fan] = FANS, *, style: TileStyle = TileStyle.CJK, lang: str = "zh"
) -> Table:
    """Every fan of the rules (the help screen): id, name, points."""
    table = Table(box=box.ASCII if style is TileStyle.ASCII else box.SIMPLE, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column(tr("Fan", lang))
    table.add_column(tr("Points", lang), justify="right")
    for fan in fans:
        table.add_row(str(fan.id), fan_name(fan.id, lang), str(fan.points))
    return table


class FanTable(Static):
    """A ``Static`` showing ``fan_table`` for a hand's fans."""

    def show(
        self, fans: Sequence[FanLine], *, style: TileStyle = TileStyle.CJK, lang: str = "zh"
    ) -> None:
        self.update(fan_table(fans, style=style, lang=lang))
