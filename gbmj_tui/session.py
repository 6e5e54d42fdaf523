"""The session: the client's one connection to a server and what it knows from it.

A ``Session`` owns the connection, the session token, the player's profile and items,
the lobby's table list and the view of the table the player is at. Every message from
the server (a push, or the reply to a request) goes through one dispatch table
(``Session.HANDLERS``: message class to handler); a handler folds the message into
what the session knows and tells the app what happened by posting a Textual message
(gbmj_tui.messages). The session never touches a widget.

``run`` is the session's life, in a Textual worker: it reads each connection to its
end and, after a drop or a server restart, connects again with a jittered, capped
backoff and resumes the session, for as long as the session lasts. The server then
sends the table's snapshot and any open prompt; the session follows the lobby again
and re-enters a table it was watching or waiting at.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual.message import Message

from gbmj_tui import messages as ui
from gbmj_tui.config import Address
from gbmj_tui.connection import ConnectError, Connection, RequestFailed
from gbmj_tui.i18n import N_, tr
from gbmj_tui.model import TableView
from gbmj_tui.narrate import event_line, extended_line, presence_line, timed_out_line
from gbmj_tui.wire import (
    apply_event_message,
    apply_hand_result,
    apply_prompt,
    apply_table_info,
    from_snapshot,
)
from gbmj_tui.words import LEFT_REASONS, NOTICES, SESSION_ENDING, error_text, item_name
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import LeaveReason, NoticeCode, Presence, TableStatus

BACKOFF_FIRST = 0.5  # seconds before the first reconnect attempt (at most)
BACKOFF_CAP = 15.0  # the longest wait between two attempts
AUTO_PLAY_AFTER = 2  # the server's default: timeouts in a row before auto-play


def backoff(attempt: int, rng: random.Random | None = None) -> float:
    """Seconds before reconnect ``attempt`` (1, 2, ...): doubling from BACKOFF_FIRST up
    to BACKOFF_CAP, each drawn between half and all of it so that clients dropped at
    once do not come back at once."""
    ceiling = min(BACKOFF_CAP, BACKOFF_FIRST * 2 ** (attempt - 1))
    return ceiling * (rng or random).uniform(0.5, 1.0)


class Session:
    """One player's session with one server (see the module's docstring)."""

    HANDLERS: ClassVar[dict[type[m.Message], Callable[[Session, Any], None]]] = {}

    def __init__(self, post: Callable[[Message], object], lang: str) -> None:
        self.post = post  # the app's post_message
        self.lang = lang
        self.conn: Connection | None = None
        self.address: Address | None = None
        self.token: str | None = None
        self.profile: m.Profile | None = None
        self.inventory: m.Inventory | None = None
        self.view: TableView | None = None
        self.tables: dict[int, m.TableInfo] = {}
        self.watching = False  # the lobby shows: follow the table list
        self.follows_lobby = True  # the server serves watch_lobby (an older one does not)
        self.link = ui.Link.OFFLINE
        # A hand's opening events (the deal, flowers) wait for the hand's snapshot, which
        # says who now sits where, before they are put into words.
        self._held: list[m.EventBody] | None = None
        self._reading: asyncio.Task[None] | None = None
        self._attached = asyncio.Event()

    # -- connecting ---------------------------------------------------------------------
    async def connect(self, address: Address) -> None:
        """A new connection to ``address`` (the old one, if any, closed)."""
        old = self.conn
        conn = await Connection.open(address.host, address.port)
        self.address = address
        self.follows_lobby = True
        self._attach(conn)
        if old is not None:
            await old.close()

    def _attach(self, conn: Connection) -> None:
        self.conn = conn
        self._reading = asyncio.ensure_future(conn.run(self.receive))
        self._attached.set()

    async def sign_in(self, request: m.Message) -> m.Profile:
        """Log in, register, play as a guest or resume; ``RequestFailed`` if refused."""
        reply = await self.request(request)
        assert isinstance(reply, m.Session)
        self._set_link(ui.LinkState(ui.Link.ONLINE))
        return reply.profile

    async def run(self) -> None:
        """Read every connection to its end; after a drop, come back (module docstring)."""
        try:
            while True:
                await self._attached.wait()
                reading = self._reading
                assert reading is not None
                await reading
                if reading is not self._reading:
                    continue  # a new sign-in replaced the connection
                self._attached.clear()
                if self.token is None:
                    self._set_link(ui.LinkState(ui.Link.OFFLINE))
                    continue
                await self._come_back()
        finally:
            if self._reading is not None:
                self._reading.cancel()

    async def _come_back(self) -> None:
        attempt = 0
        while self.token is not None and self.address is not None:
            attempt += 1
            delay = backoff(attempt)
            self._set_link(ui.LinkState(ui.Link.RECONNECTING, attempt, delay))
            await asyncio.sleep(delay)
            try:
                conn = await Connection.open(self.address.host, self.address.port)
            except ConnectError:
                continue
            self.follows_lobby = True
            self._attach(conn)
            try:
                await self.sign_in(m.Resume(token=self.token))
            except RequestFailed as exc:  # the session is gone: only a new login helps
                self.token = None
                self.post(ui.SessionEnded(error_text(exc.code, self.lang)))
                await conn.close()
                return
            except (ConnectError, TimeoutError):
                self._attached.clear()
                continue
            await self._follow_again()
            return

    async def _follow_again(self) -> None:
        """After a resume: the lobby's list anew, and the table the player was at when
        the server does not put them back itself (spectating, or before a match)."""
        with_table = self.view
        if self.watching:
            await self.watch_lobby(True)
        if with_table is None or (with_table.me is not None and with_table.match_running):
            return  # the server sends a seated player's snapshot and prompt
        table_id = with_table.table_id
        try:
            if with_table.me is None:
                await self.request(m.Spectate(table_id=table_id))
            else:
                await self.request(m.JoinTable(table_id=table_id))
                await self.request(m.Sit(table_id=table_id, seat=with_table.me))
        except (RequestFailed, ConnectError, TimeoutError):
            self.view = None
            self.post(ui.TableClosed(tr("the table is gone", self.lang)))

    def _set_link(self, state: ui.LinkState) -> None:
        self.link = state.link
        self.post(ui.Linked(state))

    async def close(self) -> None:
        self.token = None
        if self.conn is not None:
            await self.conn.close()

    # -- requests -----------------------------------------------------------------------
    async def request(self, message: m.Message) -> m.Message:
        """Send a request, fold its reply in like a push, and return it.

        ``RequestFailed`` for an ``error`` reply, ``ConnectError`` when offline.
        """
        if self.conn is None or self.conn.closed:
            raise ConnectError(N_("not connected"))
        reply = await self.conn.request(message)
        self.receive(reply)
        if isinstance(reply, m.Ok):
            self._done(message)
        elif isinstance(message, m.CreateTable) and isinstance(reply, m.Snapshot):
            # The owner enters unseated; sitting down is what creating a table is for
            # (the seats dialog moves them).
            free = next((s for s, x in enumerate(reply.table.seats) if not x.name), 0)
            await self.request(m.Sit(table_id=reply.table.table_id, seat=free))
        return reply

    def _done(self, request: m.Message) -> None:
        """A request answered ``ok``: what it changed that no push says."""
        view = self.view
        if isinstance(request, m.Sit) and view is not None and view.table_id == request.table_id:
            self._show(replace(view, me=request.seat))
        elif isinstance(request, m.LeaveTable) and self._at_table(request.table_id):
            self.view = None
            self.post(ui.TableClosed(""))
        elif isinstance(request, m.AutoPlay) and view is not None and view.me is not None:
            presence = Presence.AUTO_PLAY if request.on else Presence.ONLINE
            self._show(view.with_seat(view.me, presence=presence))
        elif isinstance(request, m.ArmTimerExtension) and view is not None:
            self._show(replace(view, extension_armed=request.armed))

    async def watch_lobby(self, on: bool) -> None:
        """Follow the table list (the lobby shows) or stop; an older server that does not
        serve ``watch_lobby`` sends its changes to everyone: the list is asked once."""
        self.watching = on
        if self.conn is None or self.conn.closed:
            return
        if self.follows_lobby:
            try:
                await self.request(m.WatchLobby(on=on))
                return
            except RequestFailed as exc:
                if exc.code not in (ErrorCode.NOT_EXPECTED, ErrorCode.UNKNOWN_TYPE):
                    raise
                self.follows_lobby = False
        if on:
            await self.request(m.ListTables())

    # -- what the server sends: one handler per message class -------------------------------
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
            self.view = apply_hand_result(view, msg)
            self.post(ui.ViewChanged(self.view))
            self.post(ui.HandEnded(self.view, None))

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

    def on_item_awarded(self, msg: m.ItemAwarded) -> None:
        name = item_name(msg.item, self.lang)
        text = tr("You won an item: {item} x{count}", self.lang)
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

    def on_error(self, msg: m.Error) -> None:
        """An error that answers no request of ours (a bad frame)."""
        self.post(ui.Told(error_text(msg.code, self.lang, msg.message), "warning"))


Session.HANDLERS = {
    m.Session: Session.on_session,
    m.ProfileUpdate: Session.on_profile,
    m.Inventory: Session.on_inventory,
    m.Snapshot: Session.on_snapshot,
    m.Event: Session.on_event,
    m.Prompt: Session.on_prompt,
    m.HandResult: Session.on_hand_result,
    m.MatchResult: Session.on_match_result,
    m.TableUpdate: Session.on_table_update,
    m.TableList: Session.on_table_list,
    m.LobbyUpdate: Session.on_lobby_update,
    m.TableLeft: Session.on_table_left,
    m.Chat: Session.on_chat,
    m.TileCounts: Session.on_tile_counts,
    m.TimerExtended: Session.on_timer_extended,
    m.PresenceUpdate: Session.on_presence,
    m.TimedOut: Session.on_timed_out,
    m.ItemAwarded: Session.on_item_awarded,
    m.Notice: Session.on_notice,
    m.Error: Session.on_error,
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
