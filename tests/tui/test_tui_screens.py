"""Which screen is on top comes from the session alone (gbmj_tui.app ``_arrange``): a
signed-in player at a table sees the table over the lobby, whichever of the sign-in's
reply and the table's snapshot the app takes in first."""

from __future__ import annotations

import asyncio

import pytest
from tui_harness import screen_text

from gbmj_tui.app import GbmjApp
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.table import TableScreen
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES

SNAPSHOT: m.Snapshot = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Snapshot))
SESSION: m.Session = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Session))


@pytest.mark.parametrize("snapshot_first", [True, False])
def test_the_table_is_on_top_whatever_order_the_frames_come_in(tmp_path, snapshot_first) -> None:
    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ConnectScreen)
            app.session.receive(SESSION)
            if snapshot_first:
                app.session.receive(SNAPSHOT)
                await pilot.pause()
                await app._enter_lobby(SESSION.profile)
            else:
                await app._enter_lobby(SESSION.profile)
                await pilot.pause()
                app.session.receive(SNAPSHOT)
            await pilot.pause()
            stack = [type(s) for s in app.screen_stack]
            # a later update goes to the screen on top
            app.session.receive(m.Chat(channel="table", table_id=SNAPSHOT.table.table_id,
                                       sender="Dan", text="still here"))  # fmt: skip
            await pilot.pause()
            return stack, screen_text(app)

    stack, text = asyncio.run(go())
    assert stack[-2:] == [LobbyScreen, TableScreen]
    assert ConnectScreen not in stack
    assert "Dan: still here" in text


def test_the_lobbys_counters_change_on_their_line_without_a_new_layout(tmp_path) -> None:
    """A sign-in anywhere changes "players online" in every lobby: the profile line is
    one line, 1fr wide, so its new text repaints that line alone (a new layout of the
    whole lobby per sign-in was most of a watching client's work)."""
    refreshed: list[bool] = []  # each refresh of the profile line: with a layout?

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await app._enter_lobby(SESSION.profile)
            await pilot.pause()
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            line = lobby.query_one("#profile")
            original = line.refresh

            def refresh(*regions, **kwargs):
                refreshed.append(bool(kwargs.get("layout")))
                return original(*regions, **kwargs)

            line.refresh = refresh  # type: ignore[method-assign]
            app.session.receive(m.LobbyUpdate(tables=(), removed=(), total=2, players_online=7))
            await pilot.pause()
            return screen_text(app)

    text = asyncio.run(go())
    assert "2 tables, 7 online" in text
    assert refreshed and not any(refreshed), refreshed
