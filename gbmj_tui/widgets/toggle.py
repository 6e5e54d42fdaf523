"""A checkbox that can be drawn in ASCII (``[X]``): Textual's draws half blocks."""

from __future__ import annotations

from textual.widgets import Checkbox


class Toggle(Checkbox):
    """A compact checkbox; ``ascii``: its box is ``[`` and ``]``."""

    def __init__(self, label: str, value: bool, *, id: str, ascii: bool = False) -> None:
        super().__init__(label, value, id=id, compact=True)
        if ascii:
            self.BUTTON_LEFT, self.BUTTON_RIGHT = "[", "]"
