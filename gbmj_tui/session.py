"""The session: the client's one connection to a server and what it knows from it.

A ``Session`` owns the connection, the session token, the player's profile and items,
the lobby's table list and the view of the table the player is at. Every message from
the server (a push, or the reply to a request) goes through one dispatch table
(gbmj_tui.dispatch: message class to handler); a handler folds the message into what
the session knows and tells the app what happened by posting a Textual message
(gbmj_tui.messages). The session never touches a widget.

``run`` is the session's life, in a Textual worker: it reads each connection to its
end and, after a drop or a server restart, connects again with a jittered, capped
backoff and resumes the session, for as long as the session lasts. The server then
sends the table's snapshot and any open prompt; the session follows the lobby again
and re-enters a table it was watching or waiting at. A server whose certificate has
changed since is not connected to again: the session ends with the warning.

A server of several nodes answers a request for a table another node holds with a
``redirect`` (and pushes one to a player who signs in while seated at such a table):
the session follows it by itself, connecting to that node, signing in there with the
redirect's ticket and asking again (a client a front door started, which pins nothing,
checks that node's certificate and names its player there as the redirect says:
``TlsPolicy.to_node``). A reconnect goes to the node last followed, and
when that one does not answer, to the address the player gave (a node that died has
handed its tables on: the node answering redirects again).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from textual.message import Message

from gbmj_tui import messages as ui
from gbmj_tui import promises
from gbmj_tui.config import Address, parse_address
from gbmj_tui.connection import Connection, TlsPolicy
from gbmj_tui.dispatch import Dispatch
from gbmj_tui.errors import ConnectError, ConnectRefused, RequestFailed
from gbmj_tui.i18n import N_, tr
from gbmj_tui.pinning import server_key
from gbmj_tui.words import error_text
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Presence

BACKOFF_FIRST = 0.5  # seconds before the first reconnect attempt (at most)
BACKOFF_CAP = 15.0  # the longest wait between two attempts

_JITTER = random.Random()


def backoff(attempt: int, rng: random.Random | None = None) -> float:
    """Seconds before reconnect ``attempt`` (1, 2, ...): doubling from BACKOFF_FIRST up
    to BACKOFF_CAP, each drawn between half and all of it so that clients dropped at
    once do not come back at once."""
    ceiling = min(BACKOFF_CAP, BACKOFF_FIRST * 2.0 ** (attempt - 1))
    return ceiling * (rng or _JITTER).uniform(0.5, 1.0)


class Session(Dispatch):
    """One player's session with one server (see the module's docstring)."""

    def __init__(self, post: Callable[[Message], object], lang: str) -> None:
        super().__init__(post, lang)
        self.conn: Connection | None = None
        self.address: Address | None = None
        self.home: Address | None = None  # the address the player gave (redirects aside)
        self.home_tls = TlsPolicy()  # how that one is reached
        self.tls = TlsPolicy()
        self.link = ui.Link.OFFLINE
        self._reading: asyncio.Task[None] | None = None
        self._attached = asyncio.Event()
        self._following: asyncio.Future[None] | None = None  # a pushed redirect followed
        # Where the commitments shown before each deal are kept (gbmj_tui.promises);
        # None: kept nowhere (a client a front door started writes no file).
        self.commitments: Path | None = None

    # -- connecting ---------------------------------------------------------------------
    async def connect(self, address: Address, tls: TlsPolicy, *, home: bool = True) -> None:
        """A new connection to ``address``, made safe as ``tls`` says (the old one, if
        any, closed); ``home``: the address the player gave, not a redirect's."""
        old = self.conn
        conn = await Connection.open(address.host, address.port, tls=tls)
        self.address, self.tls = address, tls
        if home or self.home is None:
            self.home, self.home_tls = address, tls
        server = server_key(address.host, address.port)
        pinned = conn.pin.fingerprint if conn.pin is not None else None
        self.keep_commitment = (
            None
            if self.commitments is None
            else partial(self._keep, self.commitments, server, pinned)
        )
        self.follows_lobby = True
        self._attach(conn)
        if old is not None:
            await old.close()

    @staticmethod
    def _keep(
        path: Path, server: str, pinned: str | None, match_id: int, number: int, commitment: str
    ) -> None:
        with contextlib.suppress(OSError):  # a file not written costs the check, not the game
            promises.keep(path, server, pinned, match_id, number, commitment)

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
                conn = await self._reconnect()
            except ConnectRefused as exc:  # the server's certificate changed: say so, stop
                self.token = None
                self.post(ui.SessionEnded(exc.text(self.lang)))
                return
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

    async def _reconnect(self) -> Connection:
        """The node last followed, else the address the player gave."""
        assert self.address is not None
        try:
            return await Connection.open(self.address.host, self.address.port, tls=self.tls)
        except ConnectRefused:
            raise
        except ConnectError:
            if self.home is None or self.home == self.address:
                raise
            conn = await Connection.open(self.home.host, self.home.port, tls=self.home_tls)
            self.address, self.tls = self.home, self.home_tls
            return conn

    async def follow(self, redirect: m.Redirect, then: m.Message | None = None) -> m.Message:
        """Another node holds the table: connect to it, sign in with the ticket and ask
        ``then`` again there (None: a pushed redirect, after which that node puts the
        player back at the seat itself); what ``then`` is answered (else the redirect)."""
        assert self.address is not None
        address = parse_address(redirect.address)
        await self.connect(address, self.home_tls.to_node(redirect), home=False)
        await self.sign_in(m.RedeemTicket(ticket=redirect.ticket))
        if self.watching and self.view is None:
            await self.watch_lobby(True)
        if then is None:
            return redirect
        assert self.conn is not None
        reply = await self.conn.request(then)  # once: a second redirect is not followed
        self.receive(reply)
        if isinstance(reply, m.Redirect):
            raise ConnectError(N_("the table is moving to another node: try again"))
        return reply

    def receive(self, message: m.Message) -> None:
        if isinstance(message, m.Redirect):  # pushed: the player's match is elsewhere
            if message.id is None:
                self._following = asyncio.ensure_future(self._follow_pushed(message))
            return
        super().receive(message)

    async def _follow_pushed(self, redirect: m.Redirect) -> None:
        with contextlib.suppress(ConnectError, RequestFailed, TimeoutError):
            await self.follow(redirect)

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
        if isinstance(reply, m.Redirect):  # another node holds the table: go there
            return await self.follow(reply, message)
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
        elif isinstance(request, m.Mute):
            if request.table_id is None:
                muted = self.muted
            else:
                muted = self.table_muted.setdefault(request.table_id, set())
            (muted.add if request.on else muted.discard)(request.name)

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
