"""The keys, in words: the help screen's (the lobby's ``?``) and the table's help
panel, which takes the chat's place beside the board so the table stays in sight."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from gbmj_tui.i18n import N_, tr
from gbmj_tui.widgets.hand import KEY_LABELS

TABLE_KEYS = (
    ("<- ->  Home End", N_("move the selection in your hand (your turn)")),
    (" ".join(KEY_LABELS), N_("select a tile by the key under it; the same key again discards it")),
    (
        N_("Enter / click twice"),
        N_("discard the selected tile; on a claim: the highlighted choice"),
    ),
    ("h", N_("win (on a discard, or self-drawn)")),
    ("g", N_("kong (concealed, or add to a pung: the selected tile)")),
    ("p", N_("pung")),
    ("1 2 3", N_("chow (one key per way to chow)")),
    ("Space", N_("pass")),
    ("a", N_("auto-play on/off: the server plays for you; a again takes it back")),
    ("w", N_("auto-win on/off (declare every win offered)")),
    ("x", N_("auto-pass on/off (pass every claim but a win)")),
    (
        "e",
        N_(
            "arm/disarm a timer extension: +90 s when your turn runs out; "
            "each use costs 270 coins, 90 to each other seat"
        ),
    ),
    ("t", N_("use a tile counter: unseen tiles for the rest of the hand")),
    ("i", N_("hints: useful tiles, waits and their fan, plans (free tables); I keeps them open")),
    ("f", N_("the fan reference: the 81 fans, searchable")),
    ("c", N_("table chat")),
    ("r", N_("ready / not ready (before the match)")),
    (
        "b",
        N_("seats: choose yours; the owner adds bots (easy, normal, hard), removes them and kicks"),
    ),
    ("o", N_("the table's settings (owner, before the match; a new name costs a table sign)")),
    ("Esc", N_("back to the lobby (in a running match: an escape, press twice)")),
    ("?", N_("this help")),
    ("^Q", N_("quit")),
)
LOBBY_KEYS = (
    ("n", N_("new table")),
    ("j / Enter", N_("join the selected table")),
    ("s", N_("watch the selected table")),
    ("r", N_("refresh the table list")),
    ("i", N_("items and shop")),
    ("l", N_("leaderboard")),
    ("k", N_("SSH keys")),
)


def keys_table(keys: tuple[tuple[str, str], ...], lang: str) -> Table:
    """Keys and what they do side by side (the help screen)."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold", overflow="fold")
    table.add_column(overflow="fold")
    for key, what in keys:
        table.add_row(Text(tr(key, lang)), Text(tr(what, lang)))
    return table


def keys_text(keys: tuple[tuple[str, str], ...], lang: str) -> Text:
    """Each key then what it does, wrapping in a narrow panel (beside the board)."""
    out = Text()
    for key, what in keys:
        out.append(tr(key, lang), style="bold")
        out.append("  " + tr(what, lang) + "\n")
    return out


def help_body(lang: str, *, narrow: bool = False) -> Group:
    keys = keys_text if narrow else keys_table
    return Group(
        Text(tr("At the table", lang), style="bold underline"),
        keys(TABLE_KEYS, lang),
        Text(""),
        Text(tr("In the lobby", lang), style="bold underline"),
        keys(LOBBY_KEYS, lang),
    )


class HelpPanel(VerticalScroll):
    """The keys beside the board (``?`` at the table)."""

    DEFAULT_CSS = """
    HelpPanel { height: 1fr; padding: 0 1; }
    """

    def __init__(self, lang: str, *, id: str) -> None:
        super().__init__(id=id)
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(help_body(self.lang, narrow=True))
