"""The recorder (录像机, docs/rules.md §2.6) from the real client against a real server
(``gbmj-server`` in a subprocess, a real SQLite file holding a match alice played): in
a match of the history, r on a hand asks first (the cost in recorders), saves it, and
the saved hands (s in the history) list it; without a recorder the client says so; the
shop sells them (each bought asked first). r on a hand's result saves that hand the
same way."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from live_harness import until
from tui_harness import screen_text
from tui_sample import sample_result, sample_view

from gbmj_server.storage import Storage
from gbmj_tui.app import GbmjApp
from gbmj_tui.local_server import start_local_server
from gbmj_tui.screens.dialogs import Confirm
from gbmj_tui.screens.history import HistoryScreen, MatchScreen, SavedHandsScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen
from gbmj_tui.screens.shop import ShopScreen, held
from protocol.vocabulary import Item

# The history tests' recorder writes a match the way the server's tables do; tests/ is
# on the path when those tests run, not always when this module runs alone.
sys.path.insert(0, str(Path(__file__).parents[1]))
from history.recorder import record_match, sitters


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, str, list[int]]]:
    """The server (plain TCP) over a database where alice played a two-hand match; her
    session token and the hands' ids."""
    db = tmp_path / "gbmj.db"
    store = Storage(db)
    seated = sitters(store, "alice", "bob")
    match = record_match(store, seated, b"rec-tui", hands=2)
    assert seated[0].account_id is not None
    token = store.create_session(seated[0].account_id)
    store.close()
    config = tmp_path / "server.toml"
    config.write_text("bot_delay = 0.0\n")
    proc, port = start_local_server(db, config)
    try:
        yield port, token, match.hand_ids
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_a_hand_is_saved_with_a_recorder_from_the_history(
    served: tuple[int, str, list[int]], tmp_path: Path
) -> None:
    port, token, (first, second) = served
    shots: dict[str, str] = {}

    async def go() -> None:
        app = GbmjApp(
            signed_in=(f"127.0.0.1:{port}", token),
            hosted=True,
            server=f"127.0.0.1:{port}",
            insecure=True,
            config_path=tmp_path / "c.json",
            lang="en",
        )
        async with app.run_test(size=(110, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))

            async def open_match() -> tuple[HistoryScreen, MatchScreen]:
                await pilot.press("h")
                await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
                history = app.screen
                await until(pilot, lambda: bool(history.matches))
                await pilot.press("enter")
                await until(pilot, lambda: isinstance(app.screen, MatchScreen))
                match_screen = app.screen
                await until(pilot, lambda: match_screen.detail is not None)
                return history, match_screen

            # No recorder yet: the client says so and asks nothing.
            _, match_screen = await open_match()
            await pilot.press("r")
            await until(pilot, lambda: "no recorder" in screen_text(app))
            assert match_screen.saver.saving is None
            # The shop sells recorders: two bought, each asked first.
            await pilot.press("escape", "escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ShopScreen))
            shop = app.screen
            await until(pilot, lambda: bool(shop.offers))
            offered = [o.item for o in shop.offers]
            await pilot.press(*["down"] * offered.index(Item.RECORDER))
            await pilot.pause()
            shots["shop"] = screen_text(app)
            for count in (1, 2):
                await pilot.press("enter")
                await until(pilot, lambda: isinstance(app.screen, Confirm))
                await pilot.press("y")
                await until(
                    pilot,
                    lambda n=count: (
                        shop.inventory is not None and held(shop.inventory, Item.RECORDER) == n
                    ),
                )
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            history, match_screen = await open_match()
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, Confirm))
            await until(pilot, lambda: "for good?" in screen_text(app))
            shots["asked"] = app.screen.question
            await pilot.press("y")
            await until(pilot, lambda: "saved for good" in screen_text(app))
            shots["saved"] = screen_text(app)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is history)
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, SavedHandsScreen))
            saved = app.screen
            await until(pilot, lambda: saved.total is not None)
            await pilot.pause()
            shots["list"] = screen_text(app)
            assert [x.hand.hand_id for x in saved.saved] == [first]
            # The result of a hand (the second, shown as a result is): r saves it too.
            await pilot.press("escape", "escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            view = sample_result(sample_view())
            assert view.result is not None
            view = replace(view, result=replace(view.result, hand_id=second))
            result = ResultScreen(view, app.tile_style, app.lang)
            await app.push_screen(result)
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, Confirm))
            await until(pilot, lambda: "for good?" in screen_text(app))
            shots["asked again"] = app.screen.question
            await pilot.press("enter")
            await until(pilot, lambda: app.screen is result and result.saver.saving is None)
            await pilot.press("escape", "h")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, SavedHandsScreen))
            again = app.screen
            await until(pilot, lambda: again.total == 2)
            assert {x.hand.hand_id for x in again.saved} == {first, second}

    asyncio.run(go())
    shop = " ".join(shots["shop"].replace("│", " ").split())  # the box's sides out
    assert "recorder 1500" in shop and "anyone with its id may replay it" in shop
    assert shots["asked"] == "Save East round, hand 1 for good? It uses 1 recorder (you have 2)."
    saved = " ".join(shots["saved"].split())
    assert f"East round, hand 1 saved for good: anyone with its id, {first}, may replay it" in saved
    assert shots["asked again"] == (
        "Save South round, hand 3 for good? It uses 1 recorder (you have 1)."
    )
    assert "Saved hands 1-1 of 1" in shots["list"] and str(first) in shots["list"]
