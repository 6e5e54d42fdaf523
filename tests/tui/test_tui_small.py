"""Small things a player meets: an item they do not have (t, e), the help's key names,
the history's rank of a player who left, the plain-TCP box in monochrome, the connect
screen's lines said for what they are, a spectator's status line."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from tui_harness import OfflineApp, terminal_text, until
from tui_sample import sample_view

from gbmj_tui.i18n import tr, trp
from gbmj_tui.messages import Refused, Replied
from gbmj_tui.screens.dialogs import Confirm
from gbmj_tui.screens.history import match_row
from gbmj_tui.widgets.status import status_text
from gbmj_tui.widgets.toggle import Toggle
from protocol import messages as m
from protocol.examples import MESSAGE_EXAMPLES

SHOP: m.Shop = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.Shop))
SUMMARY: m.MatchSummary = next(x for x in MESSAGE_EXAMPLES if isinstance(x, m.MatchList)).matches[0]


def _missing(view, feed):
    """Press ``t`` without a tile counter; ``feed(app, pilot)`` answers what it asks."""

    async def go():
        app = OfflineApp(replace(view, table_id=7), lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            table = app.screen
            table.post_message(Refused(m.UseTileCounter(table_id=7), "no_such_item", "none"))
            await pilot.pause()
            await feed(app, pilot, table)
            await pilot.pause()
            return app.outbox, terminal_text(app)

    return asyncio.run(go())


@pytest.mark.slow
def test_an_item_not_held_is_offered_for_sale_at_a_free_table() -> None:
    async def feed(app, pilot, table):
        assert m.GetShop() in app.outbox
        table.post_message(Replied(m.GetShop(), SHOP))
        await until(pilot, lambda: isinstance(app.screen, Confirm))
        assert isinstance(app.screen, Confirm)
        feed.asked = terminal_text(app)
        await pilot.press("enter")
        await pilot.pause()
        bought = next(r for r in app.outbox if isinstance(r, m.Buy))
        table.post_message(Replied(bought, m.Inventory(slots=(), capacity=30)))

    outbox, _ = _missing(sample_view(), feed)
    asked = " ".join(feed.asked.split())
    assert "You have no tile counter" in asked and "800 coins" in asked and "shop" in asked
    assert m.Buy(item="tile_counter", count=1) in outbox
    assert (
        m.UseTileCounter(table_id=7) in outbox[outbox.index(m.Buy(item="tile_counter", count=1)) :]
    )


def test_at_a_stake_table_nothing_is_bought_and_the_player_is_told_where() -> None:
    async def feed(app, pilot, table):
        pass

    outbox, text = _missing(replace(sample_view(), stake=10), feed)
    assert not any(isinstance(r, m.GetShop | m.Buy) for r in outbox)
    flat = " ".join(text.split())
    assert "No tile counter" in flat and "not while seated at a stake table" in flat
    assert "lobby's shop (i)" in flat


def test_the_fan_tables_x_is_not_the_help_keys_x() -> None:
    assert tr("x", "zh") == "x"  # a key stays a key
    assert trp("fan count", "x", "zh") == "次"


def test_a_player_who_left_is_not_ranked_five_of_four() -> None:
    row = match_row(replace(SUMMARY, rank=5, points=-80), "en")
    assert row[3].plain == "left early" and row[4].plain == "-80"
    assert match_row(replace(SUMMARY, rank=2), "en")[3].plain == "2"


def test_the_plain_tcp_box_is_empty_when_off_and_other_servers_are_named(tmp_path) -> None:
    """Monochrome shows no colour: the box itself says on or off."""
    from textual.widgets import Input

    from gbmj_tui.app import GbmjApp
    from gbmj_tui.screens.connect import ConnectScreen

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en", ascii=True, server="h:1")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ConnectScreen)
            off = terminal_text(app)
            app.screen.query_one(Toggle).value = True
            await pilot.pause()
            app.screen.query_one("#server", Input).focus()
            return off, terminal_text(app)

    off, on = asyncio.run(go())
    assert "[ ] Plain TCP" in off and "[X] Plain TCP" in on
    assert "Other servers: " in off  # the default server, named as what it is


def test_a_spectator_is_not_offered_the_ready_key() -> None:
    waiting = replace(sample_view(me=None), status="waiting", playing=False)
    text = status_text(waiting, "en").plain
    assert "all ready (r)" not in text and "take a free seat" in text
    seated = replace(sample_view(), status="waiting", playing=False)
    assert "all ready (r)" in status_text(seated, "en").plain


@pytest.mark.slow
def test_the_owner_is_asked_before_a_person_is_removed_not_a_bot() -> None:
    from gbmj_tui.screens.seats import SeatsDialog

    view = replace(
        sample_view(), table_id=7, status="waiting", playing=False, owner="Alice", viewer="Alice"
    )

    async def go(row: int, answer: str):
        app = OfflineApp(view, lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            await pilot.press("b")
            await until(pilot, lambda: isinstance(app.screen, SeatsDialog))
            assert isinstance(app.screen, SeatsDialog)
            for _ in range(row):
                await pilot.press("down")
            await pilot.press("d")
            await pilot.pause()
            asked = isinstance(app.screen, Confirm)
            text = terminal_text(app)
            if asked:
                await pilot.press(answer)
                await pilot.pause()
            return asked, text, [r for r in app.outbox if isinstance(r, m.Kick | m.RemoveBot)]

    asked, text, sent = asyncio.run(go(2, "escape"))  # seat 2: Carol, a person
    assert asked and "Remove Carol from the table?" in text and sent == []
    asked, _, sent = asyncio.run(go(2, "enter"))
    assert sent == [m.Kick(table_id=7, seat=2)]
    asked, _, sent = asyncio.run(go(1, "enter"))  # seat 1: a bot goes at once
    assert not asked and sent == [m.RemoveBot(table_id=7, seat=1)]


def test_in_a_running_match_enter_sends_the_chat_and_closes_the_box() -> None:
    """The box covers the claim bar and the clock: in a match it closes on Enter (at a
    waiting table it stays open, Esc closes it: tests/tui/test_tui_live.py)."""
    from gbmj_tui.screens.chat import ChatLine

    async def go():
        app = OfflineApp(replace(sample_view(), table_id=7), lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            opened = isinstance(app.screen, ChatLine)
            await pilot.press(*"hi", "enter")
            await pilot.pause()
            return opened, type(app.screen).__name__, app.outbox

    opened, on_top, outbox = asyncio.run(go())
    assert opened and on_top == "TableScreen"
    assert m.ChatSend(channel="table", table_id=7, text="hi") in outbox
