"""The hand's end: every hand revealed, the winning tile set apart and named, the fan
table, each seat's points and score; and the match's standings.

The result waits for the player (Enter, Space or Esc): the next hand is not dealt until
every player at the table has closed it, or the table's pause has passed (it counts
down to that). Results left unread are shown in the order played (the app queues
them), and the match's standings only after the last hand's result is closed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gbmj_tui.i18n import N_, tr, trp
from gbmj_tui.messages import Refused, ReplayAsked, Replied
from gbmj_tui.model import TableView, round_label
from gbmj_tui.screens.recorder import HandSaver
from gbmj_tui.tiles import TileStyle, tile_text
from gbmj_tui.widgets.coach import coach_allowed
from gbmj_tui.widgets.fans import fan_lines, fan_table
from gbmj_tui.widgets.keybar import KeyBar
from gbmj_tui.widgets.render import meld_text
from gbmj_tui.words import MATCH_ENDS, STANDING_LEFT
from protocol import messages as m
from protocol.vocabulary import LeaveReason, MatchEnd


def result_heading(view: TableView, lang: str) -> Text:
    r = view.result
    if r is None or r.outcome == "exhaustive_draw":
        return Text(tr("Draw (wall exhausted)", lang), style="bold")
    if r.outcome == "escape" and r.escaper is not None:
        text = tr("{who} left the match (an escape)", lang)
        return Text(text.format(who=view.who(r.escaper, lang)), style="bold")
    assert r.winner is not None
    out = Text(tr("{who} wins", lang).format(who=view.who(r.winner, lang)), style="bold")
    if r.from_seat is None:
        out.append("  (" + tr("self-drawn", lang) + ")")
    else:
        giver = view.seats[r.from_seat].name
        out.append("  (" + tr("on the discard of {who}", lang).format(who=giver) + ")")
    return out


def revealed_hands(
    view: TableView, style: TileStyle, lang: str, *, spaced: bool = True, wide: bool = True
) -> Group:
    """Each seat on two lines: wind, name, the hand's points and the match score
    (underlined, where one seat's lines start); then the concealed tiles, the winning
    tile set apart and named, the melds. ``spaced``: a blank line between seats too;
    ``wide``: room for a gap between Chinese tile faces."""
    gap = wide and style is TileStyle.CJK
    r = view.result
    assert r is not None
    lines: list[Text] = []
    for seat in view.seats:
        s = seat.seat
        points = r.points[s] if s < len(r.points) else 0
        score = r.scores[s] if r.scores else seat.score
        head = Text()
        head.append(view.who(s, lang), style="bold underline")
        head.append(f"   {points:+d}", style="bold green" if points > 0 else "bold")
        head.append("   (" + tr("score {score}", lang).format(score=score) + ")")
        if r.coins is not None and s < len(r.coins):
            head.append("   " + tr("coins {coins:+d}", lang).format(coins=r.coins[s]))
            if r.fees is not None and s < len(r.fees) and r.fees[s]:
                head.append(" (" + tr("fee {fee}", lang).format(fee=r.fees[s]) + ")")
        flowers = r.flowers[s] if s < len(r.flowers) else ()
        if flowers:
            head.append("   ")
            for f in flowers:
                head.append_text(tile_text(f, style))
        tiles = list(r.hands[s]) if s < len(r.hands) else []
        win_tile = r.win_tile if r.winner == s else None
        won = win_tile is not None and win_tile in tiles
        if win_tile is not None and won:
            tiles.remove(win_tile)  # the winning tile goes apart, after its name
        line = Text("  ")
        for tile in tiles:
            line.append_text(tile_text(tile, style))
            if gap:
                line.append(" ")  # Chinese faces have no gap of their own: 二万 三万
        if r.sealed and not tiles and not won:
            line.append(tr("(hidden until every table has played this deal)", lang), style="dim")
        for meld in r.melds[s] if s < len(r.melds) else ():
            line.append(" ")
            line.append_text(meld_text(meld, style))
        if won and r.win_tile is not None:
            line.append("   " + tr("won on", lang) + " ", style="bold yellow")
            line.append_text(tile_text(r.win_tile, style, marked=True))
        if lines and spaced:
            lines.append(Text(""))  # hands do not run together
        lines.extend((head, line))
    return Group(*lines)


def standings_table(standings: Sequence[m.Standing], lang: str, title: str = "") -> Table:
    """Everyone who played a match: rank, name, points, coins, and why they left."""
    table = Table(title=title or None, box=None)
    points = trp("score", "Points", lang)  # a match's points, not a fan's
    for col in (tr("Rank", lang), tr("Player", lang), points, tr("Coins", lang), tr("Left", lang)):
        table.add_column(col)
    for s in standings:
        left = tr(STANDING_LEFT[LeaveReason(s.left)], lang) if s.left else ""
        name = Text(s.name + (" " + tr("(bot)", lang) if s.bot else ""))  # plain: a name
        table.add_row(str(s.rank), name, f"{s.points:+d}", f"{s.coins:+d}", left)
    return table


WALL_WORDS = {
    True: N_(
        "Wall verified: the tiles revealed are the wall the server locked in before the "
        "deal (its SHA-256 commitment matches), so nobody changed them during the hand."
    ),
    False: N_(
        "Wall NOT verified: the tiles revealed are not the wall the server locked in "
        "before the deal. The wall may have been changed during the hand."
    ),
    None: N_("The wall was not checked: this client did not see its commitment before the deal."),
}


SEALED_WORDS = N_(
    "The walls are revealed later: this duplicate deal is still to be played at another "
    "table. Once every table has played it, its hands and walls open in the history (h), "
    "where they can be checked."
)


def wall_line(verified: bool | None, lang: str, sealed: bool = False) -> Text:
    """Whether the revealed wall is the one promised before the deal, in plain words;
    or, for a sealed duplicate deal, that it is revealed later."""
    if sealed:
        return Text(tr(SEALED_WORDS, lang), style="yellow")
    style = {True: "green", False: "bold red", None: "dim"}[verified]
    return Text(tr(WALL_WORDS[verified], lang), style=style)


MORE_BELOW = N_("more below: Down, PgDn, End")


class ResultScreen(ModalScreen[None]):
    """A hand's result over the table; Enter, Space or Escape goes back."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("enter,space,escape", "close", N_("Back to the table")),
        Binding("v", "replay", N_("Replay")),
        Binding("c", "costly", N_("Costly discards")),
        Binding("r", "save", N_("Save with a recorder")),
    ]

    def __init__(
        self,
        view: TableView,
        style: TileStyle = TileStyle.CJK,
        lang: str = "zh",
        next_hand_ms: int | None = None,
    ):
        super().__init__()
        self.view = view
        self.tile_style = style
        self.lang = lang
        self.next_at = None if next_hand_ms is None else time.monotonic() + next_hand_ms / 1000
        self.started = False  # the next hand has started underneath
        self.hand_label = round_label(view, lang)  # the view moves on with the next hand
        self.saver = HandSaver(self, lang, self._say)

    def compose(self) -> ComposeResult:
        heading = Text(self.hand_label + "   ", style="bold")
        heading.append_text(result_heading(self.view, self.lang))  # 东风东局   东 Alice wins
        parts: list[RenderableType] = [heading]
        # Below 30 lines (80x24) the hands close up and the fans take a few lines: the
        # winner, every seat's points, the fans and their total, and the keys all show.
        roomy = self.app.size.height >= 30
        wide = self.app.size.width >= 100
        hands = revealed_hands(self.view, self.tile_style, self.lang, spaced=roomy, wide=wide)
        parts.append(hands)
        r = self.view.result
        if r is not None and r.outcome == "win" and roomy:
            parts.append(fan_table(r.fans, style=self.tile_style, lang=self.lang))
        elif r is not None and r.outcome == "win":
            parts.extend((Text(""), fan_lines(r.fans, lang=self.lang), Text("")))
        if r is not None:
            parts.append(wall_line(r.wall_verified, self.lang, r.sealed))
        with VerticalScroll(id="result-box"):
            yield Static(id="next-hand")
            yield Static(Group(*parts), id="result")
        yield KeyBar(self.lang)

    def on_mount(self) -> None:
        self._tick()
        self.set_interval(0.5, self._tick)
        box = self.query_one("#result-box", VerticalScroll)
        self.watch(box, "scroll_y", self._fold, init=False)
        self.watch(box, "virtual_size", self._fold_after_layout)

    def _fold_after_layout(self) -> None:
        # A new virtual size is told before the box's room is set: read both after.
        self.call_after_refresh(self._fold)

    on_resize = _fold_after_layout

    def _fold(self, _: object = None) -> None:
        """Say on the box's lower edge when more lies below what shows (a small
        terminal, a long result), and how to get there; nothing once it all shows."""
        box = self.query_one("#result-box", VerticalScroll)
        more = box.scroll_y < box.max_scroll_y
        box.border_subtitle = tr(MORE_BELOW, self.lang) if more else ""

    def next_hand_started(self) -> None:
        self.started = True
        self._tick()

    def superseded(self) -> None:
        """A newer hand's result waits behind this one: what comes next is told there."""
        self.next_at = None
        self.started = False
        if self.is_mounted:
            self._tick()

    def _tick(self) -> None:
        if self.started:
            line = Text(tr("The next hand has started: Enter to play", self.lang), style="bold")
        elif self.next_at is not None:
            left = max(self.next_at - time.monotonic(), 0)
            words = tr("Next hand in {seconds:.0f} s, or once everyone has closed this", self.lang)
            line = Text(words.format(seconds=left))
        else:
            line = Text("")
        shown = self.query_one("#next-hand", Static)
        shown.display = bool(line.plain)  # no empty line where room is short
        shown.update(line)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay" and self.view.result is not None and self.view.result.sealed:
            return False  # a duplicate deal in play: its replay opens later (§2.14)
        if action in ("replay", "save"):
            return self.view.result is not None and self.view.result.hand_id is not None
        if action == "costly":  # the coach's review, where the table allows the coach
            return coach_allowed(self.view) and self.check_action("replay", parameters) is True
        return True

    def action_replay(self) -> None:
        r = self.view.result
        if r is not None and r.hand_id is not None:
            self.post_message(ReplayAsked(r.hand_id))

    def action_costly(self) -> None:
        r = self.view.result
        if r is not None and r.hand_id is not None:
            self.post_message(ReplayAsked(r.hand_id, costly=True))

    def action_save(self) -> None:
        """Keep this hand for good with a recorder (asked first, with the cost)."""
        r = self.view.result
        if r is not None and r.hand_id is not None:
            self.saver.start(r.hand_id, self.hand_label)

    def _say(self, text: str) -> None:
        if text.strip("."):  # a toast for what happened, none while waiting
            self.notify(text, markup=False)

    @on(Replied)
    def _replied(self, replied: Replied) -> None:
        replied.stop()
        self.saver.replied(replied)

    @on(Refused)
    def _refused(self, refused: Refused) -> None:
        refused.stop()
        self.saver.refused()
        self.notify(refused.text, markup=False, severity="warning")

    def action_close(self) -> None:
        self.dismiss(None)


class StandingsScreen(ModalScreen[None]):
    """The match's end: how it ended and everyone's standing."""

    CSS_PATH = "../styles/app.tcss"
    BINDINGS = [Binding("enter,space,escape", "close", N_("Close"))]  # noqa: RUF012

    def __init__(self, result: m.MatchResult, lang: str = "zh") -> None:
        super().__init__()
        self.result = result
        self.lang = lang

    def compose(self) -> ComposeResult:
        title = tr(MATCH_ENDS[MatchEnd(self.result.reason)], self.lang)
        with VerticalScroll(id="result-box"):
            yield Static(standings_table(self.result.standings, self.lang, title))
        yield KeyBar(self.lang)

    def action_close(self) -> None:
        self.dismiss(None)
