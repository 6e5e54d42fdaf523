"""Every screen in each language shows no string of the other: in English no Chinese
character, in Chinese none of the catalog's English strings (the msgids)."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from dataclasses import replace
from pathlib import Path

import pytest
from tui_harness import OfflineApp, terminal_text
from tui_sample import bot_hand, claim_prompt, hand_log, sample_result, sample_view

from gbmj_tui.i18n import tr
from gbmj_tui.messages import LobbyChanged, Replied
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.dialogs import Confirm, PasswordPrompt, SettingsDialog
from gbmj_tui.screens.help import HelpScreen
from gbmj_tui.screens.history import HistoryScreen, MatchScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.replay import ReplayScreen
from gbmj_tui.screens.result import ResultScreen, StandingsScreen
from gbmj_tui.screens.seats import SeatsDialog
from gbmj_tui.screens.shop import LeaderboardScreen, ShopScreen
from gbmj_tui.screens.ssh_keys import SshKeysScreen
from gbmj_tui.screens.tournaments import TournamentsScreen
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalog.py"
_INFO = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]
INFO = replace(_INFO, settings=replace(_INFO.settings, name="t1"))  # data in neither language
_MATCH = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchResult))
MATCH = replace(
    _MATCH,
    standings=tuple(replace(s, name=f"p{i}") for i, s in enumerate(_MATCH.standings)),
)
SHOP = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Shop))
_LIST = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchList))
PLAYERS = ("p0", "p1", "p2", "p3")  # names in neither language
_SUMMARY = replace(_LIST.matches[0], table_name="t1", players=PLAYERS)
MATCHES = replace(_LIST, matches=(_SUMMARY,))
_DETAIL = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchDetail))
DETAIL = replace(
    _DETAIL,
    match=_SUMMARY,
    hands=tuple(replace(h, players=PLAYERS) for h in _DETAIL.hands),
    standings=MATCH.standings,
)
HAND_LOG = hand_log(bot_hand())
INVENTORY = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Inventory))
PROFILE = m.Profile(name="alice", guest=False, coins=9_000, rating=120, level=2)


def _english_msgids() -> list[str]:
    spec = importlib.util.spec_from_file_location("catalog", SCRIPT)
    assert spec is not None and spec.loader is not None
    catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalog)
    words = []
    for (context, msgid), _ in catalog.code_strings().items():
        plain = re.sub(r"\{[^}]*\}", "", msgid).strip(" .:()")
        letters = len(re.sub(r"[^A-Za-z]", "", plain))
        if context is None and letters >= 3 and tr(msgid, "zh") != msgid:
            words.append(plain)
    return words


async def _lobby(app):
    lobby = LobbyScreen(app.lang, PROFILE)
    await app.push_screen(lobby)
    lobby.apply(LobbyChanged((INFO,), reset=True, total=1, online=4))


async def _shop(app):
    shop = ShopScreen(app.lang, PROFILE, INVENTORY)
    await app.push_screen(shop)
    shop.post_message(Replied(m.GetShop(), SHOP))


async def _history(app):
    screen = HistoryScreen(app.lang)
    await app.push_screen(screen)
    screen.post_message(Replied(m.ListMatches(), MATCHES))


async def _match(app):
    screen = MatchScreen(88, app.lang)
    await app.push_screen(screen)
    screen.post_message(Replied(m.GetMatch(match_id=88), DETAIL))


def _replay(end: bool):
    async def show(app):
        screen = ReplayScreen(41, me="alice", lang=app.lang, tile_style=app.tile_style)
        await app.push_screen(screen)
        screen.load(HAND_LOG)
        if end:
            screen.action_jump(-1)  # the result over the board

    return show


SCREENS = {
    "table": None,
    "connect": lambda app: app.push_screen(ConnectScreen(app.config, app.lang)),
    "lobby": _lobby,
    "result": lambda app: app.push_screen(
        ResultScreen(sample_result(sample_view()), app.tile_style, app.lang, 5_000)
    ),
    "standings": lambda app: app.push_screen(StandingsScreen(MATCH, app.lang)),
    "help": lambda app: app.push_screen(HelpScreen(app.tile_style, app.lang)),
    "shop": _shop,
    "leaderboard": lambda app: app.push_screen(LeaderboardScreen(app.lang, "alice")),
    "seats": lambda app: app.push_screen(SeatsDialog(sample_view(), app.lang, owner=True)),
    "settings": lambda app: app.push_screen(SettingsDialog(app.lang)),
    "password": lambda app: app.push_screen(PasswordPrompt("t1", app.lang)),
    "ssh keys": lambda app: app.push_screen(SshKeysScreen(app.lang)),
    "tournaments": lambda app: app.push_screen(TournamentsScreen(app.lang, "alice")),
    "confirm": lambda app: app.push_screen(Confirm("?", app.lang)),
    "history": _history,
    "match": _match,
    "replay": _replay(end=False),
    "replay end": _replay(end=True),
}


def _screen_text(name: str, lang: str) -> str:
    async def go() -> str:
        view = replace(claim_prompt(sample_view()), table_name="t1", owner="alice")
        app = OfflineApp(view, lang=lang)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            show = SCREENS[name]
            if show is not None:
                shown = show(app)
                if shown is not None:
                    await shown
            await pilot.pause()
            return terminal_text(app)

    return asyncio.run(go())


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCREENS))
def test_english_screens_have_no_chinese(name: str) -> None:
    text = _screen_text(name, "en")
    chinese = sorted({c for c in text if ord(c) >= 0x2E80})
    assert not chinese, (name, chinese)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCREENS))
def test_chinese_screens_have_no_english_interface_text(name: str) -> None:
    text = _screen_text(name, "zh")
    leaked = [
        w for w in _english_msgids() if re.search(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])", text)
    ]
    assert not leaked, (name, leaked)
