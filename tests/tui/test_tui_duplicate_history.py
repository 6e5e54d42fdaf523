"""A duplicate match in the history while a deal of it is still in play at another
table (docs/rules.md §2.14): the server leaves its hands and standings out, and the
match screen says why and how many, not that no hand has ended."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from live_harness import until
from tui_harness import OfflineApp, terminal_text
from tui_sample import sample_view

from gbmj_tui.messages import Replied
from gbmj_tui.screens.history import MatchScreen
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES

DETAIL = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchDetail))


def _shown(detail: m.MatchDetail, lang: str) -> str:
    async def go() -> str:
        app = OfflineApp(sample_view(), lang=lang)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            screen = MatchScreen(detail.match.match_id, lang)
            await app.push_screen(screen)
            screen.post_message(Replied(m.GetMatch(match_id=detail.match.match_id), detail))
            await until(pilot, lambda: detail.match.table_name in terminal_text(app))
            await pilot.pause()
            return " ".join(terminal_text(app).split())

    return asyncio.run(go())


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_match_whose_deals_are_still_in_play_says_so(lang: str) -> None:
    played = DETAIL.match.hands  # the match's hands played, as the list counts them
    closed = replace(DETAIL, hands=(), standings=None)  # every deal still in play
    text = _shown(closed, lang)
    said = {"en": f"another table (duplicate): {played} of {played}", "zh": "还有别的桌要打"}
    assert said[lang] in text
    assert {"en": "No hand of this match has ended", "zh": "还没有打完"}[lang] not in text
    opened = len(DETAIL.hands)  # some deals opened, the others not yet
    some = replace(DETAIL, standings=None)
    assert f"{played - opened} of {played}" in _shown(some, "en")
    nothing = replace(DETAIL, match=replace(DETAIL.match, hands=0), hands=(), standings=None)
    assert "No hand of this match has ended yet" in _shown(nothing, "en")
