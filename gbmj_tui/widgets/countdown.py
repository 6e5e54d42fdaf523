"""A live countdown bar for whoever must act.

The server's clock is the only clock: the bar starts from the milliseconds the server
said were left and counts down locally; a new prompt or event replaces it.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from gbmj_tui.i18n import tr
from gbmj_tui.model import TimerView


def bar_text(label: str, ms_left: int, total_ms: int, width: int, lang: str = "zh") -> Text:
    """``label ▮▮▮▮···· 7s``, the bar drawn as coloured spaces (width-safe everywhere)."""
    seconds = " " + tr("{seconds:4.1f} s", lang).format(seconds=max(ms_left, 0) / 1000)
    out = Text(label + " ", style="bold")
    room = max(width - out.cell_len - len(seconds) - 1, 0)
    frac = 0.0 if total_ms <= 0 else max(0.0, min(1.0, ms_left / total_ms))
    filled = round(room * frac)
    colour = "green" if frac > 0.5 else ("yellow" if frac > 0.2 else "red")
    out.append(" " * filled, style=f"on {colour}")
    out.append(" " * (room - filled), style="on grey30")
    out.append(seconds, style="bold red" if frac <= 0.2 else "bold")
    return out


class CountdownBar(Widget):
    """Shows a ``TimerView`` counting down; empty when nobody is timed."""

    DEFAULT_CSS = """
    CountdownBar { height: 1; }
    """

    timer: reactive[TimerView | None] = reactive(None)
    label: reactive[str] = reactive("")
    lang: reactive[str] = reactive("zh")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._started = time.monotonic()

    def on_mount(self) -> None:
        self.set_interval(0.2, self.refresh)

    def watch_timer(self, timer: TimerView | None) -> None:
        self._started = time.monotonic()

    @property
    def ms_left(self) -> int:
        if self.timer is None:
            return 0
        elapsed = int((time.monotonic() - self._started) * 1000)
        return max(self.timer.ms_left - elapsed, 0)

    def render(self) -> Text:
        if self.timer is None:
            return Text("")
        return bar_text(
            self.label, self.ms_left, self.timer.total_ms, self.size.width or 40, self.lang
        )
