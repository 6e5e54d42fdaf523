"""The client's words for the house's table options (docs/rules.md §2.5)."""

from __future__ import annotations

import pytest

from gbmj_tui.screens.lobby import stake_cell
from protocol import messages as m

TIMERS = m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5)


def settings(stake: int, fee: int | None) -> m.TableSettings:
    return m.TableSettings(
        name="t", stake=stake, timers=TIMERS, rounds=1, bots_allowed=True, table_fee=fee
    )


def test_the_lobby_shows_the_fee_beside_the_stake() -> None:
    assert stake_cell(settings(10, 20), "en") == "10 (fee 20)"
    assert stake_cell(settings(10, 20), "zh") == "10 (茶水费 20)"
    assert stake_cell(settings(10, None), "en") == "10"
    assert stake_cell(settings(0, None), "en") == "free"


def test_the_lobby_shows_a_pung_window_apart() -> None:
    from gbmj_tui.screens.lobby import table_row

    timed = m.TimerSettings(on=True, first_discard=30, turn=15, claim_window=5, pung_window=3)
    info = m.TableInfo(
        table_id=1,
        owner="o",
        settings=m.TableSettings(name="t", stake=0, timers=timed, rounds=1, bots_allowed=True),
        has_password=False,
        seats=tuple(m.LobbySeat(bot=False, ready=False) for _ in range(4)),
        spectators=0,
        status="waiting",
    )
    assert str(table_row(info, "en")[4]) == "30/15/5 (pung 3)"
    assert str(table_row(info, "zh")[4]) == "30/15/5 (碰 3)"


def test_hands_are_named_as_players_say_them() -> None:
    """In Chinese the round's wind, then the wind of the hand's place in the round
    (东风东局 … 北风北局); English keeps the round and the number."""
    from gbmj_tui.model import hand_name

    assert hand_name(1, 1, "zh") == "东风东局"
    assert hand_name(2, 3, "zh") == "南风西局"
    assert hand_name(4, 4, "zh") == "北风北局"
    assert hand_name(1, 1, "en") == "East round, hand 1"
    assert hand_name(3, 2, "en") == "West round, hand 2"


@pytest.mark.slow
def test_the_owner_renames_with_a_gold_sign() -> None:
    """The settings dialog of a table's owner chooses the sign a new name uses; the
    gold sign goes on the wire, the table sign goes without saying."""
    import asyncio
    from dataclasses import replace

    from textual.widgets import Input, Select
    from tui_harness import OfflineApp
    from tui_sample import sample_view

    from gbmj_tui.screens.dialogs import SettingsDialog
    from protocol.vocabulary import Item

    async def rename(app: OfflineApp, sign: Item) -> None:
        async with app.run_test() as pilot:
            app.table_screen.action_settings()
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, SettingsDialog)
            dialog.query_one("#t-name", Input).value = "golden"
            dialog.query_one("#t-sign", Select).value = sign
            await pilot.pause()
            dialog._create()
            await pilot.pause()

    for sign in (Item.GOLD_SIGN, Item.TABLE_SIGN):
        view = replace(sample_view(), settings=settings(0, None), owner="alice", viewer="alice")
        app = OfflineApp(view, lang="en")
        asyncio.run(rename(app, sign))
        (sent,) = [x for x in app.outbox if isinstance(x, m.ConfigureTable)]
        assert sent.settings.name == "golden"
        assert sent.sign == (Item.GOLD_SIGN if sign is Item.GOLD_SIGN else None)


def test_the_inventory_moves_and_uses_items() -> None:
    """Every slot is listed (empty ones too); m on a slot, m on another asks to move
    (swap) them; u on a gem asks to use it; a refusal for the cap says the cap."""
    import asyncio

    from textual.widgets import DataTable
    from tui_harness import OfflineApp
    from tui_sample import sample_view

    from gbmj_tui.messages import Refused
    from gbmj_tui.screens.shop import ShopScreen
    from protocol.vocabulary import Item

    inventory = m.Inventory(
        slots=(
            m.ItemStack(item=Item.TILE_COUNTER, count=2, slot=0),
            m.ItemStack(item=Item.GEM, count=1, slot=2),
        ),
        capacity=4,
        gem_cap=500,
    )
    seen: dict[str, object] = {}

    async def go(app: OfflineApp) -> None:
        async with app.run_test() as pilot:
            shop = ShopScreen("en", None, inventory)
            await app.push_screen(shop)
            await pilot.pause()
            slots = shop.query_one("#shop-slots", DataTable)
            seen["rows"] = slots.row_count
            await pilot.press("m")  # slot 1 (the cursor's first row): tile counters
            slots.move_cursor(row=3)
            await pilot.pause()
            await pilot.press("m")
            slots.move_cursor(row=2)
            await pilot.pause()
            await pilot.press("u")
            await pilot.pause()
            request = m.UseItem(item=Item.GEM)
            shop.post_message(Refused(request, "rating_capped", "capped"))
            await pilot.pause()
            seen["note"] = str(shop.query_one("#shop-note").render())

    app = OfflineApp(sample_view(), lang="en")
    asyncio.run(go(app))
    assert seen["rows"] == 4
    sent = [x for x in app.outbox if isinstance(x, m.MoveItem | m.UseItem)]
    assert sent == [m.MoveItem(from_slot=0, to_slot=3), m.UseItem(item=Item.GEM)]
    assert "rating 500" in str(seen["note"])


def test_the_owner_lays_a_tablecloth_and_the_board_shows_it() -> None:
    """l (the owner's key) offers the cloths; the one picked goes on the wire; a table
    whose info carries a cloth gives the board its look (the screen's class)."""
    import asyncio
    from dataclasses import replace

    from textual.widgets import OptionList
    from tui_harness import OfflineApp
    from tui_sample import sample_view

    from gbmj_tui.screens.shop import ClothDialog
    from protocol.vocabulary import Cloth

    classes: dict[str, bool] = {}

    async def go(app: OfflineApp) -> None:
        async with app.run_test() as pilot:
            await pilot.press("l")
            await pilot.pause()
            assert isinstance(app.screen, ClothDialog)
            options = app.screen.query_one(OptionList)
            options.highlighted = 3  # wood
            await pilot.press("enter")
            await pilot.pause()
            screen = app.table_screen
            screen.show(replace(screen.view, cloth=Cloth.WOOD))
            await pilot.pause()
            classes["wood"] = screen.has_class("-cloth-wood")
            classes["green"] = screen.has_class("-cloth-green")

    view = replace(sample_view(), owner="alice", viewer="alice")
    app = OfflineApp(view, lang="en")
    asyncio.run(go(app))
    sent = [x for x in app.outbox if isinstance(x, m.LayTablecloth)]
    assert sent == [m.LayTablecloth(table_id=view.table_id, cloth=Cloth.WOOD)]
    assert classes == {"wood": True, "green": False}
