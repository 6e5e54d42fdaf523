"""The coach's panel at the table (docs/rules.md §2.13): hints toward the 8-fan minimum,
computed here in the client from the player's own view (``TableView``) and nothing else,
shown beside the board in the chat's place.

``coach_allowed(view)`` says whether the viewer may have hints (a seated player at a
free table whose owner left them on); ``sight_of_view(view)`` reads what the player sees;
``coach_text`` writes the hints; ``CoachPanel`` shows them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from gbmj.bots.plans import Plan
from gbmj.coach import (
    ClaimHint,
    Hints,
    Sight,
    Useful,
    WaitHint,
    claim_hints,
    claim_meld,
    hints,
    sight,
)
from gbmj.coach.review import Decision, review
from gbmj.replay import hand_state
from gbmj.rules.errors import HandError
from gbmj.rules.hand import Meld
from gbmj_tui.i18n import N_, fan_name, tr, trp
from gbmj_tui.model import MeldModel, TableView
from gbmj_tui.replay import HandReplay, steps_of_events
from gbmj_tui.tiles import TileStyle, tiles_label
from protocol.messages import Discard
from protocol.tiles import SUIT_EN, SUIT_ZH, SUITS, Tile
from protocol.vocabulary import ActionKind, MeldKind

DISCARDS_SHOWN = 4
NARROW = 26  # columns beside the board under which the panel takes its short form
PLANS_SHOWN = 4
USEFUL_SHOWN = 8  # tiles listed after a discard (the count says how many in all)
CLAIM_KINDS = {
    ActionKind.CHOW: MeldKind.CHOW,
    ActionKind.PUNG: MeldKind.PUNG,
    ActionKind.EXPOSED_KONG: MeldKind.KONG,
}
CLAIM_WORDS = {MeldKind.CHOW: N_("Chow"), MeldKind.PUNG: N_("Pung"), MeldKind.KONG: N_("Kong")}


def coach_allowed(view: TableView) -> bool:
    """Hints for the viewer: a seated player, the owner's setting not off, and a free
    table or solo play (the three other seats bots, whatever the stake: no other player
    is there to be wronged)."""
    if view.me is None:
        return False
    s = view.settings
    if s is not None and s.coach is False:
        return False
    if view.stake or (s is not None and s.stake):
        return all(seat.bot for seat in view.seats if seat.seat != view.me)
    return True


def _meld(m: MeldModel) -> Meld | None:
    if m.tile is None:
        return None
    return Meld(
        MeldKind(m.kind),
        Tile(m.tile),
        concealed=m.concealed,
        claimed_from=m.claimed_from,
        claimed_tile=Tile(m.claimed_tile) if m.claimed_tile is not None else None,
        added=m.added,
    )


def sight_of_view(view: TableView) -> Sight | None:
    """What the player sees: their tiles, every pool, the other seats' exposed melds
    (None for a spectator, or a hand not of 13 or 14 tiles)."""
    if view.me is None:
        return None
    me = view.seats[view.me]
    concealed = (*view.hand, *(() if view.drawn is None else (view.drawn,)))
    visible: list[int] = []
    for s in view.seats:
        visible += s.pool  # a claimed discard is counted in its meld
        if s.seat != view.me:
            for m in s.melds:
                if m.tile is not None and not m.concealed:
                    visible += [t for t in m.tiles if t is not None]
    try:
        melds = tuple(x for x in map(_meld, me.melds) if x is not None)
        seen = sight(
            concealed,
            melds,
            flowers=len(me.flowers),
            seat_wind=me.wind,
            prevailing_wind=view.prevailing_wind,
            visible=visible,
        )
    except (HandError, ValueError):
        return None
    return seen if seen.size in (13, 14) else None


def claims_of_view(view: TableView, seen: Sight) -> tuple[ClaimHint, ...]:
    """At a claim prompt: what each chow, pung or kong offered would do."""
    prompt = view.prompt
    if prompt is None or not prompt.is_claim or prompt.tile is None or view.me is None:
        return ()
    if prompt.from_seat is None or seen.size != 13:
        return ()
    out = []
    for choice in prompt.actions:
        kind = CLAIM_KINDS.get(choice.kind)
        if kind is None:
            continue
        tile = choice.tile if kind is MeldKind.CHOW and choice.tile is not None else prompt.tile
        try:
            meld = claim_meld(kind, tile, prompt.tile, (view.me - prompt.from_seat) % 4)
            out.append(claim_hints(seen, meld))
        except HandError:
            continue
    return tuple(out)


# -- the words ----------------------------------------------------------------------------
def _tile(t: int, style: TileStyle) -> str:
    return tiles_label([t], style)


def _useful(useful: Sequence[Useful], style: TileStyle) -> str:
    shown = [f"{_tile(u.tile, style)}({u.unseen})" for u in useful[:USEFUL_SHOWN]]
    return " ".join(shown) + (" …" if len(useful) > USEFUL_SHOWN else "")


def _away(n: int, lang: str) -> str:
    if n < 0:
        return trp("hand", "complete", lang)
    if n == 0:
        return trp("hand", "ready", lang)
    return tr("{n} from ready", lang).format(n=n)


def plan_name(plan: Plan, lang: str) -> str:
    """The plan's fans in the interface language, its suit when it has one."""
    name = "+".join(fan_name(f, lang) for f in plan.fans)
    if plan.suit >= 0:
        letter = SUITS[plan.suit]
        name += f" ({SUIT_ZH[letter] if lang == 'zh' else SUIT_EN[letter]})"
    return name


def _eight(meets: bool, ok: bool, style: TileStyle) -> str:
    if not ok:
        return "-"
    return "8+" if meets else "<8"


def _wait_line(w: WaitHint, lang: str, style: TileStyle) -> Text:
    line = Text(f" {_tile(w.tile, style)} ")
    for total, meets, possible in (
        (w.discard_total, w.discard_meets_8, w.discard is not None),
        (w.self_drawn_total, w.self_drawn_meets_8, w.self_drawn is not None),
    ):
        line.append(f" {total:>3} ")
        line.append(_eight(meets, possible, style), style="bold green" if meets else "red")
    line.append("  " + tr("{n} left", lang).format(n=w.unseen))
    if w.fourth_tile:
        line.append(" " + fan_name(58, lang))  # 和绝张: the last copy
    return line


def coach_text(
    h: Hints,
    claims: Sequence[ClaimHint],
    lang: str,
    style: TileStyle,
    *,
    kept: bool = False,
    narrow: bool = False,
) -> Text:
    """The hints as the panel shows them; ``narrow`` (a small terminal): each discard on
    one short line (``E → 6/17``: kinds/tiles), without the tiles listed."""
    title = tr("Hints", lang) + (" · " + tr("kept open", lang) if kept else "")
    lines = [Text(title, style="bold underline")]
    if h.size == 14:
        lines.append(Text(_away(h.shanten, lang), style="bold"))
        if narrow:
            lines.append(Text(tr("discard → kinds/tiles", lang), style="dim"))
        for d in h.discards[:DISCARDS_SHOWN]:
            words = (
                "{tile} → {kinds}/{tiles}"
                if narrow
                else tr("discard {tile} → {kinds} kinds, {tiles} tiles", lang)
            )
            head = words.format(
                tile=_tile(d.tile, style), kinds=d.useful_kinds, tiles=d.useful_tiles
            )
            line = Text(head, style="bold" if d is h.discards[0] else "")
            if d.shanten == 0:
                line.append(
                    " · " + tr("{n} reach 8 fan", lang).format(n=d.winning_8),
                    style="green" if d.winning_8 else "red",
                )
            elif d.shanten > h.shanten:
                line.append(" · " + _away(d.shanten, lang), style="dim")
            lines.append(line)
            if not narrow:
                lines.append(Text("  " + _useful(d.useful, style), style="dim"))
    elif h.waits:
        lines.append(Text(tr("Ready: each winning tile", lang), style="bold"))
        lines.append(Text(tr("      discard  self-drawn", lang), style="dim"))
        lines += [_wait_line(w, lang, style) for w in h.waits]
        if h.no_wait_reaches_8:
            lines.append(Text(tr("No winning tile reaches 8 fan: this hand cannot win yet", lang)))
            lines[-1].stylize("bold red")
    else:
        n = sum(u.unseen for u in h.useful)
        lines.append(Text(_away(h.shanten, lang), style="bold"))
        lines.append(
            Text(
                tr("useful: {kinds} kinds, {tiles} tiles", lang).format(
                    kinds=len(h.useful), tiles=n
                )
            )
        )
        lines.append(Text("  " + _useful(h.useful, style), style="dim"))
    if claims:
        lines.append(Text(tr("If you claim", lang), style="bold"))
        for c in claims:
            word = tr(CLAIM_WORDS[c.meld.kind], lang)
            line = Text(f" {word} {tiles_label(c.meld.tiles, style)}: ")
            line.append(
                tr("shanten {before} → {after}", lang).format(
                    before=c.shanten_before, after=c.shanten_after
                )
            )
            before = {p.plan.name: p.distance for p in c.plans_before}
            changes = [
                f"{plan_name(p.plan, lang)} {before[p.plan.name]}→{p.distance}"
                for p in c.plans_after
                if p.plan.name in before and before[p.plan.name] != p.distance
            ]
            lines.append(line)
            if changes:
                lines.append(Text("  " + ", ".join(changes), style="dim"))
    if h.plans:
        lines.append(Text(tr("Plans toward 8 fan", lang), style="bold"))
        for p in h.plans[:PLANS_SHOWN]:
            line = Text(f" {plan_name(p.plan, lang)} ")
            line.append(f"{p.plan.fan}", style="bold")
            line.append(" · " + _away(p.distance, lang))
            if p.discard is not None:
                line.append(" · " + tr("discard {tile}", lang).format(tile=_tile(p.discard, style)))
            lines.append(line)
            if p.moves and not narrow:
                lines.append(Text("  " + _useful(p.moves, style), style="dim"))
    return Text("\n").join(lines)


# -- the review after a hand --------------------------------------------------------------
def review_of(replay: HandReplay, lang: str, style: TileStyle) -> tuple[tuple[int, Text], ...]:
    """The replay's viewer's costliest discards (``gbmj.coach.review``), each as the
    replay step just before it (their turn, the tile drawn) and what it cost, in words.
    Nothing for a spectator's replay."""
    seat = replay.viewer
    if seat is None:
        return ()
    decisions = review(replay.hand, seat)
    if not decisions:
        return ()
    # The replay's steps group the hand's events: the step holding the seat's n-th
    # discard follows the moment of the decision.
    before: dict[int, int] = {}
    turn = 0
    for i, group in enumerate(steps_of_events(hand_state(replay.hand).events)):
        for event in group:
            if isinstance(event, Discard) and event.seat == seat:
                turn += 1
                before[turn] = max(0, i - 1)
    return tuple((before.get(d.turn, 0), decision_text(d, lang, style)) for d in decisions)


def decision_text(d: Decision, lang: str, style: TileStyle) -> Text:
    """``Turn 7: you discarded 5p; 2m kept 4 more useful tiles and 三色三步高``."""
    words = tr("Turn {turn}: you discarded {chosen}; the strongest bot discards {better}", lang)
    out = Text(
        words.format(turn=d.turn, chosen=_tile(d.chosen, style), better=_tile(d.better, style))
    )
    more = d.useful_better - d.useful_chosen
    if d.shanten_better < d.shanten_chosen:
        out.append(" · " + tr("one step nearer ready", lang))
    elif more > 0:
        out.append(" · " + tr("{n} more useful tiles", lang).format(n=more))
    if d.plans_kept:
        kept = ", ".join(plan_name(p, lang) for p in d.plans_kept[:2])
        out.append(" · " + tr("keeps {plans}", lang).format(plans=kept))
    return out


class CoachPanel(Static):
    """The hints beside the board, in the chat's place (as the help panel), shown on
    request (``set_open``); spectators and stake tables get nothing (``coach_allowed``)."""

    SCOPED_CSS = False  # the app's -ascii class picks the rule above it
    DEFAULT_CSS = """
    CoachPanel {
        height: 1fr;
        min-height: 3;
        padding: 0 1;
        border-top: round $accent;
        overflow-y: auto;
        display: none;
    }
    .-ascii CoachPanel {
        border-top: ascii $accent;
    }
    """

    def __init__(self, lang: str, tile_style: TileStyle, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.lang = lang
        self.tile_style = tile_style
        self.kept = False  # stays open across turns
        self._key: object = None  # what the text was computed from
        self.text = Text()  # what it shows

    def set_open(self, open_: bool, view: TableView) -> None:
        """Show (computing for ``view``) or hide the hints; the chat gives way to them."""
        self.display = open_ and coach_allowed(view)
        if self.parent is not None:
            for chat in self.parent.query("#table-chat"):
                chat.display = not self.display
        self.show_view(view)

    def show_view(self, view: TableView) -> None:
        """Recompute for ``view`` when open; close when hints are not allowed."""
        if not self.display:
            return
        if not coach_allowed(view):
            self.set_open(False, view)
            return
        seen = sight_of_view(view)
        prompt = view.prompt
        # Beside a small board the panel has a dozen columns: the short form.
        parent = self.parent
        narrow = isinstance(parent, Widget) and 0 < parent.size.width < NARROW
        key = (seen, prompt, self.kept, self.lang, self.tile_style, narrow)
        if key == self._key:
            return
        self._key = key
        if seen is None:
            self.text = Text(tr("No hints now: wait for your tiles", self.lang))
        else:
            self.text = coach_text(
                hints(seen),
                claims_of_view(view, seen),
                self.lang,
                self.tile_style,
                kept=self.kept,
                narrow=narrow,
            )
        self.update(self.text)
