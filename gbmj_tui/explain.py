"""Why a key does nothing: the reason the action line gives, and in particular why the
player cannot win now (``h`` when the prompt offers no win).

The server decides what is legal; this only explains a refusal, with the pure rules
(gbmj.rules) the client may read: a hand that is not complete, or one worth fewer than
8 fan (flowers not counted). The count is the rules' own, for the hand as it stands.
"""

from __future__ import annotations

from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand, Meld
from gbmj.rules.scoring import WinContext, score_hand
from gbmj_tui.i18n import tr
from gbmj_tui.model import TableView
from protocol.tiles import Tile
from protocol.vocabulary import MeldKind

MIN_FAN = 8


def why_no_win(view: TableView, lang: str) -> str:
    """The reason there is no win: the tile that would win and the hand's fan."""
    prompt = view.prompt
    if view.me is None or prompt is None:
        return tr("No win is offered", lang)
    if prompt.is_claim:
        if prompt.tile is None:
            return tr("No win is offered", lang)
        hand, win_tile, self_drawn = view.hand, prompt.tile, False
    else:
        if view.drawn is None:
            return tr("No win is offered", lang)
        hand, win_tile, self_drawn = view.hand, view.drawn, True
    me = view.seats[view.me]
    try:
        melds = tuple(
            Meld(
                MeldKind(x.kind),
                Tile(x.tile),
                concealed=x.concealed,
                claimed_from=x.claimed_from,
                claimed_tile=None if x.claimed_tile is None else Tile(x.claimed_tile),
                added=x.added,
            )
            for x in me.melds
            if x.tile is not None
        )
        context = WinContext(
            win_tile=Tile(win_tile),
            self_drawn=self_drawn,
            seat_wind=Tile(me.wind),
            prevailing_wind=Tile(view.prevailing_wind),
        )
        score = score_hand(Hand(tuple(Tile(t) for t in hand), melds), context)
    except HandError:
        return tr("No win: the hand is not complete", lang)
    if score.total_without_flowers < MIN_FAN:
        text = tr("No win: this hand is {fan} fan, and 8 are needed (flowers not counted)", lang)
        return text.format(fan=score.total_without_flowers)
    return tr("No win is offered", lang)


def why_key_does_nothing(view: TableView, key: str, lang: str) -> str:
    """Why a game key does nothing now."""
    prompt = view.prompt
    if not view.playing:
        return tr("No hand is being played", lang)
    if prompt is None:
        if view.timer is not None and view.timer.seats:
            who = ", ".join(view.who(s, lang) for s in view.timer.seats)
            return tr("Not your turn: waiting for {who}", lang).format(who=who)
        return tr("Not your turn", lang)
    if key == "h":
        return why_no_win(view, lang)
    return tr("That key is not one of the choices offered", lang)
