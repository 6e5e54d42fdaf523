"""The prompt bar: the claim bar after a discard, or the player's own-turn actions.

Claim bar: names the tile on offer and who discarded it, then one key per legal choice
(``h`` win, ``p`` pung, ``g`` kong, ``1``-``3`` each chow variant shown as its tiles) and
Space to pass; one choice is highlighted (the first, the most valuable), the arrows
move the highlight and Enter takes it. Own turn: Enter discards the selected tile, ``h``
declares a self-drawn win, ``g`` a kong (of the selected tile when it can be one). Only
what the server's prompt lists is shown and accepted.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from gbmj_tui.i18n import tr
from gbmj_tui.model import PromptView
from gbmj_tui.tiles import TileStyle, tile_text, tiles_label
from gbmj_tui.words import ACTIONS
from protocol.messages import ActionChoice
from protocol.vocabulary import ActionKind

CHOW_KEYS = "123"
KIND_KEYS = {"win": "h", "pung": "p", "exposed_kong": "g"}


@dataclass(frozen=True, slots=True)
class Option:
    """One keyed entry of the bar: the key, the choice it sends, its label."""

    key: str
    choice: ActionChoice | None  # None: the discard entry (the hand sends the tile)
    label: str


def claim_options(prompt: PromptView, style: TileStyle, lang: str) -> list[Option]:
    """The keyed options of a claim prompt, in priority order, pass last."""
    out: list[Option] = []
    win = prompt.of_kind("win")
    if win:
        out.append(Option("h", win[0], _word(ActionKind.WIN, lang)))
    for kind in ("pung", "exposed_kong"):
        for choice in prompt.of_kind(kind):
            out.append(Option(KIND_KEYS[kind], choice, _word(ActionKind(kind), lang)))
    for key, choice in zip(CHOW_KEYS, prompt.of_kind("chow"), strict=False):
        lowest = choice.tile if choice.tile is not None else 0
        tiles = tiles_label((lowest, lowest + 1, lowest + 2), style)
        out.append(Option(key, choice, f"{_word(ActionKind.CHOW, lang)} {tiles}"))
    passes = prompt.of_kind("pass")
    out.append(
        Option(
            "space",
            passes[0] if passes else ActionChoice(kind=ActionKind.PASS),
            _word(ActionKind.PASS, lang),
        )
    )
    return out


def _word(kind: ActionKind, lang: str) -> str:
    return tr(ACTIONS[kind], lang)


def turn_options(
    prompt: PromptView, selected: int | None, style: TileStyle, lang: str
) -> list[Option]:
    """The keyed options of an own-turn prompt."""
    out: list[Option] = []
    if prompt.allows("discard"):
        out.append(Option("enter", None, _word(ActionKind.DISCARD, lang)))
    win = prompt.of_kind("win")
    if win:
        out.append(Option("h", win[0], tr("Self-drawn win", lang)))
    kongs = prompt.of_kind("concealed_kong") + prompt.of_kind("added_kong")
    if kongs:
        best = next((k for k in kongs if k.tile == selected), kongs[0])
        label = f"{_word(ActionKind(best.kind), lang)} {tiles_label((best.tile or 0,) * 4, style)}"
        out.append(Option("g", best, label))
    return out


class PromptBar(Widget):
    """Shows the current prompt's choices; ``press(key)`` answers with ``Chosen``."""

    DEFAULT_CSS = """
    PromptBar { height: auto; min-height: 1; }
    """

    prompt: reactive[PromptView | None] = reactive(None, layout=True)
    highlight: reactive[int] = reactive(0)  # the claim choice Enter takes
    selected: reactive[int | None] = reactive(None)  # the hand's selected tile
    discarder: reactive[str] = reactive("")  # "西 Bob": who discarded the tile on offer
    tile_style: reactive[TileStyle] = reactive(TileStyle.CJK)
    lang: reactive[str] = reactive("zh")

    class Chosen(Message):
        """The player chose an action from the bar."""

        def __init__(self, choice: ActionChoice) -> None:
            super().__init__()
            self.choice = choice

    @property
    def options(self) -> list[Option]:
        p = self.prompt
        if p is None:
            return []
        if p.is_claim:
            return claim_options(p, self.tile_style, self.lang)
        return turn_options(p, self.selected, self.tile_style, self.lang)

    def watch_prompt(self, prompt: PromptView | None) -> None:
        self.highlight = 0

    def choice_for(self, key: str) -> ActionChoice | None:
        """The choice a key stands for now (None: not a key of this prompt)."""
        options = self.options
        if key == "enter" and self.prompt is not None and self.prompt.is_claim and options:
            return options[min(self.highlight, len(options) - 1)].choice
        for option in options:
            if option.key == key and option.choice is not None:
                return option.choice
        return None

    def press(self, key: str) -> bool:
        """Answer the prompt with the choice bound to ``key`` (or move the highlight);
        False if the key means nothing here."""
        if key in ("left", "right") and self.prompt is not None and self.prompt.is_claim:
            step = 1 if key == "right" else -1
            self.highlight = (self.highlight + step) % len(self.options)
            return True
        choice = self.choice_for(key)
        if choice is None:
            return False
        self.post_message(self.Chosen(choice))
        return True

    def render(self) -> Text:
        p = self.prompt
        if p is None:
            return Text("")
        out = Text()
        if p.is_claim and p.tile is not None:
            line = tr("{who} discarded", self.lang).format(who=self.discarder)
            out.append(line + " ", style="bold")
            out.append_text(tile_text(p.tile, self.tile_style))
            out.append("  ")
        elif not p.is_claim:
            out.append(tr("Your turn", self.lang) + "  ", style="bold")
        for i, option in enumerate(self.options):
            cap = option.key if len(option.key) == 1 else option.key.title()
            out.append(f"[{cap}]", style="bold reverse")
            lit = p.is_claim and i == self.highlight
            out.append(f" {option.label}", style="bold underline" if lit else "")
            out.append("  ")
        return out
