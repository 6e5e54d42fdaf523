"""Another person's text is plain text in every screen that shows it.

Names, table names, owners, chat, standings, the leaderboard, key comments, notices
from the host: each written as Rich markup would be (``[/]`` kills a markup parser,
``[blink red]`` restyles, ``[@click=app.quit]`` is an action) must show as the very
characters sent, and the app must stay alive. The protocol refuses control characters
and newlines, so these are what it admits.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from tui_harness import OfflineApp, terminal_text
from tui_sample import claim_prompt, sample_result, sample_view

from gbmj_tui.messages import LobbyChanged, Refused, Replied, Told
from gbmj_tui.model import PromptView
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.dialogs import PasswordPrompt
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.result import ResultScreen, StandingsScreen
from gbmj_tui.screens.seats import SeatsDialog
from gbmj_tui.screens.shop import LeaderboardScreen
from gbmj_tui.screens.ssh_keys import SshKeysScreen
from gbmj_tui.screens.tournaments import TournamentsScreen
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES
from protocol.tiles import Tile as T
from protocol.vocabulary import TimerClass

HOSTILE = ("[/]", "x[/]", "[blink red]B", "[@click=app.quit]Q")
TABLE = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.TableList)).tables[0]
CONFIG_NAME = "c.json"


def _hostile_view():
    view = claim_prompt(sample_view())
    for seat, name in enumerate(HOSTILE):
        view = view.with_seat(seat, name=name)
    view = replace(view, table_name="[b]t[/b][/]", owner=HOSTILE[3], viewer=HOSTILE[0])
    prompt = view.prompt
    assert isinstance(prompt, PromptView)
    return view


def _run(lang, steps):
    """Run the offline app at a hostile table, do ``steps(app)`` (async), return the
    terminal's text after each."""

    async def go():
        app = OfflineApp(_hostile_view(), lang=lang)
        shown = []
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause()
            shown.append(terminal_text(app))
            for step in steps:
                await step(app)
                await pilot.pause()
                shown.append(terminal_text(app))
            assert app.is_running
        return shown

    return asyncio.run(go())


def _assert_literal(text: str, *strings: str) -> None:
    flat = " ".join(text.split())
    for s in strings:
        assert s in flat, (s, text)


@pytest.mark.slow
def test_the_table_shows_hostile_names_chat_and_actions_as_they_are() -> None:
    async def chat(app):
        app.push(m.Chat(channel="table", table_id=0, sender=HOSTILE[2], text="[/][red]hi"))

    async def discard(app):
        app.push(m.Event(table_id=0, seq=99, event=m.Discard(seat=1, tile=T.S8)))

    for lang in ("zh", "en"):
        table, chatted, discarded = _run(lang, [chat, discard])
        _assert_literal(table, *HOSTILE, "[b]t[/b][/]")  # seats, pools, status line
        _assert_literal(chatted, "[blink red]B: [/][red]hi")
        _assert_literal(discarded, "x[/]")  # the action line names the discarder


def test_the_lobby_shows_hostile_tables_owners_names_and_chat_as_they_are() -> None:
    async def lobby(app):
        screen = LobbyScreen(
            app.lang, m.Profile(name="[/]", guest=True, coins=0, rating=0, level=1)
        )
        await app.push_screen(screen)
        settings = replace(TABLE.settings, name="[/]x[blink]")
        info = replace(TABLE, table_id=3, owner="[@click=app.quit]Q", settings=settings)
        screen.apply(LobbyChanged((info,), reset=True, total=1, online=1))
        screen.add_chat("x[/]", "[@click=app.quit]quit")

    _, shown = _run("en", [lobby])
    _assert_literal(shown, "[/]x[blink]", "[@click=app.quit]Q", "x[/]: [@click=app.quit]quit")
    assert "[/] (guest)" in shown


@pytest.mark.slow
def test_results_standings_and_the_leaderboard_show_hostile_names() -> None:
    async def result(app):
        view = sample_result(_hostile_view())
        await app.push_screen(ResultScreen(view, app.tile_style, app.lang))

    async def standings(app):
        app.pop_screen()
        result = m.MatchResult(
            table_id=7,
            reason="finished",
            standings=tuple(
                m.Standing(name=name, bot=False, rank=i + 1, points=10 - i, coins=0)
                for i, name in enumerate(HOSTILE)
            ),
        )
        await app.push_screen(StandingsScreen(result, app.lang))

    async def leaders(app):
        app.pop_screen()
        board = LeaderboardScreen(app.lang, me=HOSTILE[0])
        await app.push_screen(board)
        entries = tuple(
            m.LeaderEntry(rank=i + 1, name=name, level=1, rating=0)
            for i, name in enumerate(HOSTILE)
        )
        board.post_message(Replied(m.GetLeaderboard(), m.Leaderboard(entries=entries)))

    _, after_result, after_standings, after_leaders = _run("zh", [result, standings, leaders])
    for text in (after_result, after_standings, after_leaders):
        _assert_literal(text, *HOSTILE)


@pytest.mark.slow
def test_dialogs_toasts_and_errors_show_hostile_text_as_it_is() -> None:
    async def password(app):
        await app.push_screen(PasswordPrompt("[/][blink]", app.lang))

    async def seats(app):
        app.pop_screen()
        await app.push_screen(SeatsDialog(_hostile_view(), app.lang, owner=True))

    async def keys(app):
        app.pop_screen()
        screen = SshKeysScreen(app.lang)
        await app.push_screen(screen)
        key = m.SshKeyInfo(fingerprint="SHA256:x", algorithm="ssh-ed25519", comment="[/]key")
        screen.post_message(Replied(m.ListSshKeys(), m.SshKeys(keys=(key,))))

    async def toast(app):
        app.pop_screen()
        app.post_message(Told("from the host: [/][@click=app.quit]bye"))
        app.post_message(Refused(m.Ready(table_id=1, ready=True), "x", "[/]refused"))

    async def connect(app):
        screen = ConnectScreen(app.config, app.lang)
        await app.push_screen(screen)
        screen.show_error("[/] cannot connect [blink]")

    shown = _run("en", [password, seats, keys, toast, connect])
    _assert_literal(shown[1], "[/][blink] *")
    _assert_literal(shown[2], *HOSTILE)
    _assert_literal(shown[3], "[/]key")
    _assert_literal(shown[4], "[/][@click=app.quit]bye", "[/]refused")
    _assert_literal(shown[5], "[/] cannot connect [blink]")


def test_a_hostile_discarder_on_the_claim_bar_and_countdown() -> None:
    view = _hostile_view()
    prompt = view.prompt
    assert prompt is not None and prompt.timer == TimerClass.CLAIM_WINDOW
    (shown,) = _run("en", [])
    # the claim bar names the discarder (seat 3) and the countdown the seat it waits for
    _assert_literal(shown, "[@click=app.quit]Q discarded", "claim: West [/]")


def test_the_hosts_notices_and_the_mute_dialog_show_hostile_text_as_it_is() -> None:
    """The host's words in an announcement, a mute from the host, and a ban that ends the
    session: plain text, on a toast and on the connect screen; names in the mute dialog
    too."""

    async def announce(app):
        app.push(m.Notice(code="announcement", message="[/][@click=app.quit]closing at 9"))
        app.push(m.Notice(code="muted", message="[blink]x"))

    async def mute(app):
        app.table_screen.action_mute()

    async def banned(app):
        app.pop_screen()
        app.push(m.Notice(code="banned", message="[/]"))

    shown = _run("en", [announce, mute, banned])
    _assert_literal(shown[1], "from the host: [/][@click=app.quit]closing at 9")
    _assert_literal(shown[1], "the host muted you: your chat is not sent")
    _assert_literal(shown[2], HOSTILE[2], HOSTILE[3])  # not oneself (0), not the bot (1)
    _assert_literal(shown[3], "the host banned this account")


@pytest.mark.slow
def test_the_tournaments_screen_shows_hostile_names_as_they_are() -> None:
    async def tournaments(app):
        screen = TournamentsScreen(app.lang, me=HOSTILE[0])
        await app.push_screen(screen)
        info = m.TournamentInfo(
            tournament_id=1,
            name="[blink]club",
            organiser=HOSTILE[3],
            state="running",
            sessions=2,
            session=1,
            hands=4,
            minutes=60,
            entrants=4,
            entered=True,
        )
        lines = tuple(
            m.TournamentLine(
                rank=i + 1,
                name=name,
                table_points=48 - 12 * i,
                score=10 - i,
                places=(1, 0, 0, 0),
                best=10 - i,
                sessions=1,
                dropped=False,
            )
            for i, name in enumerate(HOSTILE)
        )
        table = m.TournamentTable(session=1, number=1, players=HOSTILE)
        detail = m.TournamentDetail(tournament=info, standings=lines, session=1, tables=(table,))
        screen.post_message(Replied(m.ListTournaments(), m.TournamentList(tournaments=(info,))))
        screen.post_message(Replied(m.GetTournament(tournament_id=1), detail))

    (_, shown) = _run("en", [tournaments])
    _assert_literal(shown, "[blink]club", *HOSTILE)
    assert "Your seat in session 1: table 1, East" in shown
