"""The action line's words: what just happened at the table, one short line an event.

``event_line(view, body, lang)`` reads the view *before* the event (who sits where)
and returns the line, or None for what needs no words (a draw, the deal). Names are
another person's text: they go into ``Text`` as plain characters, never markup.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text

from gbmj_tui.i18n import N_, tile_name, tr, wind_name
from gbmj_tui.model import TableView, round_label
from gbmj_tui.words import PRESENCE
from protocol import messages as m
from protocol.vocabulary import Presence


def _line(template: str, lang: str, style: str = "", **values: str) -> Text:
    """``template`` (a msgid: the catalog collects ``_line``'s first argument too) in
    ``lang``, filled with ``values`` as plain text."""
    return Text(tr(template, lang).format(**values), style=style)


def event_line(view: TableView, body: m.EventBody, lang: str) -> Text | None:
    """The line for one event, or None."""
    who = view.who(body.seat, lang) if hasattr(body, "seat") else ""
    if isinstance(body, m.Discard):
        return _line("{who} discarded {tile}", lang, who=who, tile=tile_name(body.tile, lang))
    if isinstance(body, m.Chow | m.Pung | m.ExposedKong):
        template = {
            m.Chow: N_("{who} chowed {tile} from {giver}"),
            m.Pung: N_("{who} punged {tile} from {giver}"),
            m.ExposedKong: N_("{who} made a kong of {tile} from {giver}"),
        }[type(body)]
        giver = view.who(body.from_seat, lang)
        tile = tile_name(body.claimed_tile, lang)
        return _line(template, lang, "bold", who=who, tile=tile, giver=giver)
    if isinstance(body, m.ConcealedKong):
        if body.tile is None:
            return _line("{who} declared a concealed kong", lang, "bold", who=who)
        tile = tile_name(body.tile, lang)
        return _line("{who} declared a concealed kong of {tile}", lang, "bold", who=who, tile=tile)
    if isinstance(body, m.AddedKong):
        tile = tile_name(body.tile, lang)
        return _line("{who} added {tile} to a kong", lang, "bold", who=who, tile=tile)
    if isinstance(body, m.Flower):
        tile = tile_name(body.tile, lang)
        return _line(
            "{who} set aside flower {tile} and drew a replacement", lang, who=who, tile=tile
        )
    if isinstance(body, m.Win):
        tile = tile_name(body.win_tile, lang)
        if body.from_seat is None:
            return _line("{who} won, self-drawn {tile}", lang, "bold", who=who, tile=tile)
        giver = view.who(body.from_seat, lang)
        return _line("{who} won on {giver}'s {tile}", lang, "bold", who=who, giver=giver, tile=tile)
    if isinstance(body, m.ExhaustiveDraw):
        return _line("The wall is exhausted: a draw", lang, "bold")
    if isinstance(body, m.Escape):
        return _line("{who} left the match (an escape)", lang, "bold", who=who)
    if isinstance(body, m.HandStart):
        start = replace(view, prevailing_wind=body.prevailing_wind, hand_number=body.hand_number)
        start = start.with_seat(body.dealer, wind=body.seat_winds[body.dealer])
        where = round_label(start, lang)
        line = _line(
            "{round}: the dealer is {who}",
            lang,
            "bold",
            round=where,
            who=start.who(body.dealer, lang),
        )
        if body.hand_number == 1 and view.me is not None:
            # Seats are drawn at the start and change every round: say where the
            # player sits now.
            template = (
                N_("seats drawn: you are {wind}")
                if body.round_number == 1
                else N_("seats changed: you are {wind}")
            )
            wind = wind_name(body.seat_winds[view.me], lang)
            line.append("  ")
            line.append_text(_line(template, lang, "bold", wind=wind))
        return line
    return None


def draw_line(view: TableView, body: m.Draw, lang: str) -> Text:
    """A draw in words (the live table says none: the replay does), its tile if seen."""
    who = view.who(body.seat, lang)
    if body.tile is None:
        return _line(
            "{who} drew a replacement tile" if body.replacement else "{who} drew a tile",
            lang,
            who=who,
        )
    tile = tile_name(body.tile, lang)
    return _line(
        "{who} drew a replacement tile: {tile}" if body.replacement else "{who} drew {tile}",
        lang,
        who=who,
        tile=tile,
    )


def timed_out_line(view: TableView, msg: m.TimedOut, after: int, lang: str) -> Text:
    """A seat's clock ran out; for the player, how many more before auto-play."""
    if msg.seat == view.me:
        left = max(after - msg.timeouts, 0)
        if left:
            text = tr(
                "Your time ran out: the server played for you ({left} more: auto-play)",
                lang,
            )
            return Text(text.format(left=left), style="bold red")
        return Text(tr("Your time ran out: the server played for you", lang), style="bold red")
    return _line(
        "{who} ran out of time: the server played for them", lang, who=view.who(msg.seat, lang)
    )


def presence_line(view: TableView, seat: int, presence: Presence, lang: str) -> Text:
    if seat == view.me and presence is Presence.AUTO_PLAY:
        return Text(
            tr("Auto-play took over your seat: press a to take it back", lang), style="bold"
        )
    state = tr(PRESENCE[presence], lang)
    return _line("{who} is {state}", lang, who=view.who(seat, lang), state=state)


def extended_line(view: TableView, seat: int, lang: str) -> Text:
    return _line("{who}: timer extended by 90 s", lang, "bold", who=view.who(seat, lang))
