"""The screens the app opens for a key or for a screen that asks: the help, the shop,
the leaderboard, the history, a hand's replay (and its export), the mute dialog.

A part of ``GbmjApp`` (gbmj_tui.app), kept apart to keep each module short; its
handlers go by Textual's naming (``on_replay_asked`` for ``ReplayAsked``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from gbmj_tui import messages as ui
from gbmj_tui.errors import ConnectError, RequestFailed
from gbmj_tui.i18n import tr
from gbmj_tui.screens.help import HelpScreen
from gbmj_tui.screens.history import HistoryScreen
from gbmj_tui.screens.moderation import MuteDialog
from gbmj_tui.screens.replay import ReplayScreen
from gbmj_tui.screens.shop import LeaderboardScreen, ShopScreen
from gbmj_tui.tools import ExportError, export_hand

if TYPE_CHECKING:
    from textual.app import App

    from gbmj_tui.config import Options
    from gbmj_tui.session import Session
    from gbmj_tui.tiles import TileStyle

    _Base = App[None]
else:
    _Base = object


class ScreensOpened(_Base):
    """The app's screens opened on request (the module's docstring)."""

    session: Session
    options: Options
    lang: str
    tile_style: TileStyle

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.tile_style, self.lang))

    def action_open_shop(self) -> None:
        """The items and the shop (i in the lobby)."""
        if not isinstance(self.screen, ShopScreen) and self.session.profile is not None:
            self.push_screen(ShopScreen(self.lang, self.session.profile, self.session.inventory))

    def action_open_leaderboard(self) -> None:
        """The leaderboard (l in the lobby)."""
        if not isinstance(self.screen, LeaderboardScreen):
            me = self.session.profile.name if self.session.profile is not None else None
            self.push_screen(LeaderboardScreen(self.lang, me))

    def action_open_history(self) -> None:
        """The player's match history (h in the lobby)."""
        if not isinstance(self.screen, HistoryScreen):
            self.push_screen(HistoryScreen(self.lang))

    def on_replay_asked(self, asked: ui.ReplayAsked) -> None:
        me = self.session.profile.name if self.session.profile is not None else None
        may_export = not self.options.hosted  # a hosted client writes no file
        screen = ReplayScreen(
            asked.hand_id, me=me, lang=self.lang, tile_style=self.tile_style, may_export=may_export
        )
        screen.start_costly = asked.costly
        self.push_screen(screen)

    def on_mute_asked(self, asked: ui.MuteAsked) -> None:
        s = self.session
        table_muted = (
            None if asked.table_id is None else s.table_muted.setdefault(asked.table_id, set())
        )
        dialog = MuteDialog(
            asked.names,
            self.lang,
            muted=s.muted,
            table_id=asked.table_id,
            table_muted=table_muted,
            owner=asked.owner,
            selected=asked.selected,
        )
        self.push_screen(dialog)

    @work(group="export")
    async def on_export_asked(self, asked: ui.ExportAsked) -> None:
        """Write a hand to a replay file in the current folder, as ``gbmj export`` does."""
        conn = self.session.conn
        if self.options.hosted or conn is None or conn.closed:
            return
        try:
            path = await export_hand(conn, asked.hand_id, str(self.session.address or ""))
        except (ExportError, ConnectError, RequestFailed, TimeoutError, OSError) as exc:
            text = tr("The hand was not exported: {reason}", self.lang).format(reason=exc)
            self.notify(text, severity="error", timeout=10, markup=False)
            return
        text = tr("The hand was written to {path}", self.lang).format(path=path)
        self.notify(text, timeout=10, markup=False)
