"""Lobby updates: coalesced for the watchers, nothing for a player at a table.

The coalescing test runs on the mock clock (over memory streams), so "one update per
interval" is exact: the clock stands still while a thousand changes go through, then
moves one interval.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from gbmj_server.net.lobby import COUNTS_INTERVAL, UPDATE_INTERVAL
from server.wireclient import WireClient

pytestmark = pytest.mark.trio

CHANGES = 1000
OWNERS = 4


async def _guest(connect) -> tuple[WireClient, str]:
    client = await connect()
    session = await client.ok("guest")
    return client, session["profile"]["name"]


async def _lobby_updates(watcher: WireClient) -> list[dict]:
    """Every lobby update the watcher got so far: a ping's answer comes after whatever
    the server sent before it."""
    await watcher.ok("ping")
    return [m for m in watcher.seen if m["type"] == "lobby_update"]


async def test_a_burst_of_table_changes_reaches_a_watcher_as_one_update_with_the_final_state(
    mem, mock_clock
) -> None:
    _, connect, clock = mem
    watcher, _ = await _guest(connect)
    assert (await watcher.ok("watch_lobby", on=True))["type"] == "table_list"
    guests = [await _guest(connect) for _ in range(OWNERS)]
    owners = [owner for owner, _ in guests]
    tables = [await owner.create_table(name=f"t{i}") for i, owner in enumerate(owners)]
    clock.jump(UPDATE_INTERVAL)  # the tables' creation goes out first
    await watcher.expect("lobby_update", where=lambda u: len(u["tables"]) == OWNERS)
    before = len(await _lobby_updates(watcher))

    # A thousand changes while the clock stands still: each owner sits down and stands
    # up in turn, and ends seated in the seat of its own number.
    for n in range(CHANGES):
        i = n % OWNERS
        owner, table_id = owners[i], tables[i]
        if (n // OWNERS) % 2 == 0:
            await owner.ok("sit", table_id=table_id, seat=i)
        else:
            await owner.ok("stand", table_id=table_id)
    for i, owner in enumerate(owners):
        await owner.ok("sit", table_id=tables[i], seat=i)
    assert len(await _lobby_updates(watcher)) == before, "nothing before the interval ends"

    clock.jump(UPDATE_INTERVAL)
    await trio.testing.wait_all_tasks_blocked()
    updates = (await _lobby_updates(watcher))[before:]
    assert len(updates) == 1, "one update carries the whole burst"
    update = updates[0]
    assert update["removed"] == [] and update["total"] == OWNERS
    assert update["players_online"] == OWNERS + 1
    by_id = {t["table_id"]: t for t in update["tables"]}
    assert sorted(by_id) == sorted(tables)
    for i, (table_id, (_, name)) in enumerate(zip(tables, guests, strict=True)):
        seated = [seat.get("name") for seat in by_id[table_id]["seats"]]
        assert seated == [name if s == i else None for s in range(4)], seated

    clock.jump(5 * UPDATE_INTERVAL)  # nothing changed since: nothing more is sent
    await trio.testing.wait_all_tasks_blocked()
    assert len(await _lobby_updates(watcher)) == before + 1


async def test_the_players_online_alone_reach_a_watcher_once_each_counts_interval(
    mem, mock_clock
) -> None:
    """Sign-ins change only the count: the watchers hear of it once each counts
    interval, not each update interval; a table's change carries the count at once."""
    _, connect, clock = mem
    watcher, _ = await _guest(connect)
    listed = await watcher.ok("watch_lobby", on=True)
    assert listed["players_online"] == 1
    before = len(await _lobby_updates(watcher))
    others = [await _guest(connect) for _ in range(3)]
    for _ in range(int(COUNTS_INTERVAL / UPDATE_INTERVAL) - 1):
        clock.jump(UPDATE_INTERVAL)
        await trio.testing.wait_all_tasks_blocked()
    assert len(await _lobby_updates(watcher)) == before, "the count waits for its interval"
    clock.jump(2 * UPDATE_INTERVAL)
    await trio.testing.wait_all_tasks_blocked()
    updates = (await _lobby_updates(watcher))[before:]
    assert [(u["players_online"], u["tables"]) for u in updates] == [(4, [])]

    await _guest(connect)  # the count moves again, then a table opens: both at once
    owner, _ = others[0]
    await owner.create_table(name="now")
    clock.jump(UPDATE_INTERVAL)
    update = await watcher.expect("lobby_update", where=lambda u: u["tables"])
    assert update["players_online"] == 5 and update["total"] == 1


async def test_a_player_at_a_table_gets_no_lobby_traffic(connect) -> None:
    watcher, _ = await _guest(connect)
    player, _ = await _guest(connect)
    owner, owner_name = await _guest(connect)
    await watcher.ok("watch_lobby", on=True)
    await player.ok("watch_lobby", on=True)  # entering a table ends it
    table_id = await player.create_table(name="mine")
    await player.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await player.ok("add_bot", table_id=table_id, seat=seat, level="hard")
    await player.ok("ready", table_id=table_id, ready=True)
    entered = len(player.seen)
    await player.expect("prompt")  # the match runs, and waits for the player

    other = await owner.create_table(name="other")  # the lobby changes all the while
    for n in range(20):
        if n % 2 == 0:
            await owner.ok("sit", table_id=other, seat=n % 4)
        else:
            await owner.ok("stand", table_id=other)
    await owner.ok("sit", table_id=other, seat=2)
    await watcher.expect(
        "lobby_update",
        where=lambda u: any(
            t["table_id"] == other and t["seats"][2].get("name") == owner_name for t in u["tables"]
        ),
    )
    await player.ok("ping")  # whatever was sent to the player before it has arrived
    lobby = [
        m["type"] for m in player.seen[entered:] if m["type"] in ("lobby_update", "table_list")
    ]
    assert lobby == [], lobby
    assert any(m["type"] == "event" for m in player.seen[entered:])
