"""The tournaments screen against a real server (``gbmj-server`` in a subprocess, a real
file): a player finds the open tournament from the lobby (``t``), enters it (``e``); the
host starts it; the server brings the player to their table, the session is played on
auto-play, and the screen shows the final standings and the session's table."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from live_harness import until
from textual.widgets import DataTable, Input
from tui_harness import OfflineApp, screen_text, terminal_text
from tui_sample import sample_view

from gbmj_server import admin_socket
from gbmj_server.storage import Storage, hash_password
from gbmj_tui.app import GbmjApp
from gbmj_tui.i18n import tr
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import Replied
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen, StandingsScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.screens.tournaments import TournamentDialog, TournamentsScreen
from protocol import messages as m
from protocol.vocabulary import TournamentState


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    db = tmp_path / "srv" / "gbmj.db"
    config = tmp_path / "server.toml"
    config.write_text("bot_delay = 0.0\nhand_pause = 0.5\n")
    proc, port = start_local_server(db, config)
    try:
        yield port, db
    finally:
        proc.terminate()
        proc.wait(10)


def _admin(db: Path, **request: object) -> str:
    for _ in range(100):  # the admin socket opens a moment after the port
        reply = admin_socket.call(db, {"command": "tournament", **request})
        if reply is not None:
            assert reply["ok"], reply
            return str(reply["message"])
        time.sleep(0.05)
    raise AssertionError("no admin socket")


@pytest.mark.slow
def test_enter_a_tournament_play_its_session_see_the_standings(
    server: tuple[int, Path], tmp_path: Path
) -> None:
    port, db = server
    _admin(db, action="create", name="Thursday club", sessions=1, hands=1, grace_seconds=1,
           pause_seconds=30)  # fmt: skip
    with Storage(db) as store:  # three entrants who will not come: bots stand in
        for name in ("absent1", "absent2", "absent3"):
            account = store.create_account(name, hash_password("pw-absent"))
            store.enter_tournament(1, account.id, name)

    async def go() -> tuple[str, str, str]:
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            screen = app.screen
            screen.query_one("#server", Input).value = f"127.0.0.1:{port}"
            screen.query_one("#name", Input).value = "dora"
            screen.query_one("#password", Input).value = "dora-password"
            screen.query_one("#insecure").value = True
            await pilot.click("#register")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("t")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            await until(pilot, lambda: "Thursday club" in screen_text(app))
            listed = screen_text(app)
            await pilot.press("e")
            await until(pilot, lambda: "You are entered" in screen_text(app))
            await until(pilot, lambda: "✓" in screen_text(app))
            await asyncio.to_thread(_admin, db, action="start", id=1)
            # The server seats the session and brings the player to the table.
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await until(pilot, lambda: app.session.view is not None and app.session.view.playing)
            await pilot.press("a")  # auto-play: the bots play the player's hand
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            # the hand's result, then the match's standings
            while isinstance(app.screen, ResultScreen | StandingsScreen):
                await pilot.press("enter")
                await pilot.pause()
            await until(pilot, lambda: isinstance(app.screen, TableScreen | LobbyScreen))
            if isinstance(app.screen, TableScreen):
                await pilot.press("escape", "escape")  # leaving the seat asks first
                await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("t")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            await until(pilot, lambda: "finished" in screen_text(app))
            app.screen.query_one("#t-list", DataTable).focus()
            await pilot.press("enter")  # show the selected tournament
            await until(pilot, lambda: "Your seat in session 1" in screen_text(app))
            return listed, screen_text(app), app.screen.query_one("#t-tables", DataTable)

    listed, final, tables = asyncio.run(go())
    assert "registration open" in listed and "Thursday club" in listed
    assert "Thursday club: finished, session 1 of 1" in final
    for name in ("dora", "absent1", "absent2", "absent3"):
        assert name in final
    assert tables.row_count == 1
    assert "absent1 (absent)" in final and "dora (absent)" not in final
    assert "✓" in final  # entered, also once finished


@pytest.mark.slow
def test_a_player_the_host_allows_creates_and_closes_a_tournament(
    server: tuple[int, Path], tmp_path: Path
) -> None:
    port, db = server

    async def go() -> tuple[str, str, str]:
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            screen = app.screen
            screen.query_one("#server", Input).value = f"127.0.0.1:{port}"
            screen.query_one("#name", Input).value = "olga"
            screen.query_one("#password", Input).value = "olga-password"
            screen.query_one("#insecure").value = True
            await pilot.click("#register")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("t")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, TournamentDialog))
            app.screen.query_one("#tn-name", Input).value = "Olga's cup"
            app.screen.query_one("#tn-sessions", Input).value = "3"
            app.screen.query_one("#tn-name", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            await until(pilot, lambda: "not allowed" in screen_text(app))
            refused = screen_text(app)
            with Storage(db) as store:  # the host: admin tournament allow olga
                account = store.account_by_name("olga")
                assert account is not None
                store.set_organiser(account.id, True)
            await pilot.press("c")  # a duplicate session, on her own scale
            await until(pilot, lambda: isinstance(app.screen, TournamentDialog))
            app.screen.query_one("#tn-name", Input).value = "Olga's cup"
            app.screen.query_one("#tn-sessions", Input).value = "1"
            await pilot.click("#tn-duplicate")
            app.screen.query_one("#tn-scale", Input).value = "10,20,40"
            app.screen.query_one("#tn-name", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: "Olga's cup: registration open" in screen_text(app))
            await until(pilot, lambda: "at 10 20 40 points" in screen_text(app))
            created = screen_text(app)
            app.screen.query_one("#t-list", DataTable).focus()
            await pilot.press("o")
            await until(pilot, lambda: "registration closed" in screen_text(app))
            return refused, created, screen_text(app)

    refused, created, closed = asyncio.run(go())
    assert "organise" in refused
    assert "registration open, sessions: 1" in created and "olga" in created
    assert "Duplicate: the score counts the steps reached, at 10 20 40 points" in created
    assert "Olga's cup" in closed


def _club_night() -> tuple[m.TournamentList, m.TournamentDetail]:
    """A finished one-session tournament of eight: two tables."""
    names = ("drv", *(f"club{n}" for n in range(1, 8)))
    info = m.TournamentInfo(
        tournament_id=1, name="Club night", organiser="host",
        state=TournamentState.FINISHED, sessions=1, session=1, hands=2, minutes=30,
        entrants=8, entered=True,
    )  # fmt: skip
    points = (48, 24, 12, 0)
    lines = tuple(
        m.TournamentLine(
            rank=n + 1,
            name=name,
            table_points=points[n // 2],
            score=100 - 20 * n,
            places=tuple(int(p == n // 2) for p in range(4)),
            best=100 - 20 * n,
            sessions=1,
            dropped=False,
        )
        for n, name in enumerate(names)
    )
    tables = tuple(
        m.TournamentTable(
            session=1,
            number=t + 1,
            players=names[t * 4 : t * 4 + 4],
            table_id=t + 1,
            match_id=t + 1,
            scores=(-101, 275, -87, -87) if t else (0, 0, 0, 0),
            table_points=(0, 48, 18, 18) if t else (21, 21, 21, 21),
        )
        for t in range(2)
    )
    detail = m.TournamentDetail(tournament=info, standings=lines, session=1, tables=tables)
    return m.TournamentList(tournaments=(info,)), detail


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_small_terminal_shows_the_standings_and_the_screens_own_keys(lang: str) -> None:
    """At 80x24 the eight players' standings, both tables and the hint fit, and the key
    bar offers the tournaments' keys (sign up, withdraw), not the lobby's beneath."""
    listed, detail = _club_night()

    async def go() -> str:
        app = OfflineApp(sample_view(), lang=lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = TournamentsScreen(lang, "drv")
            await app.push_screen(screen)
            screen.post_message(Replied(m.ListTournaments(), listed))
            screen.post_message(Replied(m.GetTournament(tournament_id=1), detail))
            await until(pilot, lambda: "club7" in terminal_text(app))
            await pilot.pause()
            return terminal_text(app)

    text = asyncio.run(go())
    for name in ("drv", *(f"club{n}" for n in range(1, 8))):
        assert re.search(rf"\d\s+{name}\s+", text), name  # its standings line
    table_2 = r"^\W*2\s+club4\s+club5\s+club6\s+club7\s+-101/275/-87/-87\s+0/4/1.50/1.50\b"
    assert re.search(table_2, text, re.M)  # the whole line, not cut at the edge
    hint = "Enter: show   organisers: c new, o registration, s start"
    for words in ("Previous session", "Refresh", hint):
        assert tr(words, lang) in text, words
    bar = text.strip().splitlines()[-2:]  # the key bar's lines
    for words in ("Sign up", "Withdraw"):  # finished: it takes no entries
        assert all(tr(words, lang) not in line for line in bar), words
    assert tr("Change password", lang) not in text  # the lobby's key bar is covered
    assert re.search(r"Club night\s+✓", text)  # entered: in sight, not cut at the edge


@pytest.mark.slow
def test_a_duplicate_tournament_says_its_scale() -> None:
    """docs/rules.md §2.14: the standings say how a duplicate field is scored."""
    listed, detail = _club_night()

    async def shown(scale: tuple[int, ...] | None, lang: str = "en") -> str:
        app = OfflineApp(sample_view(), lang=lang)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            screen = TournamentsScreen(lang, "drv")
            await app.push_screen(screen)
            screen.post_message(Replied(m.ListTournaments(), listed))
            screen.post_message(
                Replied(m.GetTournament(tournament_id=1), replace(detail, scale=scale))
            )
            await until(pilot, lambda: "club7" in terminal_text(app))
            await pilot.pause(0.1)
            return " ".join(terminal_text(app).split())

    steps = asyncio.run(shown((10, 20, 40)))
    assert "Duplicate: the score counts the steps reached, at 10 20 40 points" in steps
    raw = asyncio.run(shown(()))
    assert "Duplicate: the score is the difference against the field itself" in raw
    assert "复式" in asyncio.run(shown((), "zh"))
    assert "Duplicate" not in asyncio.run(shown(None))  # not a duplicate tournament


def test_the_players_own_tournament_is_shown_at_once() -> None:
    """Opening the screen shows the tournament the player entered (not only the list):
    its detail is asked for and the cursor is on its row; later lists keep the choice."""
    listed, _ = _club_night()
    other = replace(listed.tournaments[0], tournament_id=2, name="Other", entered=False)
    two = m.TournamentList(tournaments=(other, listed.tournaments[0]))

    async def go() -> tuple[list[m.Message], int]:
        app = OfflineApp(sample_view(), lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            screen = TournamentsScreen("en", "drv")
            await app.push_screen(screen)
            app.outbox.clear()
            screen.post_message(Replied(m.ListTournaments(), two))
            await until(pilot, lambda: any(isinstance(r, m.GetTournament) for r in app.outbox))
            screen.post_message(Replied(m.ListTournaments(), two))
            await pilot.pause()
            return app.outbox, screen.query_one("#t-list", DataTable).cursor_coordinate.row

    outbox, row = asyncio.run(go())
    asked = [r for r in outbox if isinstance(r, m.GetTournament)]
    assert [r.tournament_id for r in asked] == [1]
    assert row == 1


@pytest.mark.slow
def test_an_organiser_asks_for_a_duplicate_session_on_a_scale() -> None:
    """docs/rules.md §2.14: the organiser's dialog offers duplicate play and its scale (a
    duplicate session: one session); a scale that is none is said in the dialog and not
    sent; without duplicate no scale is sent."""

    async def go() -> tuple[list[m.Message], str, str]:
        app = OfflineApp(sample_view(), lang="en")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = TournamentsScreen("en", "drv")
            await app.push_screen(screen)
            app.outbox.clear()
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, TournamentDialog))
            dialog = app.screen
            shown = terminal_text(app)
            dialog.query_one("#tn-name", Input).value = "Thursday duplicate"
            dialog.query_one("#tn-sessions", Input).value = "1"
            dialog.query_one("#tn-hands", Input).value = "8"
            await pilot.click("#tn-duplicate")
            dialog.query_one("#tn-scale", Input).value = "40,20"
            dialog.query_one("#tn-name", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: "rising thresholds" in terminal_text(app))
            refused = terminal_text(app)
            assert app.screen is dialog  # nothing sent
            assert not any(isinstance(r, m.CreateTournament) for r in app.outbox)
            dialog.query_one("#tn-scale", Input).value = "10,20,40"
            dialog.query_one("#tn-name", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            await pilot.press("c")  # another, not duplicate: no scale goes with it
            await until(pilot, lambda: isinstance(app.screen, TournamentDialog))
            app.screen.query_one("#tn-name", Input).value = "Club night"
            app.screen.query_one("#tn-scale", Input).value = "raw"
            app.screen.query_one("#tn-name", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, TournamentsScreen))
            return list(app.outbox), shown, refused

    outbox, shown, refused = asyncio.run(go())
    assert "Duplicate" in shown and "Scale" in shown and "steps" in shown
    assert "Create" in shown  # the whole dialog in sight at 80x24
    assert "A scale is steps, raw or rising thresholds" in " ".join(refused.split())
    duplicate, plain = [r for r in outbox if isinstance(r, m.CreateTournament)]
    assert (duplicate.duplicate, duplicate.scale, duplicate.sessions, duplicate.hands) == (
        True,
        "10,20,40",
        1,
        8,
    )
    assert (plain.duplicate, plain.scale) == (None, None)


@pytest.mark.slow
def test_signing_up_and_withdrawing_are_offered_while_it_takes_entries() -> None:
    """The key bar offers ``e`` on an open tournament the player has not entered, ``w``
    on one they have, neither once registration has closed."""
    listed, _ = _club_night()
    info = listed.tournaments[0]

    async def keys(t: m.TournamentInfo) -> str:
        app = OfflineApp(sample_view(), lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            screen = TournamentsScreen("en", "drv")
            await app.push_screen(screen)
            screen.post_message(Replied(m.ListTournaments(), m.TournamentList(tournaments=(t,))))
            await until(pilot, lambda: t.name in terminal_text(app))
            await pilot.pause()
            return terminal_text(app).splitlines()[-1]

    opened = replace(info, state=TournamentState.OPEN, session=0)
    assert "Sign up" in asyncio.run(keys(replace(opened, entered=False)))
    assert "Withdraw" not in asyncio.run(keys(replace(opened, entered=False)))
    assert "Withdraw" in asyncio.run(keys(opened))
    assert "Sign up" not in asyncio.run(keys(opened))
    closed = asyncio.run(keys(replace(opened, state=TournamentState.CLOSED)))
    assert "Sign up" not in closed and "Withdraw" not in closed and "Refresh" in closed
