"""The coach (hints) as a table setting over real TCP: free tables only."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.trio

BASE = {
    "name": "coach table",
    "stake": 0,
    "rounds": 1,
    "bots_allowed": True,
    "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
}


@pytest.mark.slow
async def test_the_owner_chooses_hints_at_a_free_table_and_a_stake_table_refuses_them(
    connect,
) -> None:
    owner = await connect()
    await owner.register("coachowner")
    watcher = await connect()
    await watcher.register("coachwatch")

    # At a free table the owner turns the coach on or off; everyone sees the choice.
    table_id = await owner.create_table(coach=True)
    snap = await watcher.ok("spectate", table_id=table_id)
    assert snap["table"]["settings"]["coach"] is True
    off = dict(snap["table"]["settings"], coach=False)
    await owner.ok("configure_table", table_id=table_id, settings=off)
    await watcher.expect(
        "table_update", where=lambda u: u["table"]["settings"].get("coach") is False
    )

    # A stake table refuses it, at creation and as a change, and nothing changes.
    other = await connect()
    await other.register("coachstaker")
    reply = await other.request("create_table", settings=dict(BASE, stake=10, coach=True))
    assert reply["type"] == "error" and reply["code"] == "coach_not_allowed"
    assert "free tables" in reply["message"]
    reply = await owner.request(
        "configure_table", table_id=table_id, settings=dict(off, stake=10, coach=True)
    )
    assert reply["code"] == "coach_not_allowed"
    again = await watcher.ok("list_tables")
    settings = next(t for t in again["tables"] if t["table_id"] == table_id)["settings"]
    assert settings["stake"] == 0 and settings["coach"] is False

    # Left out (an older client) or off, a stake table is created as before.
    stake_id = await other.create_table(stake=10)
    listing = await watcher.ok("list_tables")
    stake = next(t for t in listing["tables"] if t["table_id"] == stake_id)["settings"]
    assert stake["stake"] == 10 and not stake.get("coach")
    third = await connect()
    await third.register("coachthird")
    await third.create_table(stake=10, coach=False)
