"""The key bar: the keys the screen offers now, in the interface language.

Textual's ``Footer`` shows each binding's description as declared (English) on one
line, cuts what does not fit and draws some keys with symbols. The key bar shows the
same active bindings (``Screen.active_bindings``: what ``check_action`` allows), each
description translated, the keys in plain ASCII (``Enter``, ``Esc``, ``^Q``), and wraps
onto a second line rather than lose a key on a narrow terminal.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.widget import Widget

from gbmj_tui.i18n import tr

KEY_NAMES = {
    "enter": "Enter",
    "escape": "Esc",
    "space": "Space",
    "question_mark": "?",
    "delete": "Del",
    "tab": "Tab",
    "left": "<-",
    "right": "->",
    "home": "Home",
    "end": "End",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}


def key_label(key: str) -> str:
    """``ctrl+q`` -> ``^Q``; ``escape`` -> ``Esc``; ``f1`` -> ``F1``; letters as they are."""
    first = key.split(",")[0]
    if first.startswith("ctrl+"):
        return "^" + first.removeprefix("ctrl+").upper()
    if first in KEY_NAMES:
        return KEY_NAMES[first]
    if len(first) > 1 and first[0] == "f" and first[1:].isdigit():
        return first.upper()
    return first


def key_bar_text(bindings: list[Binding], lang: str, width: int) -> Text:
    """``[key] what`` for each binding, wrapped at ``width``."""
    lines: list[Text] = []
    line = Text()
    for binding in bindings:
        chunk = Text()
        chunk.append(f" {key_label(binding.key)} ", style="bold reverse")
        chunk.append(f" {tr(binding.description, lang)}")
        if line.cell_len and line.cell_len + 2 + chunk.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append("  ")
        line.append_text(chunk)
    lines.append(line)
    out = Text("\n").join(lines)
    out.no_wrap, out.overflow = True, "crop"
    return out


class KeyBar(Widget):
    """The screen's keys (see the module's docstring), docked at the bottom."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: auto; max-height: 3; background: $panel; }
    """

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, _screen: object) -> None:
        self.refresh(layout=True)

    def bindings(self) -> list[Binding]:
        shown: dict[str, Binding] = {}
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if binding.show and active.enabled and binding.action not in shown:
                shown[binding.action] = binding
        return list(shown.values())

    def render(self) -> Text:
        return key_bar_text(self.bindings(), self.lang, self.size.width or 80)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(key_bar_text(self.bindings(), self.lang, width).plain.split("\n"))
