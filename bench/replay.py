"""What a hand's replay costs the client: from the hand's log as the server sends it
(``hand_log``) to every step of the replay screen (the rules' replay of the log, then
each event folded for the four seats and a spectator), and one step drawn on screen.

    uv run python bench/replay.py [--hands 20] [--steps 100]

Hands are played by normal bots from seeds ``bench-0``, ``bench-1``...; prints one
figure a line (``replay build ms p50 / p99``, ``steps a hand mean``, ``replay step
update ms p50``: the screen's own work, ``replay step redraw ms p50 / p99``: with the
pilot's wait for the repaint); asserts nothing. The redraw runs the real replay screen
headless (Textual's pilot) at 100x32.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from textual.app import App

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand
from gbmj.game.hand_state import HandState
from gbmj.replay import hand_from_log
from gbmj_tui.replay import replay_hand
from gbmj_tui.screens.replay import ReplayScreen
from protocol import messages as m
from protocol.tiles import Tile

NAMES = ("p0", "p1", "p2", "p3")


def hand_log(state: HandState, hand_id: int) -> m.HandLog:
    """The hand as ``get_hand`` answers it."""
    w = state.wall
    assert state.result is not None
    actions = tuple(
        m.LoggedAction(seat=seat, kind=a.kind, tile=a.tile, ms=100 * i)
        for i, (seat, a) in enumerate(state.log)
        if a is not None
    )
    return m.HandLog(
        hand_id=hand_id, match_id=1, number=1, round_number=1, hand_number=1,
        prevailing_wind=Tile.E, dealer=state.dealer, dice=w.dice, wall_order=tuple(w.order),
        salt=w.salt.hex(), commitment=w.commitment, players=NAMES, actions=actions,
        escape=None, points=tuple(state.result.points), coins=None,
    )  # fmt: skip


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


class Host(App[None]):
    def __init__(self, log: m.HandLog) -> None:
        super().__init__()
        self.screen_ = ReplayScreen(log.hand_id, me="p0", lang="en")
        self.log_ = log

    def on_mount(self) -> None:
        self.push_screen(self.screen_)

    def on_requested(self, message: object) -> None:
        pass  # the log is handed over below


async def redraws(log: m.HandLog, steps: int) -> tuple[list[float], list[float]]:
    """Per step: the screen's own update, and that with the pilot's wait for the repaint."""
    app = Host(log)
    times: list[float] = []
    updates: list[float] = []
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen = app.screen_
        screen.load(log)
        await pilot.pause()
        assert screen.replay is not None
        for i in range(min(steps, screen.replay.last - 1)):
            start = time.perf_counter()
            screen.index = i + 1
            screen.draw()
            updates.append((time.perf_counter() - start) * 1000)
            await pilot.pause()  # the message queue drains and the screen repaints
            times.append((time.perf_counter() - start) * 1000)
    return times, updates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    logs = []
    for i in range(args.hands):
        bots = [make_bot("normal", 7 + s) for s in range(4)]
        logs.append(hand_log(play_hand(bots, f"bench-{i}".encode()), i + 1))
    builds, steps = [], []
    for log in logs:
        start = time.perf_counter()
        replay = replay_hand(hand_from_log(log), "p0", "en", log.match_id)
        builds.append((time.perf_counter() - start) * 1000)
        steps.append(len(replay.steps))
    print(f"hands: {len(logs)}")
    print(f"replay build ms p50: {statistics.median(builds):.1f}")
    print(f"replay build ms p99: {percentile(builds, 0.99):.1f}")
    print(f"steps a hand mean: {statistics.mean(steps):.0f}")
    drawn, updates = asyncio.run(redraws(logs[0], args.steps))
    print(f"replay step update ms p50: {statistics.median(updates):.1f}")
    print(f"replay step redraw ms p50: {statistics.median(drawn):.1f}")
    print(f"replay step redraw ms p99: {percentile(drawn, 0.99):.1f}")


if __name__ == "__main__":
    main()
