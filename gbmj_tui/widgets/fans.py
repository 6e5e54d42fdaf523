"""The fan table of a scored hand: Chinese and English names, points, total, 8-fan check."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
from textual.widgets import Static

from gbmj_tui.i18n import tr
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
    """A Rich table: one row per fan, the total and the 8-fan check (without flowers).

    Chinese and English names side by side; the ASCII style (a terminal without Chinese)
    shows the English names only.
    """
    ascii_only = style is TileStyle.ASCII
    table = Table(box=box.ASCII if ascii_only else box.SIMPLE, pad_edge=False)
    if not ascii_only:
        table.add_column(tr("fan", lang))
    table.add_column(tr("fan_en", lang) if not ascii_only else "Fan")
    table.add_column(tr("points", lang), justify="right")
    table.add_column(tr("count", lang), justify="right")
    table.add_column(tr("subtotal", lang), justify="right")
    names = (lambda f: (f.name_en,)) if ascii_only else (lambda f: (f.name_zh, f.name_en))
    blank = ("",) * (0 if ascii_only else 1)
    for line in fans:
        fan = FAN_BY_ID[line.fan_id]
        points = (str(fan.points), str(line.count), str(fan.points * line.count))
        table.add_row(*names(fan), *points)
    table.add_section()
    table.add_row(tr("total", lang), *blank, "", "", str(fan_total(fans)), style="bold")
    base = fan_total(fans, flowers=False)
    ok = base >= MIN_FAN
    check = tr("eight_ok" if ok else "eight_short", lang)
    style_ok = "bold green" if ok else "bold red"
    table.add_row(check, *blank, "", "", str(base), style=style_ok)
    return table


def reference_table(fans: Sequence[Fan] = FANS, *, style: TileStyle = TileStyle.CJK) -> Table:
    """Every fan of the rules (the help screen): points, Chinese and English names (the
    ASCII style: English only)."""
    ascii_only = style is TileStyle.ASCII
    table = Table(box=box.ASCII if ascii_only else box.SIMPLE, pad_edge=False)
    table.add_column("#", justify="right")
    if not ascii_only:
        table.add_column("番种")
    table.add_column("Fan")
    table.add_column("Points" if ascii_only else "番", justify="right")
    for fan in fans:
        zh = () if ascii_only else (fan.name_zh,)
        table.add_row(str(fan.id), *zh, fan.name_en, str(fan.points))
    return table


class FanTable(Static):
    """A ``Static`` showing ``fan_table`` for a hand's fans."""

    def show(
        self, fans: Sequence[FanLine], *, style: TileStyle = TileStyle.CJK, lang: str = "zh"
    ) -> None:
        self.update(fan_table(fans, style=style, lang=lang))
