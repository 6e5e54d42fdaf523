"""The player's match history (h in the lobby) and one match's hands and standings
(docs/rules.md §2.10).

``HistoryScreen`` lists the player's matches newest first, a page at a time
(``list_matches``): the date, the table, everyone who played, and the player's rank,
points and coins. Enter opens a match (``MatchScreen``, ``get_match``): its hands, each
with its outcome and points, and the standings once it has ended; Enter on a hand
replays it (``ReplayAsked``), r saves it with a recorder (docs/rules.md §2.6: asked
first, with the cost). s in the history opens the saved hands (``SavedHandsScreen``,
``list_saved_hands``). The screens ask the server themselves (``Requested`` with the
screen as ``reply_to``). Names and table names are another person's text: plain
``Text``, never markup.
"""

from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gbmj_tui.i18n import N_, tr, trp
from gbmj_tui.messages import Refused, ReplayAsked, Replied, Requested
from gbmj_tui.model import hand_name
from gbmj_tui.screens.recorder import HandSaver
from gbmj_tui.screens.result import standings_table
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.words import MATCH_ENDS
from protocol import messages as m
from protocol.vocabulary import MatchEnd, Outcome

PAGE = 20


def when(unix: int) -> str:
    """A match's start in the player's local time: ``2026-03-14 20:05``."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(unix))


def signed(value: int | None) -> str:
    return "-" if value is None else f"{value:+d}"


def match_row(s: m.MatchSummary, lang: str) -> tuple[Text, ...]:
    """A match's cells: every one plain text (names and table names are not markup)."""
    date = when(s.started_at) + ("" if s.ended_at is not None else " " + tr("(playing)", lang))
    # Those who left a match are ranked after its four seats: no "5 of 4".
    rank = "-" if s.rank is None else str(s.rank) if s.rank <= 4 else tr("left early", lang)
    cells = (
        date,
        s.table_name,
        ", ".join(s.players),
        rank,
        signed(s.points),
        signed(s.coins),
        str(s.hands),
    )
    return tuple(Text(c) for c in cells)


class HistoryScreen(Screen[None]):
    """The player's matches, newest first, a page at a time."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter", "open", N_("Open"), priority=True),
        Binding("n", "page(1)", N_("Next page")),
        Binding("p", "page(-1)", N_("Previous page")),
        Binding("s", "saved", N_("Saved hands")),
        Binding("escape,h", "close", N_("Back")),
    ]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        self.page_start = 0
        self.total = 0
        self.matches: tuple[m.MatchSummary, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Static(id="history-page")
            yield DataTable(id="matches", cursor_type="row", zebra_stripes=True)
            yield Static(id="history-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self.query_one("#history-box").border_title = tr("Match history", self.lang)
        table = self.query_one("#matches", DataTable)
        lang = self.lang
        for label in (tr("Date", lang), tr("Table", lang), tr("Players", lang), tr("Rank", lang)):
            table.add_column(label)
        for label in (trp("score", "Points", lang), tr("Coins", lang), tr("Hands", lang)):
            table.add_column(label)
        table.focus()
        self._ask()

    def _ask(self) -> None:
        self.query_one("#history-note", Static).update(Text("..."))
        page = m.ListMatches(offset=self.page_start, limit=PAGE)
        self.post_message(Requested(page, reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.MatchList):
            self.show(replied.reply)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.query_one("#history-note", Static).update(Text(refused.text))

    def show(self, page: m.MatchList) -> None:
        lang = self.lang
        self.matches, self.total = page.matches, page.total
        table = self.query_one("#matches", DataTable)
        table.clear()
        for s in page.matches:
            table.add_row(*match_row(s, lang), key=str(s.match_id))
        if page.matches:
            words = tr("Matches {first}-{last} of {total}", lang)
            first, last = self.page_start + 1, self.page_start + len(page.matches)
            shown = words.format(first=first, last=last, total=page.total)
        else:
            shown = tr("No match played yet", lang) if not self.page_start else ""
        self.query_one("#history-page", Static).update(Text(shown))
        self.query_one("#history-note", Static).update(Text(""))

    def action_page(self, step: int) -> None:
        offset = self.page_start + step * PAGE
        if 0 <= offset < self.total:
            self.page_start = offset
            self._ask()
        else:
            last = tr("This is the last page", self.lang)
            first = tr("This is the first page", self.lang)
            self.query_one("#history-note", Static).update(Text(last if step > 0 else first))

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        table = self.query_one("#matches", DataTable)
        if self.matches and 0 <= table.cursor_row < len(self.matches):
            self.app.push_screen(MatchScreen(self.matches[table.cursor_row].match_id, self.lang))

    def action_saved(self) -> None:
        self.app.push_screen(SavedHandsScreen(self.lang))

    def action_close(self) -> None:
        self.dismiss(None)


def hand_outcome(h: m.HandSummary, lang: str) -> str:
    if h.outcome == Outcome.WIN and h.winner is not None:
        words = tr("{who} won, {total} fan", lang)
        return words.format(who=h.players[h.winner], total=h.total)
    if h.outcome == Outcome.ESCAPE:
        return tr("an escape", lang)
    return tr("Draw (wall exhausted)", lang)


def hand_points(h: m.HandSummary) -> str:
    return "  ".join(f"{name} {p:+d}" for name, p in zip(h.players, h.points, strict=True))


class MatchScreen(Screen[None]):
    """One match: its hands (Enter replays one) and, once it has ended, the standings."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter", "replay", N_("Replay"), priority=True),
        Binding("r", "save", N_("Save with a recorder")),
        Binding("escape", "close", N_("Back")),
    ]

    def __init__(self, match_id: int, lang: str) -> None:
        super().__init__()
        self.match_id = match_id
        self.lang = lang
        self.detail: m.MatchDetail | None = None
        self.saver = HandSaver(self, lang, self.note)

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Static(id="match-head")
            yield DataTable(id="hands", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="standings-box"):
                yield Static(id="standings")
            yield Static(id="history-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        words = tr("Match {id}", self.lang)
        self.query_one("#history-box").border_title = words.format(id=self.match_id)
        table = self.query_one("#hands", DataTable)
        for label in (N_("#"), N_("Round"), N_("Result")):
            table.add_column(tr(label, self.lang))
        table.add_column(trp("score", "Points", self.lang))
        table.focus()
        self.query_one("#history-note", Static).update(Text("..."))
        self.post_message(Requested(m.GetMatch(match_id=self.match_id), reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.MatchDetail):
            self.show(replied.reply)
        else:
            self.saver.replied(replied)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.saver.refused()
        self.note(refused.text)

    def note(self, text: str) -> None:
        self.query_one("#history-note", Static).update(Text(text))

    def show(self, detail: m.MatchDetail) -> None:
        lang = self.lang
        self.detail = detail
        s = detail.match
        head = Text(s.table_name, style="bold")  # plain: the owner's words
        head.append(f"   {when(s.started_at)}")
        if s.reason is not None:
            head.append("   " + tr(MATCH_ENDS[MatchEnd(s.reason)], lang))
        else:
            head.append("   " + tr("(playing)", lang))
        self.query_one("#match-head", Static).update(head)
        table = self.query_one("#hands", DataTable)
        table.clear()
        for h in detail.hands:
            cells = (
                str(h.number),
                hand_name(h.round_number, h.hand_number, lang),
                hand_outcome(h, lang),
                hand_points(h),
            )
            table.add_row(*(Text(c) for c in cells), key=str(h.hand_id))
        parts: list[RenderableType] = []
        closed = s.hands - len(detail.hands)  # a duplicate deal still in play elsewhere
        if detail.standings:
            parts.append(standings_table(detail.standings, lang, tr("Standings", lang)))
        elif closed > 0:
            text = tr(
                "Hands still to be played at another table (duplicate): {closed} of {played}. "
                "They open here, with the standings, once every table has played them.",
                lang,
            )
            parts.append(Text(text.format(closed=closed, played=s.hands)))
        elif not detail.hands:
            parts.append(Text(tr("No hand of this match has ended yet", lang)))
        self.query_one("#standings", Static).update(Group(*parts))
        self.query_one("#history-note", Static).update(Text(""))

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_replay()

    @property
    def selected(self) -> m.HandSummary | None:
        table = self.query_one("#hands", DataTable)
        hands = self.detail.hands if self.detail is not None else ()
        return hands[table.cursor_row] if 0 <= table.cursor_row < len(hands) else None

    def action_replay(self) -> None:
        hand = self.selected
        if hand is not None:
            self.post_message(ReplayAsked(hand.hand_id))

    def action_save(self) -> None:
        """Save the hand under the cursor with a recorder (asked first, with the cost)."""
        hand = self.selected
        if hand is not None:
            self.saver.start(
                hand.hand_id, hand_name(hand.round_number, hand.hand_number, self.lang)
            )

    def action_close(self) -> None:
        self.dismiss(None)


class SavedHandsScreen(Screen[None]):
    """The hands the player saved with a recorder, newest first (Enter replays one)."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter", "replay", N_("Replay"), priority=True),
        Binding("escape,s", "close", N_("Back")),
    ]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang
        self.saved: tuple[m.SavedHand, ...] = ()
        self.total: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box"):
            yield Static(id="history-page")
            yield DataTable(id="saved-hands", cursor_type="row", zebra_stripes=True)
            yield Static(id="history-note")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        lang = self.lang
        self.query_one("#history-box").border_title = tr("Saved hands", lang)
        table = self.query_one("#saved-hands", DataTable)
        for label in (N_("Saved"), N_("Table"), N_("Round"), N_("Result"), N_("Hand id")):
            table.add_column(tr(label, lang))
        table.focus()
        self.query_one("#history-note", Static).update(Text("..."))
        self.post_message(Requested(m.ListSavedHands(limit=m.MATCH_PAGE), reply_to=self))

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        if isinstance(replied.reply, m.SavedHands):
            self.show(replied.reply)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.query_one("#history-note", Static).update(Text(refused.text))

    def show(self, page: m.SavedHands) -> None:
        lang = self.lang
        self.saved, self.total = page.hands, page.total
        table = self.query_one("#saved-hands", DataTable)
        table.clear()
        for x in page.hands:
            h = x.hand
            cells = (
                when(x.saved_at),
                x.table_name,
                hand_name(h.round_number, h.hand_number, lang),
                hand_outcome(h, lang),
                str(h.hand_id),
            )
            table.add_row(*(Text(c) for c in cells), key=str(h.hand_id))
        if page.hands:
            words = tr("Saved hands 1-{last} of {total}", lang)
            shown = words.format(last=len(page.hands), total=page.total)
        else:
            shown = tr("No hand saved yet: r on a hand of a match saves it with a recorder", lang)
        self.query_one("#history-page", Static).update(Text(shown))
        self.query_one("#history-note", Static).update(Text(""))

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_replay()

    def action_replay(self) -> None:
        table = self.query_one("#saved-hands", DataTable)
        if 0 <= table.cursor_row < len(self.saved):
            self.post_message(ReplayAsked(self.saved[table.cursor_row].hand.hand_id))

    def action_close(self) -> None:
        self.dismiss(None)
