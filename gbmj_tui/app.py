"""The gbmj terminal client: ``gbmj`` opens the connect screen, ``gbmj solo`` plays
against three bots on a local server (gbmj_tui.cli).

The app is the switchboard between the session and the screens. The session (a worker:
gbmj_tui.session) owns the connection and the table's view and posts what happened
(gbmj_tui.messages); the app hands each message to the screen that shows it. Screens
post what the player asked for (``Requested``, ``SignIn``, ``ActionChosen``...); the app
sends it in a worker, off the UI's path, and a refusal comes back to the screen that
asked or to the action line.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from gbmj_tui import messages as ui
from gbmj_tui.app_screens import ScreensOpened
from gbmj_tui.config import Address, ClientConfig, Options, load_config, parse_address, save_config
from gbmj_tui.connection import TlsPolicy
from gbmj_tui.errors import ConnectError, RequestFailed
from gbmj_tui.i18n import N_, tr
from gbmj_tui.promises import commitments_path
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.dialogs import PaceDialog
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen, StandingsScreen
from gbmj_tui.screens.shop import ShopScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.session import Session
from gbmj_tui.solo import DEFAULT_PACE, Solo, solo_sign_in, solo_table
from gbmj_tui.tiles import TileStyle
from gbmj_tui.wire import action_message
from gbmj_tui.words import error_text
from protocol import messages as m

SIGN_IN = {"login": m.Login, "register": m.Register}


class GbmjApp(ScreensOpened, App[None]):
    """The client: connect screen, lobby, table, results, help."""

    TITLE = "gbmj"
    CSS_PATH = Path(__file__).parent / "styles" / "app.tcss"
    ENABLE_COMMAND_PALETTE = False  # its commands are English only, and some write files
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("f1", "help", N_("Help"), show=False),
    ]

    def __init__(
        self,
        *,
        lang: str = "zh",
        ascii: bool = False,
        solo: Solo | None = None,
        signed_in: tuple[str, str | None] | None = None,
        server: str | None = None,
        hosted: bool = False,
        config_path: Path | None = None,
        insecure: bool = False,
        expect: str | None = None,
        door: str | None = None,
    ) -> None:
        super().__init__()
        self.options = Options(lang, ascii, hosted, server, config_path, insecure, expect, door)
        self.lang = lang
        # Chinese tile faces only in Chinese, and not when everything must be ASCII.
        self.tile_style = TileStyle.CJK if lang == "zh" and not ascii else TileStyle.ASCII
        self.solo = solo
        self.signed_in = signed_in  # (server, session token or None for a guest): hosted
        self.config: ClientConfig = load_config(config_path)
        self.session = Session(self.post_message, lang)
        if not hosted:  # keeps the commitments it is shown, beside its settings
            self.session.commitments = commitments_path(config_path)
        self.lobby: LobbyScreen | None = None
        self.table_screen: TableScreen | None = None
        self.standings: m.MatchResult | None = None  # shown once the hand's result closes
        self.results: list[ResultScreen] = []  # not yet closed, as played; the first shows
        self.pin_notice: str | None = None  # what the first connection to a server pinned
        self.started = time.monotonic()
        self.lobby_at: float | None = None  # seconds from start to the lobby (figures)

    # -- start ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_class(self.options.ascii, "-ascii")
        self.run_worker(self.session.run(), group="session", exclusive=True)
        if self.solo is not None:
            self._solo(self.solo)
        elif self.signed_in is not None:
            self._resume_hosted(*self.signed_in)
        else:
            self._connect_screen()

    def _connect_screen(self, error: str = "") -> None:
        fixed = self.options.server if self.options.hosted else None
        o = self.options
        screen = ConnectScreen(
            self.config, self.lang, server=o.server, fixed=fixed, insecure=o.insecure, ascii=o.ascii
        )
        self.push_screen(screen)
        if error:
            screen.show_error(error)

    def _failure(self, exc: Exception) -> str:
        if isinstance(exc, RequestFailed):
            return error_text(exc.code, self.lang, exc.error.message)
        if isinstance(exc, ConnectError):
            return exc.text(self.lang)
        return tr("the server did not answer in time", self.lang)

    @on(ui.SignIn)
    @work(exclusive=True, group="sign_in")
    async def _sign_in(self, ask: ui.SignIn) -> None:
        """Sign in for the connect screen, which shows the error if there is one."""
        screen = self.screen
        error = await self.sign_in(
            ask.how, ask.server, ask.name, ask.password, insecure=ask.insecure
        )
        if error and isinstance(screen, ConnectScreen) and screen.is_mounted:
            screen.show_error(error)

    async def sign_in(
        self, how: str, server: str, name: str, password: str, *, insecure: bool = False
    ) -> str | None:
        """Connect (over plain TCP with ``insecure``), then log in / register / play as
        guest; an error text, or None."""
        if self.options.hosted and self.options.server is not None:
            server = self.options.server  # a hosted client reaches its own server only
        try:
            address = parse_address(server)
            if how != "guest" and not (name and password):
                return tr("enter a name and a password", self.lang)
            request = (
                m.Guest(name=name or None)
                if how == "guest"
                else SIGN_IN[how](name=name, password=password)
            )
            await self._connect(address, insecure)
            profile = await self.session.sign_in(request)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            return self._failure(exc)
        kept = name if how != "guest" else self.config.name
        self.config = self.config.used(str(address), kept, insecure=insecure)
        if not self.options.hosted:
            try:
                save_config(self.config, self.options.config_path)
            except OSError:
                self.notify(tr("could not save the list of servers", self.lang), markup=False)
        await self._enter_lobby(profile)
        return None

    async def _enter_lobby(self, profile: m.Profile) -> None:
        self.lobby = LobbyScreen(self.lang, profile, solo=self.solo is not None)
        # The lobby replaces the connect screen (and whatever was put over it); the
        # table, if the server already sent one, goes on top of it (``_arrange``).
        while len(self.screen_stack) > 2:
            await self.pop_screen()
        if isinstance(self.screen, ConnectScreen):
            await self.switch_screen(self.lobby)
        else:
            await self.push_screen(self.lobby)
        await self._arrange()
        self.lobby_at = time.monotonic() - self.started
        if self.pin_notice:
            self.lobby.add_chat(None, self.pin_notice)
        self.send(m.GetInventory())

    async def _connect(self, address: Address, insecure: bool = False) -> None:
        """Connect the session; the first connection to a server says what it pinned."""
        await self.session.connect(address, TlsPolicy.of(self.options, insecure))
        pin = self.session.conn.pin if self.session.conn is not None else None
        self.pin_notice = pin.notice(self.lang) if pin is not None else None
        if self.pin_notice:  # a toast, and a line that stays in the lobby's chat
            title = tr("New server", self.lang)
            self.notify(self.pin_notice, title=title, timeout=12, markup=False)

    @work(exclusive=True, group="sign_in")
    async def _resume_hosted(self, server: str, token: str | None) -> None:
        """Started by a front door: resume its session (or play as a guest); the connect
        screen if that fails."""
        try:
            await self._connect(parse_address(server))
            request = m.Resume(token=token) if token else m.Guest(name=None)
            profile = await self.session.sign_in(request)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            self._connect_screen(self._failure(exc))
            return
        await self._enter_lobby(profile)

    @work(exclusive=True, group="sign_in")
    async def _solo(self, solo: Solo) -> None:
        """Solo: the local account (or a guest), a table with three bots, ready."""
        session = self.session
        try:
            # The solo server is this client's own, on loopback: plain TCP.
            await session.connect(solo.address, TlsPolicy(insecure=True))
            profile = await solo_sign_in(session.sign_in, solo.account_file)
            await self._enter_lobby(profile)
            pace = solo.pace or await self.push_screen_wait(PaceDialog(self.lang)) or DEFAULT_PACE
            await solo_table(session.request, guest=profile.guest, pace=pace)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            self.notify(self._failure(exc), severity="error", timeout=10, markup=False)

    # -- what screens ask for ------------------------------------------------------------
    @on(ui.Requested)
    def _requested(self, ask: ui.Requested) -> None:
        self.send(ask.request, ask.reply_to)

    @work(group="requests")
    async def send(self, request: m.Message, reply_to: Screen[object] | None = None) -> None:
        """Send a request; its reply or refusal goes to ``reply_to`` (a refusal otherwise
        to the action line or a toast)."""
        try:
            reply = await self.session.request(request)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            code = exc.code if isinstance(exc, RequestFailed) else "offline"
            refused = ui.Refused(request, code, self._failure(exc))
            if reply_to is not None and reply_to.is_attached:
                reply_to.post_message(refused)
            else:
                self.post_message(refused)
            return
        if reply_to is not None and reply_to.is_attached:
            reply_to.post_message(ui.Replied(request, reply))

    @on(ui.JoinAsked)
    @work(group="requests")
    async def _join(self, ask: ui.JoinAsked) -> None:
        """``j``: enter the table and sit in its first free seat (a table with none is
        watched); a refused seat is told at the table."""
        try:
            reply = await self.session.request(
                m.JoinTable(table_id=ask.table_id, password=ask.password)
            )
            if isinstance(reply, m.Snapshot) and reply.seat is None:
                seats = reply.table.seats
                free = next((slot for slot, seat in enumerate(seats) if not seat.name), None)
                if free is not None:
                    await self.session.request(m.Sit(table_id=ask.table_id, seat=free))
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            code = exc.code if isinstance(exc, RequestFailed) else "offline"
            asked = m.JoinTable(table_id=ask.table_id)
            self.post_message(ui.Refused(asked, code, self._failure(exc)))

    @on(ui.FollowLobby)
    @work(group="requests")
    async def _follow_lobby(self, ask: ui.FollowLobby) -> None:
        try:
            await self.session.watch_lobby(ask.on)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            self.post_message(ui.Refused(m.WatchLobby(on=ask.on), "", self._failure(exc)))

    @on(ui.Refused)
    def _refused(self, refused: ui.Refused) -> None:
        if self.table_screen is not None and self.screen is self.table_screen:
            self.table_screen.note_reason(refused.text)
        else:
            self.notify(refused.text, severity="warning", markup=False)

    @on(ui.ActionChosen)
    def _action(self, chosen: ui.ActionChosen) -> None:
        view = self.session.view
        if view is None:
            return
        self.send(action_message(view, chosen.choice))

    # -- what the session tells -----------------------------------------------------------
    @on(ui.Linked)
    def _linked(self, linked: ui.Linked) -> None:
        for screen in (self.lobby, self.table_screen):
            if screen is not None:
                screen.set_link(linked.state)

    @on(ui.TableShown)
    async def _table_shown(self, shown: ui.TableShown) -> None:
        if self.table_screen is not None and self.table_screen.view.table_id == shown.view.table_id:
            self.table_screen.show(shown.view)
        else:
            self.table_screen = TableScreen(shown.view, tile_style=self.tile_style, lang=self.lang)
            self.table_screen.set_link(self.session_link())
        await self._arrange()

    async def _arrange(self) -> None:
        """The one place that decides which screen is on top, from the session alone: a
        signed-in player at a table sees that table, over the lobby, whatever order the
        sign-in's reply and the table's snapshot came in (before the lobby exists, the
        table screen waits for it)."""
        lobby, table = self.lobby, self.table_screen
        if lobby is None or lobby not in self.screen_stack:
            return  # not signed in yet: ``_enter_lobby`` comes back here
        if table is None or self.session.view is None:
            return
        if table not in self.screen_stack:
            await self.push_screen(table)

    def session_link(self) -> ui.LinkState:
        return ui.LinkState(self.session.link)

    @on(ui.ViewChanged)
    def _view_changed(self, changed: ui.ViewChanged) -> None:
        view = changed.view
        if self.table_screen is not None:
            self.table_screen.show(view, prompted=changed.prompted)
        if view.playing and self.results:
            me = view.seats[view.me] if view.me is not None else None
            if me is not None and not me.auto_play:
                # The pause has passed and the player's clocks run again: the board
                # comes back (the result stays in the history).
                self._drop_results()
            else:
                self.results[-1].next_hand_started()

    @on(ui.ActionNoted)
    def _noted(self, noted: ui.ActionNoted) -> None:
        if self.table_screen is not None:
            self.table_screen.note(noted.line)

    @on(ui.HandEnded)
    def _hand_ended(self, ended: ui.HandEnded) -> None:
        """Results wait their turn: shown in the order the hands were played, the
        standings after the last (a result left unread is not covered by a newer one)."""
        if self.table_screen is None or self.table_screen not in self.screen_stack:
            return  # the table is not on screen yet: its snapshot shows where things stand
        screen = ResultScreen(ended.view, self.tile_style, self.lang, ended.next_hand_ms)
        for older in self.results:
            older.superseded()
        self.results.append(screen)
        if len(self.results) == 1:
            self.push_screen(screen, partial(self._result_closed, screen))

    def _result_closed(self, screen: ResultScreen, _: None = None) -> None:
        if screen in self.results:
            self.results.remove(screen)
        if self.results:
            following = self.results[0]
            self.push_screen(following, partial(self._result_closed, following))
            return
        view = self.session.view
        if view is not None and view.me is not None and screen.next_at is not None:
            self.send(m.ResultClosed(table_id=view.table_id))  # the next hand need not wait
            if self.table_screen is not None:
                words = tr("The next hand starts once everyone has closed the result", self.lang)
                self.table_screen.note(Text(words, style="dim"))
        self._show_standings()

    def _drop_results(self) -> None:
        self.results = []
        table = self.table_screen
        while table is not None and table in self.screen_stack and self.screen is not table:
            self.pop_screen()

    def _show_standings(self) -> None:
        if self.standings is not None and not self.results:
            result, self.standings = self.standings, None
            self.push_screen(StandingsScreen(result, self.lang))

    @on(ui.MatchEnded)
    def _match_ended(self, ended: ui.MatchEnded) -> None:
        """The last hand's breakdown comes first: the standings wait for it to close."""
        self.standings = ended.result
        self._show_standings()

    @on(ui.TableClosed)
    def _table_closed(self, closed: ui.TableClosed) -> None:
        self.clear_notifications()  # the table's warnings (leaving) do not follow to the lobby
        if closed.reason:
            self.notify(closed.reason, markup=False)
        while self.screen is not self.lobby and len(self.screen_stack) > 1:
            self.pop_screen()
        self.table_screen = None
        self.results = []

    @on(ui.LobbyChanged)
    def _lobby_changed(self, changed: ui.LobbyChanged) -> None:
        if self.lobby is not None:
            self.lobby.apply(changed)

    @on(ui.ChatReceived)
    def _chat(self, chat: ui.ChatReceived) -> None:
        if chat.channel == "lobby" and self.lobby is not None:
            self.lobby.add_chat(chat.sender, chat.text)
        elif chat.channel == "table" and self.table_screen is not None:
            self.table_screen.add_chat(chat.sender, chat.text)

    @on(ui.ProfileChanged)
    def _profile(self, changed: ui.ProfileChanged) -> None:
        if self.lobby is not None:
            self.lobby.set_profile(changed.profile)
        for screen in self.screen_stack:
            if isinstance(screen, ShopScreen):
                screen.set_coins(changed.profile.coins)

    @on(ui.InventoryChanged)
    def _inventory(self, changed: ui.InventoryChanged) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, ShopScreen):
                screen.set_inventory(changed.inventory)

    @on(ui.Told)
    def _told(self, told: ui.Told) -> None:
        self.notify(told.text, severity=told.severity, timeout=8, markup=False)

    @on(ui.SessionEnded)
    def _session_ended(self, ended: ui.SessionEnded) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.lobby = self.table_screen = None
        self._connect_screen(ended.reason)

    # -- keys --------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit; a player in a running match is warned first, as Esc does."""
        screen = self.table_screen
        if screen is not None and screen in self.screen_stack and not screen.may_leave():
            return
        self.exit()

    async def on_unmount(self) -> None:
        await self.session.close()
