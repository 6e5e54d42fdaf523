"""The real client against a real server on loopback (``gbmj-server`` in a subprocess,
a real SQLite file): log in, play a hand to the result by key presses, watch from a
second app, a wrong password's error, the claim bar matching the server's prompt."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from live_harness import play_hand, until
from textual.widgets import Input
from tui_harness import screen_text, widget_text

from gbmj_tui.app import GbmjApp
from gbmj_tui.config import Address
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import Requested
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen
from gbmj_tui.screens.seats import SeatsDialog
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.solo import Solo
from gbmj_tui.widgets import HandRow
from protocol import messages as m


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    # bots act at once and hands follow quickly: the test plays, it does not wait
    where = tmp_path_factory.mktemp("srv")
    config = where / "server.toml"
    config.write_text("bot_delay = 0.0\nhand_pause = 5.0\n")
    proc, port = start_local_server(where / "gbmj.db", config)
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def _solo(port: int, where: Path) -> Solo:
    """Solo on the test's server as a real player (the account kept in ``where``)."""
    return Solo(Address("127.0.0.1", port), where / "solo-account.json")


@pytest.mark.slow
def test_solo_hand_to_the_result_by_keys_and_a_spectator(server: int, tmp_path: Path) -> None:
    async def go():
        app = GbmjApp(solo=_solo(server, tmp_path), config_path=tmp_path / "c.json")
        watcher = GbmjApp(config_path=tmp_path / "w.json", lang="en", insecure=True)
        checks = {"claims": 0, "turns": 0}
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.session.view is not None and app.session.view.playing)
            table_id = app.session.view.table_id
            me = app.session.view.me
            assert me is not None

            # a second client watches the same table
            async with watcher.run_test(size=(100, 32)) as wpilot:
                await until(wpilot, lambda: isinstance(watcher.screen, ConnectScreen))
                error = await watcher.sign_in("guest", f"127.0.0.1:{server}", "", "")
                assert error is None
                await until(wpilot, lambda: isinstance(watcher.screen, LobbyScreen))
                await until(wpilot, lambda: table_id in watcher.lobby.tables)
                watcher.post_message(Requested(m.Spectate(table_id=table_id)))
                await until(wpilot, lambda: isinstance(watcher.screen, TableScreen))
                assert watcher.session.view is not None and watcher.session.view.me is None
                await wpilot.pause()
                watched = screen_text(watcher)
                assert "Spectating" in watched
                assert not watcher.screen.query_one(HandRow).display
                assert app.session.view.seats[me].name in watched
                # Esc takes the spectator back to the lobby
                await wpilot.press("escape")
                await until(wpilot, lambda: isinstance(watcher.screen, LobbyScreen))

            await play_hand(app, pilot, checks)
            await pilot.pause()
            text = screen_text(app)
            result = app.session.view.result

            assert result is not None
            if result.outcome == "win":
                assert "合计" in text  # the fan table's total
            else:
                assert "荒庄" in text
            for seat in app.session.view.seats:
                assert seat.name in text
            assert checks["turns"] > 0
            await pilot.press("enter")  # close the result
            await until(pilot, lambda: not isinstance(app.screen, ResultScreen))

    asyncio.run(go())


@pytest.mark.slow
def test_register_then_wrong_password_shows_an_error(server: int, tmp_path: Path) -> None:
    async def sign(how: str, password: str) -> tuple[str, type]:
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            screen = app.screen
            screen.query_one("#server", Input).value = f"127.0.0.1:{server}"
            screen.query_one("#name", Input).value = "carol"
            screen.query_one("#password", Input).value = password
            screen.query_one("#insecure").value = True  # the test's server is plain TCP
            await pilot.click(f"#{how}")
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, LobbyScreen)
                    or "wrong" in screen_text(app)
                    or "taken" in screen_text(app)
                ),
            )
            await pilot.pause()
            return screen_text(app), type(app.screen)

    text, screen = asyncio.run(sign("register", "right-password"))
    assert screen is LobbyScreen and "carol" in text
    text, screen = asyncio.run(sign("login", "wrong-password"))
    assert screen is ConnectScreen
    assert "wrong name or password" in text


def test_a_server_that_is_down_is_named(tmp_path: Path) -> None:
    async def go() -> str:
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 32)):
            return await app.sign_in("guest", "127.0.0.1:1", "", "")

    error = asyncio.run(go())
    assert "cannot connect to 127.0.0.1:1" in error


@pytest.mark.slow
def test_lobby_dialog_bots_ready_then_leave(server: int, tmp_path: Path) -> None:
    """Guest login, create a table with the dialog, fill it with bots (b), get ready (r):
    the deal comes; Esc twice leaves the running match (an escape) for the lobby."""
    from gbmj_tui.screens.dialogs import SettingsDialog

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", insecure=True)
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            app.screen.query_one("#server", Input).value = f"127.0.0.1:{server}"
            await pilot.click("#guest")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, SettingsDialog))
            app.screen.query_one("#t-name", Input).value = "pilot table"
            app.screen.query_one("#t-name", Input).focus()
            await pilot.press("enter")  # Enter in a field creates, like the button
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await until(
                pilot, lambda: app.session.view is not None and app.session.view.me is not None
            )
            assert any(t.settings.name == "pilot table" for t in app.lobby.tables.values())
            await pilot.press("b")  # the seats: fill the empty ones with bots, close
            await until(pilot, lambda: isinstance(app.screen, SeatsDialog))
            await pilot.press("f")
            await until(pilot, lambda: all(s.name for s in app.session.view.seats))
            await pilot.press("escape")
            await pilot.press("r")
            await until(
                pilot, lambda: app.session.view.playing and len(app.session.view.hand) >= 13
            )
            await pilot.pause()
            dealt = screen_text(app)
            await pilot.press("escape")
            notes = lambda: " ".join(  # noqa: E731  (the toasts on the screen)
                " ".join(widget_text(t).split()) for t in app.screen.query("Toast")
            )
            await until(pilot, lambda: "escape" in notes())
            warned = notes()
            assert isinstance(app.screen, TableScreen)
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            return dealt, warned

    dealt, warned = asyncio.run(go())
    assert "East round, hand 1" in dealt
    assert len(re.findall("####x1[0-4]", dealt)) == 3  # three others with hidden tiles
    assert "escape" in warned


@pytest.mark.slow
def test_a_dropped_connection_resumes_the_table(server: int, tmp_path: Path) -> None:
    """The socket dies mid-hand: the client reconnects, resumes its session with the
    token, gets the table's snapshot back and is prompted again."""

    async def go():
        app = GbmjApp(solo=_solo(server, tmp_path), config_path=tmp_path / "c.json")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(
                pilot,
                lambda: app.session.view is not None and app.session.view.prompt is not None,
                30,
            )
            old, before = app.session.conn, app.session.view
            app.session.view = replace(before, hand=(), drawn=None, prompt=None)  # forget, to see
            old._writer.transport.abort()  # the connection drops
            await until(pilot, lambda: app.session.conn is not None and app.session.conn is not old)
            await until(
                pilot, lambda: app.session.view.prompt is not None or app.session.view.result
            )
            await pilot.pause()
            return before, app.session.view, screen_text(app)

    before, view, text = asyncio.run(go())
    assert view.me is not None and view.seats[view.me].name in text
    if view.seq == before.seq:  # nothing happened meanwhile: the same tiles, the same prompt

        def held(v):
            return sorted((*v.hand, *(() if v.drawn is None else (v.drawn,))))

        assert held(view) == held(before)
        assert view.prompt is not None and before.prompt is not None
        assert set(view.prompt.actions) == set(before.prompt.actions)
    else:  # the server played for us meanwhile: our tiles are back all the same
        assert len(view.hand) + (view.drawn is not None) >= 1


@pytest.mark.slow
def test_signed_in_from_elsewhere_the_client_does_not_take_the_session_back(
    server: int, tmp_path: Path
) -> None:
    """A second client resumes the same session: the first is told ``replaced`` and
    must not reconnect, or the two would keep replacing each other."""
    from gbmj_tui.connection import Connection, TlsPolicy

    async def go():
        app = GbmjApp(solo=_solo(server, tmp_path), config_path=tmp_path / "c.json")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(
                pilot, lambda: app.session.view is not None and app.session.token is not None
            )
            old, token = app.session.conn, app.session.token
            other = await Connection.open("127.0.0.1", server, tls=TlsPolicy(insecure=True))
            reading = asyncio.create_task(other.run(lambda message: None))
            session = await other.request(m.Resume(token=token))
            await until(pilot, lambda: app.session.token is None)
            await pilot.pause(2.0)  # longer than the first reconnect delays
            still_old = app.session.conn is old
            await other.close()
            reading.cancel()
            return session, still_old

    session, still_old = asyncio.run(go())
    assert isinstance(session, m.Session)
    assert still_old  # no new connection was opened to take the session back


@pytest.mark.slow
def test_items_shop_leaderboard_and_a_protected_table(server: int, tmp_path: Path) -> None:
    """A registered player buys a tile counter and a timer extension in the shop (i), sees
    the leaderboard (l), opens a table with a password, arms the extension (e) and uses
    the counter (t) in the hand; a guest must give the password to watch."""
    from textual.widgets import DataTable

    from gbmj_tui.screens.dialogs import Confirm, PasswordPrompt
    from gbmj_tui.screens.shop import LeaderboardScreen, ShopScreen, held
    from gbmj_tui.widgets import TileCounter

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", insecure=True)
        watcher = GbmjApp(config_path=tmp_path / "w.json", lang="en", insecure=True)
        address = f"127.0.0.1:{server}"
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            assert await app.sign_in("register", address, "dora", "pw-of-dora") is None
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await until(pilot, lambda: app.session.inventory is not None)
            start_coins = app.session.profile.coins
            lobby_text = screen_text(app)
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ShopScreen) and app.screen.offers)
            shop = app.screen
            for item in ("tile_counter", "timer_extension"):
                row = [o.item for o in shop.offers].index(item)
                shop.query_one(DataTable).move_cursor(row=row)
                await pilot.press("enter")  # buy one ...
                await until(pilot, lambda: isinstance(app.screen, Confirm))
                await pilot.press("enter")  # ... yes
                await until(pilot, lambda i=item: held(app.session.inventory, i) == 1)
            await until(pilot, lambda: app.session.profile.coins < start_coins)
            await pilot.pause()
            shop_text = screen_text(app)
            await pilot.press("escape")
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
            await until(pilot, lambda: app.screen.entries)
            leaders = [e.name for e in app.screen.entries]
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))

            timers = m.TimerSettings(on=True, first_discard=60, turn=60, claim_window=10)
            settings = m.TableSettings(
                name="dora's", stake=0, timers=timers, rounds=1, bots_allowed=True
            )
            app.post_message(Requested(m.CreateTable(settings=settings, password="sesame")))
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await until(
                pilot, lambda: app.session.view is not None and app.session.view.me is not None
            )
            await pilot.press("b")  # the seats: fill the empty ones with bots, close
            await until(pilot, lambda: isinstance(app.screen, SeatsDialog))
            await pilot.press("f")
            await until(pilot, lambda: all(s.name for s in app.session.view.seats))
            await pilot.press("escape")
            await pilot.press("r")
            await until(
                pilot, lambda: app.session.view.playing and len(app.session.view.hand) >= 13
            )
            await pilot.press("e")
            await until(pilot, lambda: app.session.view.extension_armed)
            await pilot.press("t")
            await until(pilot, lambda: app.session.view.unseen is not None)
            await pilot.pause()
            table_text = screen_text(app)
            counter = app.screen.query_one(TileCounter)
            assert counter.display and sum(app.session.view.unseen) < 136
            table_id = app.session.view.table_id

            async with watcher.run_test(size=(80, 24)) as wpilot:
                assert await watcher.sign_in("guest", address, "", "") is None
                await until(wpilot, lambda: table_id in watcher.lobby.tables)
                rows = sorted(watcher.lobby.tables)
                watcher.lobby.query_one("#tables", DataTable).move_cursor(row=rows.index(table_id))
                await wpilot.press("s")
                await until(wpilot, lambda: isinstance(watcher.screen, PasswordPrompt))
                await wpilot.press(*"sesame", "enter")
                await until(wpilot, lambda: isinstance(watcher.screen, TableScreen))
                assert watcher.session.view.me is None
            return lobby_text, shop_text, leaders, table_text

    lobby_text, shop_text, leaders, table_text = asyncio.run(go())
    assert re.search(r"dora +coins \d+ +level \d+", lobby_text)  # name, coins and level
    assert "tile counter x1" in shop_text and "timer extension x1" in shop_text
    assert "dora" in leaders
    assert "extension armed" in table_text.split("\n")[0]
    assert "tile counter" in table_text


@pytest.mark.slow
def test_a_server_restart_shows_the_reconnect_and_the_client_comes_back(tmp_path: Path) -> None:
    """The server goes away (killed) and comes back on the same port and database: the
    client says it is reconnecting (not a crash, not a frozen screen), retries with
    backoff and is signed in again on its own."""
    from gbmj_tui.messages import Link
    from gbmj_tui.widgets.linkbar import LinkBar

    config = tmp_path / "server.toml"
    config.write_text("bot_delay = 0.0\n")
    proc, port = start_local_server(tmp_path / "gbmj.db", config)

    async def go():
        nonlocal proc
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", insecure=True)
        async with app.run_test(size=(100, 32)) as pilot:
            assert await app.sign_in("register", f"127.0.0.1:{port}", "erin", "pw-of-erin") is None
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            proc.kill()
            proc.wait(10)
            await until(pilot, lambda: app.session.link is Link.RECONNECTING)
            await pilot.pause()
            down = screen_text(app)
            banner = app.screen.query_one(LinkBar).display
            proc, _ = start_local_server(tmp_path / "gbmj.db", config, port=port)
            await until(pilot, lambda: app.session.link is Link.ONLINE)
            await pilot.pause()
            return down, banner, screen_text(app), app.session.profile

    try:
        down, banner, up, profile = asyncio.run(go())
    finally:
        proc.terminate()
        proc.wait(10)
    assert banner and "Connection lost: reconnecting (attempt" in down
    assert "Connection lost" not in up and "erin" in up  # the lobby again, signed in
    assert profile is not None and profile.name == "erin"


def test_a_hosted_client_writes_no_file_and_keeps_to_its_server(
    server: int, tmp_path: Path
) -> None:
    """``GBMJ_HOSTED=1`` (a front door's client): the connect screen offers no server
    to choose (nor TLS or not: its front door chose), signing in writes no config file,
    and an address asked for is ignored."""
    address = f"127.0.0.1:{server}"
    config = tmp_path / "c.json"

    async def go():
        # as its front door starts it for a plain game port (GBMJ_INSECURE=1)
        app = GbmjApp(config_path=config, lang="en", hosted=True, server=address, insecure=True)
        assert app.session.commitments is None  # nor the commitments it is shown
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            fields = len(app.screen.query("#server, #insecure"))
            shown = screen_text(app)
            error = await app.sign_in("guest", "127.0.0.1:1", "", "")  # not the host's
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            return fields, shown, error

    fields, shown, error = asyncio.run(go())
    assert fields == 0 and "Server" not in shown and "TLS" not in shown
    assert "Name" in shown and "Guest" in shown
    assert error is None  # the host's server, not the typed one
    assert not config.exists()


def test_server_on_the_command_line_fills_the_connect_screen(tmp_path: Path) -> None:
    from gbmj_tui.cli import parse_args

    assert parse_args(["--server", "example.org:7000"]).server == "example.org:7000"
    with pytest.raises(SystemExit):
        parse_args(["--server", "example.org:notaport"])

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", server="example.org:7000")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            field = app.screen.query_one("#server", Input)
            return field.value, field.disabled

    assert asyncio.run(go()) == ("example.org:7000", False)


@pytest.mark.slow
def test_back_at_the_seat_after_a_restarted_client_signs_in_with_the_password(
    server: int, tmp_path: Path
) -> None:
    """The client dies mid-match (its connection gone, as a kill leaves it); a new client
    signs in with the account's password on the connect screen: the table, with the
    player's hand, is on top of the lobby."""
    import json

    async def first() -> None:
        app = GbmjApp(solo=_solo(server, tmp_path), config_path=tmp_path / "c.json")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(
                pilot,
                lambda: app.session.view is not None and len(app.session.view.hand) >= 13,
                30,
            )
            app.session.token = None  # no reconnect: this client is gone
            app.session.conn._writer.transport.abort()

    async def again() -> tuple[type, str, bool]:
        account = json.loads((tmp_path / "solo-account.json").read_text())
        app = GbmjApp(config_path=tmp_path / "c2.json", lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            screen = app.screen
            screen.query_one("#server", Input).value = f"127.0.0.1:{server}"
            screen.query_one("#name", Input).value = account["name"]
            screen.query_one("#password", Input).value = account["password"]
            screen.query_one("#insecure").value = True
            await pilot.click("#login")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.pause()
            lobby_below = app.lobby is not None and app.lobby in app.screen_stack
            return type(app.screen), screen_text(app), lobby_below

    asyncio.run(first())
    shown, text, lobby_below = asyncio.run(again())
    assert shown is TableScreen and lobby_below
    assert re.search("####x1[0-4]", text)  # the others' hidden hands: a hand is in play


@pytest.mark.slow
def test_j_sits_s_watches_chat_esc_closes_the_box_and_leaving_a_seat_asks(
    server: int, tmp_path: Path
) -> None:
    """Another player's waiting table: ``j`` takes its free seat (the status offers the
    ready key), the chat box stays open after a line and Esc closes it, leaving the seat
    takes Esc twice; ``s`` watches (no ready key offered)."""
    from textual.widgets import DataTable

    from gbmj_tui.connection import Connection, TlsPolicy

    settings = m.TableSettings(
        name="owners table", stake=0, rounds=1, bots_allowed=True,
        timers=m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5),
    )  # fmt: skip

    async def go():
        owner = await Connection.open("127.0.0.1", server, tls=TlsPolicy(insecure=True))
        reading = asyncio.create_task(owner.run(lambda message: None))
        await owner.request(m.Guest(name=None))
        snapshot = await owner.request(m.CreateTable(settings=settings))
        table_id = snapshot.table.table_id
        await owner.request(m.Sit(table_id=table_id, seat=0))
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", insecure=True)
        seen = {}
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            app.screen.query_one("#server", Input).value = f"127.0.0.1:{server}"
            await pilot.click("#guest")
            await until(pilot, lambda: app.lobby is not None and table_id in app.lobby.tables)
            lobby = app.lobby

            def pick() -> None:
                rows = lobby.query_one("#tables", DataTable)
                rows.move_cursor(row=rows.get_row_index(str(table_id)))

            pick()
            await pilot.press("j")
            await until(
                pilot,
                lambda: isinstance(app.screen, TableScreen) and app.session.view.me is not None,
            )
            await until(pilot, lambda: "all ready (r)" in screen_text(app))
            seen["seated"] = screen_text(app)
            await pilot.press("c")
            await pilot.press(*"hello", "enter")
            await pilot.pause()
            await pilot.press("escape")  # closes the chat box, not the table
            await pilot.pause()
            seen["after chat"] = (type(app.screen), app.session.view.me)
            await pilot.press("escape")  # leaving the seat: asked first
            await until(pilot, lambda: "gives up your seat" in " ".join(screen_text(app).split()))
            seen["warned"] = (type(app.screen), screen_text(app))
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            pick()
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await until(pilot, lambda: "take a free seat" in screen_text(app))
            seen["watching"] = (app.session.view.me, screen_text(app))
        await owner.close()
        reading.cancel()
        return seen

    seen = asyncio.run(go())
    assert "all ready (r)" in seen["seated"]
    assert seen["after chat"] == (TableScreen, 1)
    shown, text = seen["warned"]
    assert shown is TableScreen and "gives up your seat" in " ".join(text.split())
    me, text = seen["watching"]
    assert me is None and "all ready (r)" not in text and "take a free seat" in text


def test_solo_asks_for_its_pace_unless_told(server: int, tmp_path: Path) -> None:
    """``gbmj solo`` without ``--timers`` asks (relaxed first); the choice is the solo
    table's timers, with a reserve."""
    from gbmj_tui.cli import parse_args
    from gbmj_tui.screens.dialogs import PaceDialog
    from gbmj_tui.solo import PACES

    assert parse_args(["solo", "--timers", "off"]).timers == "off"
    assert parse_args(["solo"]).timers is None
    with pytest.raises(SystemExit):
        parse_args(["solo", "--timers", "blitz"])

    async def go():
        solo = replace(_solo(server, tmp_path), pace=None)
        app = GbmjApp(solo=solo, config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PaceDialog))
            await until(pilot, lambda: "Relaxed" in screen_text(app))  # drawn
            asked = screen_text(app)
            await pilot.press("down", "enter")  # the second: standard
            await until(pilot, lambda: app.session.view is not None and app.session.view.playing)
            return asked, app.session.view.settings.timers

    asked, timers = asyncio.run(go())
    assert "How fast do you want to play?" in asked and "Relaxed" in asked
    assert timers == PACES["standard"] and timers.reserve == 60


@pytest.mark.slow
def test_a_front_door_client_resuming_a_seated_session_shows_the_table(
    server: int, tmp_path: Path
) -> None:
    """The SSH and web front doors start the client signed in (a session token): a
    player seated in a running match sees that table over the lobby."""

    async def first() -> str:
        app = GbmjApp(solo=_solo(server, tmp_path), config_path=tmp_path / "c.json")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(
                pilot,
                lambda: app.session.view is not None and len(app.session.view.hand) >= 13,
                30,
            )
            token = app.session.token
            app.session.token = None  # this client goes away without logging out
            app.session.conn._writer.transport.abort()
            return token

    async def door(token: str) -> tuple[type, bool, str]:
        app = GbmjApp(
            signed_in=(f"127.0.0.1:{server}", token),
            hosted=True,
            server=f"127.0.0.1:{server}",
            insecure=True,
            config_path=tmp_path / "c2.json",
            lang="en",
        )
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.pause()
            return type(app.screen), app.lobby in app.screen_stack, screen_text(app)

    token = asyncio.run(first())
    shown, lobby_below, text = asyncio.run(door(token))
    assert shown is TableScreen and lobby_below
    assert re.search("####x1[0-4]", text)
