"""The fan table of a scored hand: names in the interface language, points, total, and
the 8-fan check."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
from textual.widgets import Static

from gbmj_tui.i18n import fan_name, tr, trp
from gbmj_tui.model import FanLine
from gbmj_tui.tiles import TileStyle
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
    base = fan_total(fans, flowers=False)
    ok = base >= MIN_FAN
    check = tr("8-fan minimum: met" if ok else "8-fan minimum: NOT met", lang)
    check += " (" + tr("without flowers", lang) + ")"
    table.add_row(check, "", "", str(base), style="bold green" if ok else "bold red")
    return table


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
