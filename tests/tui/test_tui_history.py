"""History and replays with the real client against a real server (``gbmj-server`` in a
subprocess, a real SQLite file): the hand just played replayed from its result to the
same end as the live game, stepped and turned face up, exported to a file that
verifies; then the history from the lobby, a match's hands, and a hand replayed from
there. Without a server: a hand with claims, a kong, flowers and a win, replayed step by
step on the screen."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from live_harness import play_hand, until
from textual.app import App
from tui_harness import screen_text
from tui_sample import NAMES, bot_hand, hand_log

from gbmj.game.hand_state import HandState
from gbmj.replay import hand_from_log
from gbmj_tui import tools
from gbmj_tui.app import GbmjApp
from gbmj_tui.config import Address
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import Replied, Requested
from gbmj_tui.model import TableView
from gbmj_tui.replay import replay_hand
from gbmj_tui.screens.history import HistoryScreen, MatchScreen
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.replay import ReplayResultScreen, ReplayScreen
from gbmj_tui.screens.result import ResultScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.solo import Solo
from protocol import messages as m
from protocol.tls import fingerprint


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """The server (plain TCP) and the fingerprint of the certificate it signs with (made
    beside its database, as it prints it)."""
    where = tmp_path_factory.mktemp("srv")
    config = where / "server.toml"
    config.write_text("bot_delay = 0.0\nhand_pause = 5.0\n")
    proc, port = start_local_server(where / "gbmj.db", config)
    try:
        pem = (where / "tls_cert.pem").read_text().splitlines()[1:-1]
        yield port, fingerprint(base64.b64decode("".join(pem)))
    finally:
        proc.terminate()
        proc.wait(10)


def held(seat_view) -> list[int]:
    drawn = () if seat_view.shown_drawn is None else (seat_view.shown_drawn,)
    return sorted((*(seat_view.shown or ()), *drawn))


def assert_same_end(replayed: TableView, live: TableView) -> None:
    """The replay's last step is the live game's end: every hand, meld, discard and
    flower, the outcome and the points."""
    r, lr = replayed.result, live.result
    assert r is not None and lr is not None
    assert (r.outcome, r.winner, r.from_seat, r.win_tile) == (
        lr.outcome,
        lr.winner,
        lr.from_seat,
        lr.win_tile,
    )
    assert r.points == lr.points and r.fans == lr.fans
    for s in range(4):
        seat, live_seat = replayed.seats[s], live.seats[s]
        assert seat.name == live_seat.name
        assert held(seat) == sorted(lr.hands[s])
        assert seat.melds == lr.melds[s]
        assert seat.discards == live_seat.discards
        assert seat.flowers == live_seat.flowers
        assert seat.score == lr.points[s]


@pytest.fixture
def server(served: tuple[int, str]) -> int:
    return served[0]


@pytest.mark.slow
def test_the_hand_just_played_replays_to_the_same_end_and_the_history_finds_it(
    served: tuple[int, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, signing = served
    monkeypatch.chdir(tmp_path)  # the export writes to the current folder
    solo = Solo(Address("127.0.0.1", server), tmp_path / "solo-account.json")

    async def go():
        app = GbmjApp(solo=solo, config_path=tmp_path / "c.json", lang="en")
        shots: dict[str, str] = {}
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await until(pilot, lambda: app.session.view is not None and app.session.view.playing)
            await play_hand(app, pilot, {"claims": 0, "turns": 0})
            live = app.session.view
            assert live is not None and live.result is not None
            hand_id = live.result.hand_id
            assert hand_id is not None
            await pilot.pause()
            shots["result"] = screen_text(app)

            await pilot.press("v")  # the replay of the hand just played
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            replay_screen = app.screen
            await until(pilot, lambda: replay_screen.replay is not None)
            replay = replay_screen.replay
            me = live.me
            assert replay.viewer == me  # the player's own seat
            await pilot.pause()
            shots["start"] = screen_text(app)
            start = replay.view(0, face_up=False)
            assert [s.shown is not None for s in start.seats] == [s == me for s in range(4)]
            await pilot.press("right", "right")
            assert replay_screen.index == 2
            await pilot.press("left")
            assert replay_screen.index == 1
            await pilot.press("f")  # face up: every hand
            await pilot.pause()
            assert replay_screen.face_up
            shots["face up"] = screen_text(app)
            await pilot.press("end")  # the end: the result over the board
            await until(pilot, lambda: isinstance(app.screen, ReplayResultScreen))
            await pilot.pause()
            assert replay_screen.index == replay.last
            assert_same_end(replay.view(replay.last, face_up=True), live)
            assert_same_end(replay.view(replay.last, face_up=False), live)
            shots["end"] = screen_text(app)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is replay_screen)
            shots["end board"] = screen_text(app)
            await pilot.press("x")  # export the hand
            path = tmp_path / f"gbmj-hand-{hand_id}.json"
            await until(pilot, lambda: path.exists())
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))

            # leave the match (an escape: Esc twice) and find it in the history
            await until(pilot, lambda: app.session.view.playing)
            await pilot.press("escape")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            await pilot.press("h")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            history = app.screen
            await until(pilot, lambda: bool(history.matches))
            await pilot.pause()
            shots["history"] = screen_text(app)
            assert history.total == 1
            match = history.matches[0]
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, MatchScreen))
            match_screen = app.screen
            await until(pilot, lambda: match_screen.detail is not None)
            await pilot.pause()
            shots["match"] = screen_text(app)
            hands = match_screen.detail.hands
            assert hands[0].hand_id == hand_id
            await pilot.press("enter")  # the first hand, replayed from the history
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            again = app.screen
            await until(pilot, lambda: again.replay is not None)
            assert again.hand_id == hand_id
            await pilot.press("end")
            assert_same_end(again.replay.view(again.replay.last, face_up=True), live)
            for _ in range(4):
                await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        return live, match, hands, path, shots

    live, match, _, path, shots = asyncio.run(go())
    result = " ".join(shots["result"].split())
    assert "Wall verified" in result
    assert "Next hand in" in result  # the server's next_hand_ms, counted down
    assert "step 0 of" in shots["start"] and "as you saw it" in shots["start"]
    assert "face up" in shots["face up"]
    end = " ".join(shots["end"].split())
    assert "Wall verified" in end
    assert ("wins" in end) if live.result.outcome == "win" else ("Draw" in end)
    if live.result.outcome == "win":
        assert "Total" in shots["end"]
    assert "Back to the replay" in shots["end"]
    for seat in live.seats:  # every hand face up on the board at the end
        assert seat.name in shots["end board"]
    assert "x1" not in shots["end board"]
    me = live.seats[live.me].name
    assert me in match.players and match.hands >= 1 and match.rank is not None
    assert me in shots["history"] and "solo" in shots["history"]
    assert "Matches 1-1 of 1" in shots["history"]
    assert " won, " in shots["match"] or "Draw" in shots["match"]
    # The file verifies against the server's key; the client kept the commitment it was
    # shown before the deal (beside its settings), and the file's wall is that one.
    kept = tmp_path / "commitments"
    address = f"127.0.0.1:{server}"
    report = tools.verify_file(path, address, signing, tmp_path / "none", kept)
    assert report.ok, report.text()
    promised = next(c for c in report.checks if c.what == "promised")
    assert promised.ok and promised.detail.startswith("the commitment this client was shown")
    (exported,) = json.loads(path.read_text("utf-8"))["hands"]
    assert exported["hand_id"] == live.result.hand_id
    assert f"{address} - {match.match_id} 1 {live.commitment}" in kept.read_text("utf-8")
    # Had the server shown another commitment before the deal, the file's wall is not
    # the one this player was promised, signature or not.
    kept.write_text(f"{address} - {match.match_id} 1 {'0' * 64}\n", "utf-8")
    report = tools.verify_file(path, address, signing, tmp_path / "none", kept)
    assert not report.ok and report.verdict.startswith("NOT VERIFIED (1 mismatch): hand 1, ")
    assert "promised: this client was shown 0000000000000000… before the deal" in report.verdict


# -- without a server ---------------------------------------------------------------------


class LogHost(App[None]):
    """A bare app showing the replay screen of ``log``, answering its ``get_hand``."""

    def __init__(self, log: m.HandLog, me: str | None, lang: str = "en") -> None:
        super().__init__()
        self.log_to_send, self.me, self.lang = log, me, lang

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.log_to_send.hand_id, me=self.me, lang=self.lang))

    def on_requested(self, message: Requested) -> None:
        assert isinstance(message.request, m.GetHand)
        message.reply_to.post_message(Replied(message.request, self.log_to_send))


def test_the_steps_are_each_draw_discard_claim_and_kong() -> None:
    state = bot_hand()
    replay = replay_hand(hand_from_log(hand_log(state)), "bob", "en", 7)
    assert replay.viewer == 1
    lines = [replay.line(i, face_up=True).plain for i in range(len(replay.steps))]
    assert lines[0].startswith("East round, hand 1: the dealer is")
    said = " ".join(lines)
    for words in ("chowed", "punged", "added", "to a kong", "set aside flower", " won on "):
        assert words in said, words
    moves = sum(
        isinstance(e, m.Draw | m.Discard | m.Chow | m.Pung | m.AddedKong) for e in state.events
    )
    flowers = sum(isinstance(e, m.Flower) for e in state.events[8:])
    assert len(replay.steps) > moves // 2
    # a spectator's step says no tile of another's draw; face up it does
    draws = [i for i, line in enumerate(lines) if " drew " in line and "flower" not in line]
    other = next(i for i in draws if "bob" not in lines[i])
    assert "drew a tile" in replay.line(other, face_up=False).plain
    assert "drew a tile" not in lines[other]
    assert flowers >= 1


@pytest.mark.slow
def test_the_replay_screen_steps_turns_face_up_and_ends_with_the_fans_and_the_wall() -> None:
    state = bot_hand()
    log = hand_log(state)

    async def go():
        app = LogHost(log, me="bob")
        async with app.run_test(size=(100, 44)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen) and screen.replay is not None
            shots = {"start": screen_text(app)}
            await pilot.press("f")
            shots["face up"] = screen_text(app)
            await pilot.press("end")
            await until(pilot, lambda: isinstance(app.screen, ReplayResultScreen))
            assert isinstance(app.screen, ReplayResultScreen)
            shots["end"] = screen_text(app)
            await pilot.press("escape", "left", "right")  # back at the end: the result again
            await until(pilot, lambda: isinstance(app.screen, ReplayResultScreen))
            assert isinstance(app.screen, ReplayResultScreen)
            await pilot.press("escape", "home")
            shots["home"] = screen_text(app)
            return shots

    shots = asyncio.run(go())
    start, face_up = shots["start"], shots["face up"]
    assert "step 0 of" in start and "as you saw it" in start
    assert start.count("〓〓x1") == 3  # the other three hands face down
    assert face_up.count("〓〓x1") == 0 and "face up" in face_up
    end = " ".join(shots["end"].split())
    assert (
        "wins" in end and "Total" in end and "Wall verified" in end and "Back to the replay" in end
    )
    for name in NAMES:
        assert name in end
    assert "step 0 of" in shots["home"]


def test_a_log_the_rules_refuse_is_said_and_nothing_is_shown() -> None:
    log = hand_log(bot_hand())
    broken = replace(log, actions=(log.actions[0], *log.actions))  # the first action twice

    async def go():
        app = LogHost(broken, me="bob")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            return app.screen.replay, screen_text(app)

    replay, text = asyncio.run(go())
    assert replay is None
    assert "does not replay with the rules" in " ".join(text.split())
    assert "Next step" not in text  # no step keys without a replay


def test_a_hand_ended_by_an_escape_replays_to_the_escape() -> None:
    full = bot_hand()
    state = HandState(full.wall)
    for seat, action in full.log[:20]:
        assert action is not None
        state.apply(seat, action)
    state.escape(2)
    replay = replay_hand(hand_from_log(hand_log(state, escape=2)), "alice", "en", 7)
    last = replay.view(replay.last, face_up=False)
    assert last.result is not None and last.result.escaper == 2
    assert replay.line(replay.last, face_up=False).plain.endswith("left the match (an escape)")
    assert [s.score for s in last.seats] == list(state.result.points)
