"""A player's own moderation with the real client against a real server (``gbmj-server``
in a subprocess, a real SQLite file): changing one's password (the new session's token
kept, the connection dropped and resumed with it, the new password signing in and the
old one not), and muting another player for oneself in the lobby's chat and, as a
table's owner, at the table from the seat's panel."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_harness import until
from textual.widgets import Input
from tui_harness import screen_text, widget_text

from gbmj_tui.app import GbmjApp
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import Link, Requested
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.moderation import MuteDialog, PasswordDialog
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.widgets import SeatPanel
from protocol import messages as m


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where = tmp_path_factory.mktemp("srv")
    proc, port = start_local_server(where / "gbmj.db")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


def app_for(tmp_path: Path, name: str) -> GbmjApp:
    return GbmjApp(config_path=tmp_path / f"{name}.json", lang="en", insecure=True)


def toasts(app: GbmjApp) -> str:
    text = " ".join(widget_text(t).replace("▌", " ") for t in app.screen.query("Toast"))
    return " ".join(text.split())


def shown(app: GbmjApp, selector: str) -> str:
    """What one widget of the app's screen shows, its lines joined."""
    return " ".join(widget_text(app.screen.query_one(selector)).split())


@pytest.mark.slow
def test_changing_the_password_keeps_the_session_and_the_new_password_signs_in(
    address: str, tmp_path: Path
) -> None:
    async def go():
        app = app_for(tmp_path, "pat")
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            assert await app.sign_in("register", address, "pat", "first-pw") is None
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            old_token = app.session.token
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, PasswordDialog))
            dialog = app.screen
            for field, value in (("old", "first-pw"), ("new", "second-pw"), ("again", "typo")):
                dialog.query_one(
                    f"#{'new-again' if field == 'again' else field + '-password'}", Input
                ).value = value
            dialog.query_one("#new-again", Input).focus()
            await pilot.press("enter")
            await pilot.pause()
            differ = shown(app, "#account-note")
            dialog.query_one("#old-password", Input).value = "not-the-pw"
            dialog.query_one("#new-again", Input).value = "second-pw"
            await pilot.press("enter")
            await until(pilot, lambda: "wrong" in shown(app, "#account-note"))
            wrong = shown(app, "#account-note")
            assert app.session.token == old_token
            dialog.query_one("#old-password", Input).value = "first-pw"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            new_token = app.session.token
            await until(pilot, lambda: "Password changed" in toasts(app))
            toast = toasts(app)
            # the connection drops: the session resumes with the new token
            conn = app.session.conn
            conn._writer.transport.abort()
            await until(pilot, lambda: app.session.conn is not conn)
            await until(pilot, lambda: app.session.link is Link.ONLINE)
            resumed = app.session.token
        return old_token, new_token, resumed, differ, wrong, toast

    old_token, new_token, resumed, differ, wrong, toast = asyncio.run(go())
    assert "the two new passwords differ" in differ
    assert "the old password is wrong" in wrong
    assert new_token and new_token != old_token and resumed == new_token
    assert "Password changed: your other sessions are signed out" in toast

    async def sign(password: str) -> str | None:
        app = app_for(tmp_path, "pat-again")
        async with app.run_test(size=(100, 32)):
            return await app.sign_in("login", address, "pat", password)

    assert asyncio.run(sign("second-pw")) is None
    assert asyncio.run(sign("first-pw")) == "wrong name or password"


@pytest.mark.slow
def test_a_guest_is_offered_no_password_change(address: str, tmp_path: Path) -> None:
    async def go():
        app = app_for(tmp_path, "guest")
        async with app.run_test(size=(120, 32)) as pilot:
            assert await app.sign_in("guest", address, "", "") is None
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.pause()
            shown = screen_text(app)
            await pilot.press("p")
            await pilot.pause()
            return shown, type(app.screen)

    shown, screen = asyncio.run(go())
    assert "Change password" not in shown and screen is LobbyScreen


@pytest.mark.slow
def test_a_mute_stops_the_players_lines_in_the_lobby_and_at_the_owners_table(
    address: str, tmp_path: Path
) -> None:
    async def say(app: GbmjApp, text: str, table_id: int | None = None) -> None:
        channel = "lobby" if table_id is None else "table"
        app.post_message(Requested(m.ChatSend(channel=channel, table_id=table_id, text=text)))

    async def go():
        olga, vic, wes = (app_for(tmp_path, n) for n in ("olga", "vic", "wes"))
        async with (
            olga.run_test(size=(100, 32)) as pilot,
            vic.run_test(size=(100, 32)) as vpilot,
            wes.run_test(size=(100, 32)) as wpilot,
        ):
            for app, name, p in ((olga, "olga", pilot), (vic, "vic", vpilot), (wes, "wes", wpilot)):
                assert await app.sign_in("register", address, name, f"{name}-pw1") is None
                await until(p, lambda a=app: isinstance(a.screen, LobbyScreen))
            await say(vic, "hello all")
            await until(pilot, lambda: "hello all" in shown(olga, "#chat-log"))
            await pilot.press("m")  # mute someone from the lobby's chat
            await until(pilot, lambda: isinstance(olga.screen, MuteDialog))
            assert olga.screen.names == ("vic",)
            await pilot.press("m")
            await until(pilot, lambda: "vic is muted" in shown(olga, "#mute-note"))
            await pilot.press("escape")
            await say(vic, "can you hear me")
            await say(wes, "wes here")
            await until(pilot, lambda: "wes here" in shown(olga, "#chat-log"))
            await until(wpilot, lambda: "can you hear me" in shown(wes, "#chat-log"))
            lobby_heard = shown(olga, "#chat-log")

            # olga's table: vic sits; olga mutes him there, from his seat's panel
            timers = m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5)
            settings = m.TableSettings(
                name="olga's", stake=0, timers=timers, rounds=1, bots_allowed=True
            )
            olga.post_message(Requested(m.CreateTable(settings=settings)))
            await until(pilot, lambda: isinstance(olga.screen, TableScreen))
            table_id = olga.session.view.table_id
            for app, p, seat in ((vic, vpilot, 2), (wes, wpilot, 3)):
                app.post_message(Requested(m.JoinTable(table_id=table_id)))
                await until(p, lambda a=app: isinstance(a.screen, TableScreen))
                app.post_message(Requested(m.Sit(table_id=table_id, seat=seat)))
            await until(pilot, lambda: olga.session.view.seats[2].name == "vic")
            await until(pilot, lambda: olga.session.view.seats[3].name == "wes")
            await pilot.pause()
            panel = next(p for p in olga.screen.query(SeatPanel) if p.seat and p.seat.name == "vic")
            await pilot.click(panel)
            await until(pilot, lambda: isinstance(olga.screen, MuteDialog))
            dialog = olga.screen
            picked = dialog.picked
            await pilot.press("t")  # the owner mutes him at the table
            await until(pilot, lambda: "vic is muted" in shown(olga, "#mute-note"))
            await pilot.press("escape")
            await say(vic, "table line", table_id)
            await say(olga, "owner line", table_id)
            await until(wpilot, lambda: "owner line" in shown(wes, "#table-chat"))
            await pilot.pause()
            table_heard = shown(wes, "#table-chat")
        return lobby_heard, picked, table_heard

    lobby_heard, picked, table_heard = asyncio.run(go())
    assert "hello all" in lobby_heard and "wes here" in lobby_heard
    assert "can you hear me" not in lobby_heard  # muted for olga, not for wes
    assert picked == "vic"  # the seat's panel picked its player
    assert "owner line" in table_heard and "table line" not in table_heard
