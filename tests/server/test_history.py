"""The history over real TCP (docs/rules.md §2.10): who may read what, and a hand's log
that replays to the very state the live game reached."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from gbmj.replay.build import hand_from_log, hand_state
from gbmj_server.server import Server
from protocol import messages as m
from server.wireclient import WireClient, play, solo_table

pytestmark = pytest.mark.trio


def last(client: WireClient, kind: str) -> dict[str, Any]:
    return next(msg for msg in reversed(client.seen) if msg["type"] == kind)


async def test_a_player_reads_their_matches_and_replays_a_hand(connect, server: Server) -> None:
    alice, table_id = await solo_table(connect, "alice", stake=1)  # private: a stake table
    mallory = await connect()
    await mallory.register("mallory")
    # While the first hand is in play nothing of it can be read.
    alice.inbox.insert(0, await alice.expect("prompt"))  # (answered below)
    page = await alice.ok("list_matches")
    assert page["total"] == 1 and page["matches"][0]["hands"] == 0
    match_id = page["matches"][0]["match_id"]
    assert "ended_at" not in page["matches"][0]
    assert (await mallory.request("get_match", match_id=match_id))["code"] == "no_such_match"
    assert (await alice.ok("get_match", match_id=match_id))["hands"] == []

    # The hand ends: the live game's final state is in its hand_result.
    (live,) = await play(alice, table_id, until="hand_result")
    hand_id = live["hand_id"]
    log = await alice.ok("get_hand", hand_id=hand_id)
    # Replayed with the rules, the log reaches the state every player saw at the end.
    state = hand_state(hand_from_log(m.HandLog.from_wire(log)))
    assert state.ended and list(state.result.points) == live["points"]
    for seat in range(4):
        assert [int(t) for t in state.concealed(seat)] == live["concealed"][seat]
        melds = [{"kind": x.kind, "tile": int(x.tile)} for x in state.melds(seat)]
        assert melds == [{"kind": x["kind"], "tile": x["tile"]} for x in live["melds"][seat]]
    assert log["wall_order"] == live["wall_order"] and log["commitment"] == live["commitment"]

    # Another player may read neither the running match nor its hands.
    assert (await mallory.request("get_hand", hand_id=hand_id))["code"] == "no_such_match"
    assert (await mallory.ok("list_matches"))["total"] == 0
    assert (await alice.request("get_hand", hand_id=hand_id + 99))["code"] == "no_such_match"
    detail = await alice.ok("get_match", match_id=match_id)
    assert [h["hand_id"] for h in detail["hands"]] == [hand_id]


@pytest.mark.slow
async def test_a_finished_free_match_is_public_a_stake_one_is_not(connect, server: Server) -> None:
    # A free table's match is readable by anyone once it has ended.
    bob, free_table = await solo_table(connect, "bob")
    await play(bob, free_table)
    free_match = last(bob, "match_result")["match_id"]
    stranger = await connect()
    await stranger.register("stranger")
    detail = await stranger.ok("get_match", match_id=free_match)
    assert detail["match"]["public"] and len(detail["hands"]) == 4
    assert detail["match"]["reason"] == "finished" and "rank" not in detail["match"]
    hand = await stranger.ok("get_hand", hand_id=detail["hands"][0]["hand_id"])
    assert hand["match_id"] == free_match
    assert (await stranger.ok("list_matches"))["total"] == 0  # not theirs
    mine = (await bob.ok("list_matches"))["matches"][0]
    assert mine["match_id"] == free_match and mine["rank"] in range(1, 5)

    # A stake table's is not, even when it has ended.
    with trio.fail_after(60):
        carol, stake_table = await solo_table(connect, "carol", stake=1)
        await play(carol, stake_table)
    stake_match = last(carol, "match_result")["match_id"]
    refused = await stranger.request("get_match", match_id=stake_match)
    assert refused["code"] == "no_such_match"
    assert (await carol.ok("get_match", match_id=stake_match))["match"]["public"] is False
