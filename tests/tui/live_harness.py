"""Driving the real app against a real server in the pilot: wait for a condition (the
screen shown if it never comes), play a hand by keys to its result."""

from __future__ import annotations

import time

from tui_harness import screen_text, until

from gbmj_tui.app import GbmjApp
from gbmj_tui.screens.result import ResultScreen
from gbmj_tui.screens.table import TableScreen
from gbmj_tui.widgets import HandRow, PromptBar

HAND_TIMEOUT = 90.0


async def play_hand(app: GbmjApp, pilot, checks: dict[str, int]) -> None:
    """Answer every prompt by keys until the hand's result shows: discard the drawn (or
    selected) tile with Enter, pass every claim with Space."""
    deadline = time.monotonic() + HAND_TIMEOUT
    while not isinstance(app.screen, ResultScreen):
        assert time.monotonic() < deadline, screen_text(app)
        view = app.session.view
        if isinstance(app.screen, TableScreen) and view is not None and view.prompt is not None:
            prompt = view.prompt
            bar = app.screen.query_one(PromptBar)
            await pilot.pause()
            if prompt.is_claim:
                # the bar offers exactly the server's choices, one key each
                offered = {o.choice for o in bar.options}
                assert offered == set(prompt.actions), (offered, prompt.actions)
                checks["claims"] += 1
                await pilot.press("space")
            elif prompt.allows("discard"):
                hand = app.screen.query_one(HandRow)
                assert hand.active and hand.selected_tile is not None, (
                    hand.tiles,
                    hand.drawn,
                    hand.cursor,
                    view.hand,
                    view.drawn,
                    prompt,
                )
                checks["turns"] += 1
                await pilot.press("enter")
            await until(
                pilot, lambda p=prompt: app.session.view is None or app.session.view.prompt is not p
            )
        await pilot.pause()
