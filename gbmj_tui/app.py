"""The gbmj terminal client: ``gbmj`` opens the connect screen, ``gbmj solo`` plays
against three bots on a local server.

The app owns the connection and the table's view model. A worker reads the connection
and posts every pushed message to the app (``ServerMessage``); the app folds table
messages into the ``TableView`` and hands it to the table screen, and lobby messages to
the lobby screen. Screens ask the app to act (sign in, create, join, act, chat).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import time
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from gbmj_tui.config import ClientConfig, data_dir, load_config, parse_address, save_config
from gbmj_tui.connection import ConnectError, Connection, RequestFailed
from gbmj_tui.i18n import tr
from gbmj_tui.local_server import start_local_server
from gbmj_tui.model import Choice, TableView, seat_player_at, wind_name
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.help import HelpScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen, StandingsScreen
from gbmj_tui.screens.shop import LeaderboardScreen, ShopScreen, item_name
from gbmj_tui.screens.table import ActionChosen, TableScreen
from gbmj_tui.tiles import TileStyle
from gbmj_tui.wire import (
    action_message,
    apply_event_message,
    apply_hand_result,
    apply_prompt,
    from_snapshot,
)
from protocol import messages as m

ERRORS_ZH = {
    "bad_credentials": "用户名或密码错误",
    "name_taken": "这个名字已被注册",
    "rate_limited": "失败次数太多, 请稍后再试",
    "seat_taken": "座位已有人",
    "wrong_password": "桌子密码错误",
    "not_owner": "只有桌主可以这样做",
    "not_enough_coins": "金币不足",
    "no_such_item": "没有这个道具",
    "already_armed": "延时卡已备用",
    "guest_not_allowed": "游客不能这样做, 请注册",
    "inventory_full": "背包已满",
}
ESCAPE_CONFIRM_S = 3.0  # leaving a running match needs Esc twice within this time
RECONNECT_DELAYS = (0.2, 1.0, 2.0, 4.0, 8.0, 15.0)  # seconds before each attempt


class ServerMessage(Message):
    """A message the server pushed (not a reply to a request)."""

    def __init__(self, message: m.Message) -> None:
        super().__init__()
        self.message = message


class GbmjApp(App[None]):
    """The client: connect screen, lobby, table, results, help."""

    TITLE = "gbmj"
    CSS_PATH = Path(__file__).parent / "styles" / "app.tcss"
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("f1", "help", "Help", show=False),
    ]

    def __init__(
        self,
        *,
        tile_style: TileStyle = TileStyle.CJK,
        lang: str = "zh",
        solo: tuple[str, int] | None = None,
        config_path: Path | None = None,
        signed_in: tuple[str, str | None] | None = None,
    ) -> None:
        super().__init__()
        self.tile_style = tile_style
        self.lang = lang
        self.solo = solo
        self.signed_in = signed_in  # (server, session token or None for a guest): over SSH
        self.config_path = config_path
        self.config: ClientConfig = load_config(config_path)
        self.conn: Connection | None = None
        self.profile: m.Profile | None = None
        self.view: TableView | None = None
        self.table_screen: TableScreen | None = None
        self.lobby: LobbyScreen | None = None
        self._escape_armed = 0.0
        self.address: tuple[str, int] | None = None
        self.token: str | None = None
        self.auto_win = False  # declare every win offered at once
        self.auto_pass = False  # pass every claim that is not a win
        self.inventory: m.Inventory | None = None
        self.shop: ShopScreen | None = None  # open, it follows the inventory and coins
        self.started = time.monotonic()
        self.lobby_at: float | None = None  # seconds from start to the lobby (figures)

    # -- start ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_class(self.tile_style is TileStyle.ASCII, "-ascii")
        if self.solo is not None:
            self._solo(*self.solo)
        elif self.signed_in is not None:
            self._start_signed_in(*self.signed_in)
        else:
            self.push_screen(ConnectScreen(self.config, self.lang))

    def _error_text(self, exc: Exception) -> str:
        if isinstance(exc, RequestFailed) and self.lang == "zh" and exc.code in ERRORS_ZH:
            return ERRORS_ZH[exc.code]
        return str(exc)

    async def _connect(self, host: str, port: int) -> None:
        if self.conn is not None:
            old, self.conn = self.conn, None
            await old.close()
        self.conn = await Connection.open(host, port)
        self.address = (host, port)
        self._reader()

    def _signed_in(self, session: m.Message) -> m.Profile:
        assert isinstance(session, m.Session)
        self.token = session.token  # to resume the session if the connection drops
        return session.profile

    @work(exclusive=True, group="sign_in")
    async def start_sign_in(
        self, how: str, server: str, name: str, password: str, screen: ConnectScreen
    ) -> None:
        """Sign in for the connect screen, which shows the error if there is one."""
        error = await self.sign_in(how, server, name, password)
        if error and screen.is_mounted:
            screen.show_error(error)

    async def sign_in(self, how: str, server: str, name: str, password: str) -> str | None:
        """Connect, then log in / register / play as guest; an error text, or None."""
        try:
            address = parse_address(server)
            if how != "guest" and not (name and password):
                return "请输入名字和密码" if self.lang == "zh" else "enter a name and a password"
            await self._connect(address.host, address.port)
            assert self.conn is not None
            request: m.Message
            if how == "register":
                request = m.Register(name=name, password=password)
            elif how == "guest":
                request = m.Guest(name=name or None)
            else:
                request = m.Login(name=name, password=password)
            session = await self.conn.request(request)
        except (ValueError, ConnectError, RequestFailed, TimeoutError) as exc:
            return self._error_text(exc)
        profile = self._signed_in(session)
        self.config = self.config.used(str(address), name if how != "guest" else self.config.name)
        with contextlib.suppress(OSError):
            save_config(self.config, self.config_path)
        await self._enter_lobby(profile)
        return None

    async def _enter_lobby(self, profile: m.Profile) -> None:
        self.profile = profile
        self.lobby = LobbyScreen(self.lang)
        self.lobby.set_profile(profile)  # drawn when the screen mounts
        if self.screen_stack and isinstance(self.screen, ConnectScreen):
            await self.switch_screen(self.lobby)
        else:
            await self.push_screen(self.lobby)
        self.lobby_at = time.monotonic() - self.started
        self.refresh_tables()
        self.refresh_inventory()

    @work(exclusive=True, group="sign_in")
    async def _start_signed_in(self, server: str, token: str | None) -> None:
        """Started by the SSH server: resume its session (or play as a guest); the connect
        screen if that fails."""
        try:
            address = parse_address(server)
            await self._connect(address.host, address.port)
            assert self.conn is not None
            request = m.Resume(token=token) if token else m.Guest(name=None)
            session = await self.conn.request(request)
        except (ValueError, ConnectError, RequestFailed, TimeoutError) as exc:
            await self.push_screen(ConnectScreen(self.config, self.lang))
            self.notify(self._error_text(exc), severity="error", timeout=10, markup=False)
            return
        await self._enter_lobby(self._signed_in(session))

    @work(exclusive=True, group="solo")
    async def _solo(self, host: str, port: int) -> None:
        """Solo: guest login, a table with three bots, ready: the deal starts."""
        try:
            await self._connect(host, port)
            assert self.conn is not None
            session = await self.conn.request(m.Guest(name=None))
            await self._enter_lobby(self._signed_in(session))
            timers = m.TimerSettings(on=True, first_discard=30, turn=15, claim_window=5)
            settings = m.TableSettings(
                name="solo", stake=0, timers=timers, rounds=1, bots_allowed=True
            )
            snapshot = await self.conn.request(m.CreateTable(settings=settings))
            assert isinstance(snapshot, m.Snapshot)
            await self._show_table(snapshot, sit=True)
            await self._fill_bots()
            await self._request(m.Ready(table_id=snapshot.table.table_id, ready=True))
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            self.notify(self._error_text(exc), severity="error", timeout=10, markup=False)

    # -- requests ---------------------------------------------------------------------------
    async def _request(self, message: m.Message) -> m.Message | None:
        """A request whose failure is shown to the player (and answered with None)."""
        if self.conn is None:
            return None
        try:
            return await self.conn.request(message)
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            self.notify(self._error_text(exc), severity="error", markup=False)
            return None

    @work(group="requests")
    async def refresh_tables(self) -> None:
        reply = await self._request(m.ListTables())
        if isinstance(reply, m.TableList) and self.lobby is not None:
            self.lobby.set_tables(reply.tables)

    @work(group="requests")
    async def refresh_inventory(self) -> None:
        reply = await self._request(m.GetInventory())
        if isinstance(reply, m.Inventory):
            self._set_inventory(reply)

    def _set_inventory(self, inventory: m.Inventory) -> None:
        self.inventory = inventory
        if self.shop is not None:
            self.shop.set_inventory(inventory)

    @work(group="requests")
    async def action_open_shop(self) -> None:
        """The items and the shop (i in the lobby)."""
        if isinstance(self.screen, ShopScreen) or self.conn is None:
            return
        coins = self.profile.coins if self.profile is not None else None
        self.shop = ShopScreen(self.lang, coins)
        self.push_screen(self.shop, lambda _: setattr(self, "shop", None))
        if self.inventory is not None:
            self.shop.set_inventory(self.inventory)
        reply = await self._request(m.GetShop())
        if isinstance(reply, m.Shop) and self.shop is not None:
            self.shop.set_shop(reply)
        self.refresh_inventory()

    @work(group="requests")
    async def buy(self, item: str, count: int = 1) -> None:
        """Buy ``count`` of ``item``; the shop shows the new inventory or the refusal."""
        if self.conn is None:
            return
        try:
            reply = await self.conn.request(m.Buy(item=item, count=count))
        except (ConnectError, RequestFailed, TimeoutError) as exc:
            if self.shop is not None:
                self.shop.note(self._error_text(exc))
            return
        if isinstance(reply, m.Inventory):
            self._set_inventory(reply)
            if self.shop is not None:
                self.shop.note(f"{tr('bought', self.lang)}: {item_name(item, self.lang)} x{count}")

    @work(group="requests")
    async def action_open_leaderboard(self) -> None:
        """The leaderboard (l in the lobby)."""
        if isinstance(self.screen, LeaderboardScreen) or self.conn is None:
            return
        me = self.profile.name if self.profile is not None else None
        board = LeaderboardScreen(self.lang, me)
        self.push_screen(board)
        reply = await self._request(m.GetLeaderboard(limit=50))
        if isinstance(reply, m.Leaderboard):
            board.set_entries(reply.entries)

    @work(group="requests")
    async def create_table(self, settings: m.TableSettings, password: str | None) -> None:
        reply = await self._request(m.CreateTable(settings=settings, password=password))
        if isinstance(reply, m.Snapshot):
            await self._show_table(reply, sit=True)

    @work(group="requests")
    async def join_table(self, table_id: int, password: str | None = None) -> None:
        reply = await self._request(m.JoinTable(table_id=table_id, password=password))
        if isinstance(reply, m.Snapshot):
            await self._show_table(reply, sit=reply.seat is None)

    @work(group="requests")
    async def spectate(self, table_id: int, password: str | None = None) -> None:
        reply = await self._request(m.Spectate(table_id=table_id, password=password))
        if isinstance(reply, m.Snapshot):
            await self._show_table(reply, sit=False)

    @work(group="requests")
    async def chat(self, channel: str, text: str) -> None:
        table_id = self.view.table_id if channel == "table" and self.view else None
        await self._request(m.ChatSend(channel=channel, table_id=table_id, text=text[:500]))

    async def _show_table(self, snapshot: m.Snapshot, *, sit: bool) -> None:
        view = from_snapshot(snapshot)
        if sit and view.me is None:
            free = next((s for s, seat in enumerate(snapshot.table.seats) if not seat.name), None)
            if free is not None and await self._request(m.Sit(table_id=view.table_id, seat=free)):
                view = replace(view, me=free)
        self.view = view
        if self.table_screen is not None and self.table_screen in self.screen_stack:
            self.table_screen.show(view)
            return
        self.table_screen = TableScreen(view, tile_style=self.tile_style, lang=self.lang)
        await self.push_screen(self.table_screen)

    async def _fill_bots(self) -> None:
        if self.view is None:
            return
        for seat in self.view.seats:
            if not seat.name and seat.seat != self.view.me:
                await self._request(
                    m.AddBot(table_id=self.view.table_id, seat=seat.seat, level="normal")
                )

    # -- table keys (bound on the table screen) ---------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.tile_style, self.lang))

    @work(group="requests")
    async def action_add_bots(self) -> None:
        await self._fill_bots()

    @work(group="requests")
    async def action_ready(self) -> None:
        if self.view is not None and self.view.me is not None:
            await self._request(m.Ready(table_id=self.view.table_id, ready=True))

    @work(group="requests")
    async def action_auto_play(self) -> None:
        view = self.view
        if view is None or view.me is None:
            return
        on_now = view.seats[view.me].auto_play
        if await self._request(m.AutoPlay(table_id=view.table_id, on=not on_now)):
            self._set_view(view.with_seat(view.me, auto_play=not on_now))

    @work(group="requests")
    async def action_arm_extension(self) -> None:
        """Arm the timer extension for this match (e), or disarm it: it fires when the
        player's own discard turn runs out (SPEC §2.6)."""
        view = self.view
        if view is None or view.me is None:
            return
        armed = not view.extension_armed
        if await self._request(m.ArmTimerExtension(table_id=view.table_id, armed=armed)):
            if self.view is not None:
                self._set_view(replace(self.view, extension_armed=armed))
            word = tr("extension_armed" if armed else "timer_extension", self.lang)
            self.notify(word if armed else f"{word} -", timeout=3)

    @work(group="requests")
    async def action_use_tile_counter(self) -> None:
        """Use a tile counter for the rest of this hand (t): its panel shows the unseen
        copies of each tile, kept up to date by the server."""
        view = self.view
        if view is None or view.me is None or not view.playing:
            return
        reply = await self._request(m.UseTileCounter(table_id=view.table_id))
        if isinstance(reply, m.TileCounts):
            self._counts(reply)
        self.refresh_inventory()

    def _counts(self, msg: m.TileCounts) -> None:
        if self.view is not None and msg.table_id == self.view.table_id:
            self._set_view(replace(self.view, unseen=tuple(msg.counts)))

    @work(group="requests")
    async def action_leave_table(self) -> None:
        view = self.view
        if view is None:
            return
        if view.me is not None and view.playing:
            now = time.monotonic()
            if now - self._escape_armed > ESCAPE_CONFIRM_S:
                self._escape_armed = now
                warn = (
                    "对局中离开即逃跑 (罚80分)。再按 Esc 离开。"
                    if self.lang == "zh"
                    else "Leaving a running match is an escape (80 points). Esc again to leave."
                )
                self.notify(warn, severity="warning")
                return
        await self._request(m.LeaveTable(table_id=view.table_id))
        self._close_table()

    def _close_table(self) -> None:
        self.view = None
        while self.screen is not self.lobby and len(self.screen_stack) > 1:
            self.pop_screen()
        self.table_screen = None
        self.refresh_tables()

    # -- the table's view -------------------------------------------------------------------
    def _set_view(self, view: TableView) -> None:
        self.view = view
        if self.table_screen is not None:
            self.table_screen.show(view)

    @on(ActionChosen)
    def _action(self, message: ActionChosen) -> None:
        if self.view is None:
            return
        self._send(action_message(self.view, message.choice))
        self.view = replace(self.view, prompt=None)

    @work(group="send")
    async def _send(self, message: m.Message) -> None:
        await self._request(message)

    # -- pushes from the server -------------------------------------------------------------
    @work(exclusive=True, group="reader")
    async def _reader(self) -> None:
        conn = self.conn
        if conn is None:
            return

        def deliver(message: m.Message) -> None:
            if isinstance(message, m.Notice) and message.code == "replaced":
                # Signed in from elsewhere: reconnecting would take the session back and
                # the two clients would keep replacing each other. Forget the token here,
                # before the connection's end can start a reconnect.
                self.token = None
            self.post_message(ServerMessage(message))

        await conn.run(deliver)
        if conn is self.conn:  # dropped, not replaced by a new connection
            self._reconnect()

    @work(exclusive=True, group="reconnect")
    async def _reconnect(self) -> None:
        """The connection dropped: connect again and resume the session (the server then
        sends the table's snapshot and any open prompt)."""
        zh = self.lang == "zh"
        if self.address is None or self.token is None:
            return
        self.notify("连接断开, 重连中…" if zh else "disconnected; reconnecting...", timeout=4)
        for delay in RECONNECT_DELAYS:
            await asyncio.sleep(delay)
            try:
                await self._connect(*self.address)
                assert self.conn is not None
                session = await self.conn.request(m.Resume(token=self.token))
            except RequestFailed:
                break  # the session is gone: only a new login helps
            except (ConnectError, TimeoutError):
                continue
            self.profile = self._signed_in(session)
            self.notify("已重新连接" if zh else "reconnected", timeout=4)
            return
        text = "无法重新连接服务器" if zh else "could not reconnect to the server"
        self.notify(text, severity="error", timeout=30)

    @on(ServerMessage)
    def _pushed(self, event: ServerMessage) -> None:
        msg = event.message
        view = self.view
        at_table = view is not None and getattr(msg, "table_id", None) == view.table_id
        if isinstance(msg, m.Event) and at_table:
            assert view is not None
            if isinstance(msg.event, m.HandStart):
                self._close_results()
            elif msg.seq <= view.seq:
                return  # already in the snapshot the view came from
            view = apply_event_message(view, msg)
            if isinstance(msg.event, m.Deal) and msg.event.tiles and self.profile is not None:
                # The hand's seats are not the lobby's: put our name where our tiles are.
                # (Other players' places need the server to say; see the report.)
                view = seat_player_at(view, msg.event.seat, self.profile.name)
            self._set_view(view)
        elif isinstance(msg, m.Prompt) and at_table:
            assert view is not None
            view = apply_prompt(view, msg)
            self._set_view(view)
            self._auto_answer(view)
        elif isinstance(msg, m.HandResult) and at_table:
            assert view is not None
            self._set_view(apply_hand_result(view, msg))
            self.push_screen(ResultScreen(self.view, self.tile_style, self.lang))  # type: ignore[arg-type]
        elif isinstance(msg, m.MatchResult) and at_table:
            self.push_screen(StandingsScreen(msg.standings, self.lang))
        elif isinstance(msg, m.Snapshot):  # after a resume, or sent by the server anew
            self._set_view(_resynced(view, from_snapshot(msg)))
            if self.view is not None and self.view.playing:
                self._close_results()
            if self.table_screen is None or self.table_screen not in self.screen_stack:
                self.table_screen = TableScreen(
                    self.view, tile_style=self.tile_style, lang=self.lang
                )  # type: ignore[arg-type]
                self.push_screen(self.table_screen)
        elif isinstance(msg, m.TableUpdate):
            if self.lobby is not None:
                self.lobby.update_table(msg.table)
            waiting = msg.table.status == "waiting"  # no match: lobby seats are the seats
            if view is not None and msg.table.table_id == view.table_id and waiting:
                self._set_view(_seated(view, msg.table))
        elif isinstance(msg, m.TableList) and self.lobby is not None:
            self.lobby.set_tables(msg.tables)
        elif isinstance(msg, m.LobbyUpdate) and self.lobby is not None:
            for table in msg.tables:
                self.lobby.update_table(table)
            for table_id in msg.removed:
                self.lobby.remove_table(table_id)
        elif isinstance(msg, m.TableLeft) and at_table:
            self.notify(msg.reason, markup=False)
            self._close_table()
        elif isinstance(msg, m.Chat):
            if msg.channel == "lobby" and self.lobby is not None:
                self.lobby.add_chat(msg.sender, msg.text)
            elif msg.channel == "table" and self.table_screen is not None:
                self.table_screen.add_chat(msg.sender, msg.text)
        elif isinstance(msg, m.ProfileUpdate):
            self.profile = msg.profile
            if self.lobby is not None:
                self.lobby.set_profile(msg.profile)
            if self.shop is not None:
                self.shop.set_coins(msg.profile.coins)
        elif isinstance(msg, m.TileCounts):
            self._counts(msg)
        elif isinstance(msg, m.TimerExtended) and at_table:
            assert view is not None
            self._extended(view, msg)
        elif isinstance(msg, m.ItemAwarded):
            name = item_name(msg.item, self.lang)
            self.notify(f"{tr('awarded', self.lang)}: {name} x{msg.count}", timeout=8)
            self.refresh_inventory()
        elif isinstance(msg, m.Notice | m.Error):
            self.notify(msg.message, severity="warning", markup=False)

    def _extended(self, view: TableView, msg: m.TimerExtended) -> None:
        """A timer extension fired: the clock of that seat runs 90 s longer; one arming
        is one use, so the player's own extension is no longer armed."""
        seat = view.seats[msg.seat]
        who = f"{wind_name(seat.wind, self.lang)} {seat.name}"
        self.notify(f"{who}: {tr('extended', self.lang)}", timeout=5, markup=False)
        if view.timer is not None and msg.seat in view.timer.seats:
            timer = replace(view.timer, ms_left=msg.ms_left, total_ms=msg.ms_left)
            view = replace(view, timer=timer)
        if msg.seat == view.me:
            view = replace(view, extension_armed=False)
            self.refresh_inventory()
        self._set_view(view)

    def _auto_answer(self, view: TableView) -> None:
        """The auto-win and auto-pass toggles answer a prompt for the player."""
        prompt = view.prompt
        if prompt is None:
            return
        if self.auto_win and prompt.allows("win"):
            self.post_message(ActionChosen(Choice("win")))
        elif self.auto_pass and prompt.is_claim and not prompt.allows("win"):
            self.post_message(ActionChosen(Choice("pass")))

    def action_toggle_auto_win(self) -> None:
        self._toggle("auto_win")

    def action_toggle_auto_pass(self) -> None:
        self._toggle("auto_pass")

    def _toggle(self, name: str) -> None:
        setattr(self, name, not getattr(self, name))
        if self.view is not None:
            self._set_view(self.view)
            self._auto_answer(self.view)

    def _close_results(self) -> None:
        while isinstance(self.screen, ResultScreen | StandingsScreen):
            self.pop_screen()

    async def on_unmount(self) -> None:
        if self.conn is not None:
            await self.conn.close()


def _resynced(old: TableView | None, new: TableView) -> TableView:
    """A snapshot's view, keeping what the snapshot does not carry: the open prompt (if
    the snapshot is no newer than it), the armed extension and a running tile counter."""
    if old is None or old.table_id != new.table_id:
        return new
    prompt = old.prompt if old.prompt is not None and old.prompt.seq >= new.seq else None
    return replace(
        new,
        prompt=prompt if new.playing else None,
        extension_armed=old.extension_armed,
        unseen=old.unseen if new.playing else None,
    )


def _seated(view: TableView, table: m.TableInfo) -> TableView:
    """Names and bots from the lobby's seats (before a hand is dealt)."""
    seats = tuple(
        replace(seat, name=lobby.name or "", bot=lobby.bot, level=lobby.level)
        for seat, lobby in zip(view.seats, table.seats, strict=True)
    )
    return replace(view, seats=seats)


# -- the command line -----------------------------------------------------------------------
def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gbmj", description="Chinese Official Mahjong")
    parser.add_argument("command", nargs="?", choices=("solo",), help="solo: play three bots")
    parser.add_argument("--ascii", action="store_true", help="ASCII tiles (no Chinese)")
    parser.add_argument("--lang", choices=("zh", "en"), help="interface language")
    parser.add_argument("--db", type=Path, help="solo: the database file")
    parser.add_argument("--version", action="version", version=f"gbmj {version('gbmj')}")
    return parser.parse_args(argv)


def _signed_in_from_env() -> tuple[str, str | None] | None:
    """``GBMJ_SERVER`` with ``GBMJ_SESSION`` (a session token) or ``GBMJ_GUEST=1``: the SSH
    server starts the client signed in. Taken out of the environment once read."""
    server = os.environ.pop("GBMJ_SERVER", None)
    token = os.environ.pop("GBMJ_SESSION", None)
    guest = os.environ.pop("GBMJ_GUEST", None) == "1"
    if server is None or not (token or guest):
        return None
    return server, token or None


def main(argv: list[str] | None = None) -> None:
    args = _parse_args(argv)
    lang = args.lang or ("en" if args.ascii else "zh")
    style = TileStyle.ASCII if args.ascii else TileStyle.CJK
    if args.command != "solo":
        GbmjApp(tile_style=style, lang=lang, signed_in=_signed_in_from_env()).run()
        return
    proc, port = start_local_server(args.db or data_dir() / "solo.db")
    try:
        GbmjApp(tile_style=style, lang=lang, solo=("127.0.0.1", port)).run()
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        if proc.poll() is None:
            proc.kill()


if __name__ == "__main__":  # pragma: no cover
    main()
