"""The table's status line: the table, its owner, the round and hand, the dealer, the
wall, the dice, and the toggles that are on. Plain text: names may hold brackets."""

from __future__ import annotations

from rich.text import Text

from gbmj_tui.i18n import N_, tr
from gbmj_tui.model import TableView, round_label


def status_text(view: TableView, lang: str, toggles: tuple[bool, bool] = (False, False)) -> Text:
    """``Table 1 | owner Alice | South round, hand 3 | dealer ... | wall 61 | dice ...``."""
    parts: list[str] = []
    if view.me is None:
        parts.append(tr("Spectating", lang))
    if view.table_name:
        parts.append(view.table_name)
    if view.owner:
        parts.append(tr("owner {name}", lang).format(name=view.owner))
    if not view.match_running and view.me is None:  # a spectator has no ready key
        parts.append(tr("Waiting for players (b: take a free seat)", lang))
    elif not view.match_running:  # no match: it waits for its players
        parts.append(tr("Waiting: four seated, all ready (r)", lang))
    elif view.dice:
        parts.append(round_label(view, lang))
        parts.append(tr("dealer {who}", lang).format(who=view.who(view.dealer, lang)))
    auto_win, auto_pass = toggles
    me = view.seats[view.me] if view.me is not None else None
    flags = [
        tr(word, lang)
        for word, on in (
            (N_("auto-win"), auto_win),
            (N_("auto-pass"), auto_pass),
            (N_("auto-play"), me is not None and me.auto_play),
            (N_("extension armed"), view.extension_armed),
        )
        if on
    ]
    if flags:  # before the wall and dice: a narrow terminal cuts the end of the line
        parts.append("[" + " ".join(flags) + "]")
    if view.match_running and view.dice:
        parts.append(tr("Wall {count}", lang).format(count=view.wall_count))
        dice = " ".join(f"{a}+{b}" for a, b in view.dice)
        parts.append(tr("dice {dice}", lang).format(dice=dice))
    out = Text(" | ".join(parts))
    out.no_wrap, out.overflow = True, "crop"
    return out
