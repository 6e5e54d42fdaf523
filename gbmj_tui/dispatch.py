"""What the server says, folded into what the client knows: one handler per message.

``Dispatch`` holds what the session knows (the token, the profile and items, the
lobby's table list, the view of the table the player is at) and ``HANDLERS``, the
dispatch table from a message class to its handler. A handler folds the message in and
posts what happened to the app (gbmj_tui.messages); it never touches a widget. Pushes
and the replies to requests go through the same table. The connection's life is the
session's (gbmj_tui.session).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual.message import Message

from gbmj_tui import messages as ui
from gbmj_tui.i18n import tr
from gbmj_tui.model import TableView
from gbmj_tui.narrate import event_line, extended_line, presence_line, timed_out_line
from gbmj_tui.wire import (
    apply_event_message,
    apply_hand_result,
    apply_prompt,
    apply_table_info,
    from_snapshot,
    hand_number_in_match,
)
from gbmj_tui.words import (
    LEFT_REASONS,
    NOTICES,
    PLACES,
    SESSION_ENDING,
    error_text,
    item_name,
)
from protocol import messages as m
from protocol.vocabulary import LeaveReason, NoticeCode, Presence, TableStatus

AUTO_PLAY_AFTER = 2  # the server's default: timeouts in a row before auto-play


class Dispatch:
    """What the client knows from the server, and the handlers that keep it."""

    HANDLERS: ClassVar[dict[type[m.Message], Callable[[Dispatch, Any], None]]] = {}

    def __init__(self, post: Callable[[Message], object], lang: str) -> None:
        self.post = post  # the app's post_message
        self.lang = lang
        self.token: str | None = None
        self.profile: m.Profile | None = None
        self.inventory: m.Inventory | None = None
        self.view: TableView | None = None
        self.tables: dict[int, m.TableInfo] = {}
        # Whom the player muted, for themselves and (an owner) at each table: as the
        # server took it in this session.
        self.muted: set[str] = set()
        self.table_muted: dict[int, set[str]] = {}
        self.watching = False  # the lobby shows: follow the table list
        self.follows_lobby = True  # the server serves watch_lobby (an older one does not)
        # A hand's opening events (the deal, flowers) wait for the hand's snapshot, which
        # says who now sits where, before they are put into words.
        self._held: list[m.EventBody] | None = None
        # Keeps the commitment shown before a hand's deal once its result names the match
        # (match id, hand number, commitment); None: nothing kept (gbmj_tui.promises).
        self.keep_commitment: Callable[[int, int, str], None] | None = None

    def receive(self, message: m.Message) -> None:
        handler = self.HANDLERS.get(type(message))
        if handler is not None:
            handler(self, message)

    def _at_table(self, table_id: int | None) -> TableView | None:
        view = self.view
        return view if view is not None and view.table_id == table_id else None

    def _show(self, view: TableView, *, prompted: bool = False) -> None:
        self.view = view
        self.post(ui.ViewChanged(view, prompted=prompted))

    def _note(self, line: Text | None) -> None:
        if line is not None:
            self.post(ui.ActionNoted(line))

    def on_session(self, msg: m.Session) -> None:
        self.token = msg.token
        self.on_profile(m.ProfileUpdate(profile=msg.profile))

    def on_profile(self, msg: m.ProfileUpdate) -> None:
        self.profile = msg.profile
        self.post(ui.ProfileChanged(msg.profile))

    def on_inventory(self, msg: m.Inventory) -> None:
        self.inventory = msg
        self.post(ui.InventoryChanged(msg))

    def on_snapshot(self, msg: m.Snapshot) -> None:
        view = _resynced(self.view, from_snapshot(msg))
        if self.profile is not None:
            view = replace(view, viewer=self.profile.name)
        self.view = view
        self.post(ui.TableShown(view))
        self._tell_held(view)

    def _tell_held(self, view: TableView) -> None:
        held, self._held = self._held or [], None
        for body in held:
            self._note(event_line(view, body, self.lang))

    def on_event(self, msg: m.Event) -> None:
        view = self._at_table(msg.table_id)
        if view is None or (msg.seq <= view.seq and not isinstance(msg.event, m.HandStart)):
            return  # another table's, or already in the snapshot the view came from
        body = msg.event
        if isinstance(body, m.HandStart):
            self._held = [body]
        elif self._held is not None and isinstance(body, m.Deal | m.Flower | m.Draw):
            self._held.append(body)
        else:
            self._tell_held(view)
            self._note(event_line(view, body, self.lang))
        self._show(apply_event_message(view, msg))

    def on_prompt(self, msg: m.Prompt) -> None:
        view = self._at_table(msg.table_id)
        if view is not None:
            self._show(apply_prompt(view, msg), prompted=True)

    def on_hand_result(self, msg: m.HandResult) -> None:
        view = self._at_table(msg.table_id)
        if view is not None:
            keep = self.keep_commitment
            if keep is not None and view.commitment is not None and msg.match_id is not None:
                number = hand_number_in_match(msg.round_number, msg.hand_number)
                keep(msg.match_id, number, view.commitment)
            self.view = apply_hand_result(view, msg)
            self.post(ui.ViewChanged(self.view))
            self.post(ui.HandEnded(self.view, msg.next_hand_ms))

    def on_match_result(self, msg: m.MatchResult) -> None:
        if self._at_table(msg.table_id) is not None:
            self.post(ui.MatchEnded(msg))

    def on_table_update(self, msg: m.TableUpdate) -> None:
        info = msg.table
        if info.table_id in self.tables or not self.follows_lobby:
            self.tables[info.table_id] = info  # an older server sends these to everyone
            self.post(ui.LobbyChanged((info,)))
        view = self._at_table(info.table_id)
        if view is not None:
            self._show(apply_table_info(view, info))

    def on_table_list(self, msg: m.TableList) -> None:
        if not self.watching:
            return  # the answer to watch_lobby off: the lobby is not shown
        self.tables = {t.table_id: t for t in msg.tables}
        self.post(
            ui.LobbyChanged(msg.tables, reset=True, total=msg.total, online=msg.players_online)
        )

    def on_lobby_update(self, msg: m.LobbyUpdate) -> None:
        for info in msg.tables:
            self.tables[info.table_id] = info
        for table_id in msg.removed:
            self.tables.pop(table_id, None)
        self.post(
            ui.LobbyChanged(msg.tables, msg.removed, total=msg.total, online=msg.players_online)
        )

    def on_table_left(self, msg: m.TableLeft) -> None:
        if self._at_table(msg.table_id) is not None:
            self.view = None
            reason = (
                "" if msg.reason == LeaveReason.LEFT else tr(LEFT_REASONS[msg.reason], self.lang)
            )
            self.post(ui.TableClosed(reason))

    def on_chat(self, msg: m.Chat) -> None:
        self.post(ui.ChatReceived(msg.channel, msg.sender, msg.text))

    def on_tile_counts(self, msg: m.TileCounts) -> None:
        view = self._at_table(msg.table_id)
        if view is not None:
            self._show(replace(view, unseen=tuple(msg.counts)))

    def on_timer_extended(self, msg: m.TimerExtended) -> None:
        """A timer extension fired: that seat's clock runs 90 s longer; one arming is one
        use, so the player's own extension is no longer armed."""
        view = self._at_table(msg.table_id)
        if view is None:
            return
        self._note(extended_line(view, msg.seat, self.lang))
        if view.timer is not None and msg.seat in view.timer.seats:
            timer = replace(view.timer, ms_left=msg.ms_left, total_ms=msg.ms_left)
            view = replace(view, timer=timer)
        if view.prompt is not None and msg.seat == view.me:
            view = replace(view, prompt=replace(view.prompt, ms_left=msg.ms_left))
        if msg.seat == view.me:
            view = replace(view, extension_armed=False)
        self._show(view)

    def on_presence(self, msg: m.PresenceUpdate) -> None:
        view = self._at_table(msg.table_id)
        if view is None:
            return
        presence = Presence(msg.presence)
        if view.seats[msg.seat].presence is not presence:
            self._note(presence_line(view, msg.seat, presence, self.lang))
        self._show(view.with_seat(msg.seat, presence=presence))

    def on_timed_out(self, msg: m.TimedOut) -> None:
        view = self._at_table(msg.table_id)
        if view is not None:
            self._note(timed_out_line(view, msg, AUTO_PLAY_AFTER, self.lang))

    def on_stood_up(self, msg: m.StoodUp) -> None:
        """Someone here was stood up for want of coins (the player hears ``table_left``)."""
        mine = self.profile is not None and self.profile.name == msg.name
        if self._at_table(msg.table_id) is not None and not mine:
            text = tr("{name} was stood up: a seat here needs {coins} coins", self.lang)
            self.post(ui.Told(text.format(name=msg.name, coins=msg.need)))

    def on_item_awarded(self, msg: m.ItemAwarded) -> None:
        name = item_name(msg.item, self.lang)
        text = tr("You won an item: {item} x{count}", self.lang)
        if msg.lost:
            text = tr("You won {item}, but your inventory is full: it was not kept", self.lang)
        self.post(ui.Told(text.format(item=name, count=msg.count)))

    def on_notice(self, msg: m.Notice) -> None:
        code = NoticeCode(msg.code)
        text = tr(NOTICES[code], self.lang)
        if code is NoticeCode.ANNOUNCEMENT:
            text = f"{text}: {msg.message}"  # the host's words, shown as they are
        if code in SESSION_ENDING:
            # Signed in from elsewhere: coming back would take the session back and the
            # two clients would keep replacing each other. Forget the token before the
            # connection's end can start a reconnect.
            self.token = None
            self.post(ui.SessionEnded(text))
            return
        self.post(ui.Told(text, "warning"))

    def on_tournament_seated(self, msg: m.TournamentSeated) -> None:
        """Where the player sits in a tournament's next session; when the table opens the
        server brings the player there (a snapshot follows). It says so twice, when the
        session is seated and when the table opens (``table_id``): two different lines."""
        text = tr("Tournament {tournament}, session {session}: table {table}, {place}", self.lang)
        if msg.table_id is not None:
            text = tr(
                "Tournament {tournament}, session {session}: table {table} is open, {place}",
                self.lang,
            )
        place = tr(PLACES[msg.place], self.lang)
        self.post(
            ui.Told(
                text.format(
                    tournament=msg.tournament_id,
                    session=msg.session,
                    table=msg.table_number,
                    place=place,
                )
            )
        )

    def on_error(self, msg: m.Error) -> None:
        """An error that answers no request of ours (a bad frame)."""
        self.post(ui.Told(error_text(msg.code, self.lang, msg.message), "warning"))


Dispatch.HANDLERS = {
    m.Session: Dispatch.on_session,
    m.ProfileUpdate: Dispatch.on_profile,
    m.Inventory: Dispatch.on_inventory,
    m.Snapshot: Dispatch.on_snapshot,
    m.Event: Dispatch.on_event,
    m.Prompt: Dispatch.on_prompt,
    m.HandResult: Dispatch.on_hand_result,
    m.MatchResult: Dispatch.on_match_result,
    m.TableUpdate: Dispatch.on_table_update,
    m.TableList: Dispatch.on_table_list,
    m.LobbyUpdate: Dispatch.on_lobby_update,
    m.TableLeft: Dispatch.on_table_left,
    m.Chat: Dispatch.on_chat,
    m.TileCounts: Dispatch.on_tile_counts,
    m.TimerExtended: Dispatch.on_timer_extended,
    m.PresenceUpdate: Dispatch.on_presence,
    m.TimedOut: Dispatch.on_timed_out,
    m.StoodUp: Dispatch.on_stood_up,
    m.ItemAwarded: Dispatch.on_item_awarded,
    m.Notice: Dispatch.on_notice,
    m.TournamentSeated: Dispatch.on_tournament_seated,
    m.Error: Dispatch.on_error,
}


def _resynced(old: TableView | None, new: TableView) -> TableView:
    """A snapshot's view, keeping what the snapshot does not carry: the open prompt (if
    the snapshot is no newer than it), the armed extension and a running tile counter."""
    if old is None or old.table_id != new.table_id:
        return new
    prompt = old.prompt if old.prompt is not None and old.prompt.seq >= new.seq else None
    return replace(
        new,
        prompt=prompt if new.playing else None,
        extension_armed=old.extension_armed and new.status == TableStatus.PLAYING,
        unseen=old.unseen if new.playing else None,
    )
