"""The gold sign (金字招牌), gems and the inventory's slots over the real server
(docs/rules.md §2.6), with the coins and the ledger checked."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from server.conftest import table_of
from server.test_coins import balance, ledger_ok

pytestmark = pytest.mark.trio

HOUR = 3600.0


async def test_a_gold_sign_protects_the_new_name_for_24_hours(mem, mock_clock) -> None:
    """Bought for its price (to the house), a gold sign renames the table and protects
    the name 24 hours: a table sign cannot rename it in the meantime, and can after."""
    srv, connect, clock = mem
    owner = await connect()
    await owner.register("signer")
    table_id = await owner.create_table(name="old name")
    table = table_of(srv, table_id)
    settings = table.settings.to_wire()
    renamed = {"table_id": table_id, "settings": dict(settings, name="golden")}
    refused = await owner.request("configure_table", sign="gold_sign", **renamed)
    assert refused["code"] == "no_such_item" and table.settings.name == "old name"
    refused = await owner.request("configure_table", sign="tile_counter", **renamed)
    assert refused["code"] == "out_of_range" and table.settings.name == "old name"
    shop = {o["item"]: o["price"] for o in (await owner.ok("get_shop"))["offers"]}
    house = await balance(srv, None)
    await owner.ok("buy", item="gold_sign", count=1)
    assert await balance(srv, "signer") == 10_000 - shop["gold_sign"]
    assert await balance(srv, None) == house + shop["gold_sign"]
    await owner.ok("configure_table", sign="gold_sign", **renamed)
    assert table.settings.name == "golden"
    assert (await owner.ok("get_inventory"))["slots"] == []
    await owner.ok("buy", item="table_sign", count=1)
    again = {"table_id": table_id, "settings": dict(settings, name="plain")}
    clock.jump(24 * HOUR - 60)
    await trio.testing.wait_all_tasks_blocked()
    refused = await owner.request("configure_table", **again)
    assert refused["code"] == "name_protected" and table.settings.name == "golden"
    assert (await owner.ok("get_inventory"))["slots"] == [{"item": "table_sign", "count": 1}]
    clock.jump(120)
    await owner.ok("configure_table", **again)
    assert table.settings.name == "plain"
    # The table sign's own protection is an hour.
    clock.jump(HOUR - 60)
    account = await srv.store.call(srv.store.storage.account_by_name, "signer")
    await srv.store.call(srv.store.storage.give_item, account.id, "gold_sign")
    refused = await owner.request("configure_table", sign="gold_sign", **renamed)
    assert refused["code"] == "name_protected"
    clock.jump(120)
    await owner.ok("configure_table", sign="gold_sign", **renamed)
    assert table.settings.name == "golden"
    assert await ledger_ok(srv)
