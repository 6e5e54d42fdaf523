"""A widget drawn as lines of text that repaints only the lines that changed.

A table redraws after every event, and most events change one row of one pool: a widget
that re-renders its whole text (Textual's ``render``) converts every line again, and
its whole region is composited again with every container under it. ``LineWidget``
keeps the strips it drew, one per line, keyed by the line's text and styles: after a
change it works out which lines differ and marks only those dirty (``refresh`` with
their regions), and a line that did not change is handed back as it was.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

LineKey = tuple[str, tuple[Span, ...], object]  # a line's characters and styles


def _key(line: Text) -> LineKey:
    return line.plain, tuple(line.spans), line.style


Place = tuple[int, int]  # where a line starts in the text: character, paragraph


def _wrap(text: Text, console: Console, width: int) -> tuple[list[Text], list[Place]]:
    """``text``'s lines at ``width``, as Textual wraps: a line broken at a space loses
    the spaces it ends with (so that it aligns as Textual's own widgets do); and where
    each starts in the text (for a mouse selection, which counts in the text's own
    lines)."""
    paragraphs = text.split("\n", allow_blank=True)
    if text.no_wrap:  # a line never wraps (a pool's rows): the lines as they are
        return list(paragraphs), [(0, y) for y in range(len(paragraphs))]
    lines: list[Text] = []
    places: list[Place] = []
    for y, paragraph in enumerate(paragraphs):
        wrapped = paragraph.wrap(console, max(width, 1), no_wrap=text.no_wrap)
        pieces = list(wrapped) or [paragraph]
        x = 0
        for piece in pieces:
            places.append((x, y))
            x += len(piece.plain)
        for piece in pieces[:-1]:
            piece.rstrip()
        lines.extend(pieces)
    return lines, places


class LineWidget(Widget):
    """Subclasses say what they show in ``render`` (a Rich ``Text``, wrapped to the
    width unless it says ``no_wrap``) and call ``changed`` when a value it draws
    changed (reactives declared with ``repaint=False`` and a watcher calling it); a
    change of size or style repaints everything as any widget does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # width, lines, their keys, where each starts in the text
        self._lines: tuple[int, list[Text], list[LineKey], list[Place]] | None = None
        self._shown: list[LineKey] | None = None  # the lines on the screen, as far as known
        # the strips drawn, by line, width, alignment, the colours under them, where the
        # line is in the text and what of it is selected
        self._strips: dict[
            tuple[LineKey, int, str, Style, Place, tuple[int, int] | None], Strip
        ] = {}
        self._pending = False  # a repaint of the changed lines is on its way

    def changed(self) -> None:
        """A value the text depends on changed: repaint the lines that differ, once
        for every change made in the same turn (a table's ``show`` sets several)."""
        self._lines = None
        if not self._pending and self.is_mounted:
            self._pending = True
            self.call_later(self._repaint_changes)

    def _current(self) -> tuple[list[Text], list[LineKey], list[Place]]:
        """The lines of the text now, at the widget's width (computed once a change)."""
        width = self.content_region.width
        if self._lines is None or self._lines[0] != width:
            text = self.render()
            assert isinstance(text, Text)
            lines, places = _wrap(text, self.app.console, width) if text.plain else ([], [])
            keys = [_key(line) for line in lines]
            if self._lines is not None or self._shown is None:  # a new size: all drawn
                self._shown = keys
            self._lines = (width, lines, keys, places)
        return self._lines[1], self._lines[2], self._lines[3]

    def _repaint_changes(self) -> None:
        self._pending = False
        shown = self._shown
        _lines, keys, _places = self._current()
        self._shown = keys
        width = self.content_region.width
        height = self.styles.height
        sized = height is None or height.is_auto  # the widget is as high as its text
        if shown is None or (sized and len(keys) != len(shown)):
            # never drawn yet, or more or fewer lines where that changes the height
            self.refresh(layout=sized)
            return
        blank: LineKey = ("", (), "")  # a line past the text's end
        for y in range(max(len(shown), len(keys))):
            old = shown[y] if y < len(shown) else blank
            new = keys[y] if y < len(keys) else blank
            if old != new:
                self.refresh(Region(0, y, width, 1))

    def _selected(self, line: Text, place: Place) -> tuple[int, int] | None:
        """The part of ``line`` (starting at ``place``) under the mouse's selection."""
        selection = self.text_selection
        span = selection.get_span(place[1]) if selection is not None else None
        if span is None:
            return None
        start, end = span
        first = max(start - place[0], 0)
        last = len(line.plain) if end == -1 else min(end - place[0], len(line.plain))
        return (first, last) if first < last else None

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        lines, keys, places = self._current()
        if y >= len(lines):
            return Strip.blank(width, self.rich_style)
        align = self.styles.text_align  # the CSS's text-align, as Textual's widgets have it
        base = self.rich_style  # the colours under the text (a box's, the turn's shade)
        selected = self._selected(lines[y], places[y])
        key = (keys[y], width, align, base, places[y], selected)
        found = self._strips.get(key)
        if found is None:
            if len(self._strips) > 4 * max(len(lines), 16):
                self._strips.clear()  # lines of earlier states: let them go
            console, line = self.app.console, lines[y]
            if selected is not None:
                line = line.copy()
                style = self.screen.get_component_rich_style("screen--selection")
                line.stylize(style, *selected)
            line.no_wrap, line.overflow, line.end = True, "crop", ""
            excess = width - line.cell_len
            pad = 0
            if excess > 0 and align in ("center", "right", "end"):  # as Textual aligns
                pad = excess // 2 if align == "center" else excess
                line = Text(" " * pad) + line
                line.no_wrap, line.overflow, line.end = True, "crop", ""
            segments = console.render(line, console.options.update_width(max(width, 1)))
            row = next(iter(Segment.split_and_crop_lines(segments, width, pad=True)), [])
            found = Strip(_placed(row, places[y], pad), width).apply_style(base)
            self._strips[key] = found
        return found


def _placed(row: list[Segment], place: Place, pad: int) -> list[Segment]:
    """``row``'s segments, each saying where its first character is in the widget's
    text, as Textual's own widgets say it: a mouse selection starts and ends there
    (without it, a drag selects the whole widget and shows nothing)."""
    x, y = place
    out: list[Segment] = []
    at = -pad  # characters into the line; the alignment's spaces before it
    for segment in row:
        meta = Style.from_meta({"offset": (x + max(at, 0), y)})
        style = segment.style + meta if segment.style is not None else meta
        out.append(Segment(segment.text, style, segment.control))
        at += len(segment.text)
    return out
