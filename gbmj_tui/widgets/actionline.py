"""The action line: the last few things that happened at the table, in words (a
discard, a claim and from whom, a kong, a flower replaced, a timeout, auto-play taking
over), and why a key did nothing. The newest line is last; the screen sets how many
lines show (more on a tall terminal)."""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

KEPT = 8


class ActionLine(Widget):
    DEFAULT_CSS = """
    ActionLine { height: auto; }
    """

    lines: reactive[int] = reactive(1, layout=True)

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.entries: deque[Text] = deque(maxlen=KEPT)

    def add(self, line: Text) -> None:
        self.entries.append(line)
        self.refresh()

    def render(self) -> Text:
        shown = list(self.entries)[-self.lines :]
        rows = [Text("")] * (self.lines - len(shown)) + [e.copy() for e in shown]
        for older in rows[:-1]:
            older.stylize("dim")
        out = Text("\n").join(rows)
        out.no_wrap, out.overflow = True, "crop"
        return out

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.lines
