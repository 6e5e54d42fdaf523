"""A checkbox that can be drawn in ASCII (``[X]``): Textual's draws half blocks. Off, its
box is empty: Textual's shows an ``X`` both ways and tells them apart by colour only,
which a monochrome terminal does not show."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class Toggle(Checkbox):
    """A compact checkbox; ``ascii``: its box is ``[`` and ``]``; ``X`` when on only."""

    def __init__(self, label: str, value: bool, *, id: str, ascii: bool = False) -> None:
        super().__init__(label, value, id=id, compact=True)
        if ascii:
            self.BUTTON_LEFT, self.BUTTON_RIGHT = "[", "]"

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button
