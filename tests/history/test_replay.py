"""Replay files (docs/replay-format.md): written and read back, the same from the host
and from a player, and replayed step by step to the live game's end."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import World, host_replay, player_replay

from gbmj.replay import FORMAT, ReplayFormatError, dumps, hand_state, loads, parse_id, steps_of
from gbmj.replay import format as F
from gbmj.replay.build import ReplayId
from gbmj.replay.signing import hand_statement, match_statement


def test_a_file_reads_back_as_it_was_written(world: World) -> None:
    for match in (world.free, world.stake):
        for replay in (host_replay(world, match), player_replay(world, match)):
            text = dumps(replay)
            assert loads(text) == replay
            data = json.loads(text)
            assert (data["format"], data["version"]) == (FORMAT, 2)
            assert len(data["hands"]) == len(match.hand_ids)


def test_the_host_and_a_player_export_the_same_hands(world: World) -> None:
    """The host writes the result the server recorded; a player's export scores each hand
    by replaying it: they agree on every hand, the coins of a stake table included."""
    for match in (world.free, world.stake):
        host, player = host_replay(world, match), player_replay(world, match)
        assert [replace(h, signature=None) for h in host.hands] == [
            replace(h, signature=None) for h in player.hands
        ]
        assert host.match.stake == player.match.stake == (10 if match is world.stake else 0)
        assert host.match.standings == player.match.standings
        # both sign the same statements: the record, not how it was built
        assert [hand_statement(match.match_id, h) for h in host.hands] == [
            hand_statement(match.match_id, h) for h in player.hands
        ]
        assert match_statement(host.match) == match_statement(player.match)


def test_the_replay_reaches_the_live_games_final_state(world: World) -> None:
    for match in (world.free, world.stake):
        replay = loads(dumps(player_replay(world, match)))
        totals: dict[str, int] = {}
        for hand, live, scores in zip(replay.hands, match.states, match.scores, strict=True):
            state = hand_state(hand, match_id=match.match_id)
            for seat in range(4):
                assert state.concealed(seat) == live.concealed(seat)
                assert state.melds(seat) == live.melds(seat)
                assert state.discards(seat) == live.discards(seat)
                assert state.flowers(seat) == live.flowers(seat)
            assert state.result == live.result
            assert state.snapshot() == live.snapshot()  # every event, the escape's too
            for seat in hand.seats:
                totals[seat.player] = totals.get(seat.player, 0) + hand.result.points[seat.seat]
            assert [totals[s.player] for s in hand.seats] == scores  # the match's scores


def test_each_step_is_the_live_game_so_far(world: World) -> None:
    """Stepping forward or back through a hand: the state after any number of actions
    has seen exactly the live game's events up to that action."""
    replay = player_replay(world, world.free)
    for hand, live in zip(replay.hands, world.free.states, strict=True):
        seen = 0
        for k in range(steps_of(hand) + 1):
            events = hand_state(hand, k, world.free.match_id).events
            assert events == live.events[: len(events)]
            assert len(events) >= seen  # a pass that leaves the window open adds none
            seen = len(events)
        assert hand_state(hand, steps_of(hand), world.free.match_id).events == live.events


def test_an_escape_ends_the_replayed_hand(world: World) -> None:
    hand = player_replay(world, world.stake).hands[1]
    assert hand.result.escaper == world.stake.names[1].index("bob")
    assert steps_of(hand) == len(hand.actions) + 1  # the escape is the last step
    assert hand_state(hand).ended and hand_state(hand, steps_of(hand)).ended
    assert not hand_state(hand, len(hand.actions)).ended


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: "{", "not a JSON document"),
        (lambda d: {"format": "other"}, "not a gbmj replay file"),
        (lambda d: {**d, "version": 3}, "format version 3, newer than this gbmj reads (2)"),
        (lambda d: {**d, "version": 1}, "format version 1, which carries no server signature"),
        (lambda d: {**d, "version": "2"}, "does not say its format version"),
        (
            lambda d: {**d, "match": {k: v for k, v in d["match"].items() if k != "stake"}},
            "file.match.stake: missing",
        ),
        (lambda d: {**d, "extra": 1}, "file.'extra': unknown field"),
        (
            lambda d: {**d, "hands": [{**d["hands"][0], "dealer": 4}]},
            "file.hands[0].dealer: 4 is out of range 0..3",
        ),
        (
            lambda d: {**d, "match": {**d["match"], "players": ["\x1b[2Jx"]}},
            "file.match.players[0]: control character",
        ),
    ],
)
def test_a_bad_file_is_refused_with_the_reason(world: World, change, message: str) -> None:
    data = json.loads(dumps(host_replay(world, world.free)))
    changed = change(data)
    text = changed if isinstance(changed, str) else json.dumps(changed)
    with pytest.raises(ReplayFormatError, match=re.escape(message)):
        loads(text)


def test_ids_name_a_match_or_a_hand() -> None:
    assert parse_id("88") == parse_id("m88") == ReplayId("match", 88)
    assert parse_id("H412") == ReplayId("hand", 412)
    assert ReplayId("hand", 412).file_name == "gbmj-hand-412.json"
    for bad in ("", "h", "x12", "m-1", "0", "１２"):
        with pytest.raises(ValueError, match="is no id"):
            parse_id(bad)


def test_the_format_page_lists_every_field() -> None:
    """docs/replay-format.md has a table per record, with a row per field in order."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "replay-format.md").read_text("utf-8")
    sections = {
        "The document": F.Replay,
        "`match`": F.ReplayMatch,
        "`standing`": F.ReplayStanding,
        "`hand`": F.ReplayHand,
        "`seat`": F.ReplaySeat,
        "`wall`": F.ReplayWall,
        "`action`": F.LoggedAction,
        "`result`": F.ReplayResult,
    }
    for title, cls in sections.items():
        text = page.split(f"## {title}\n", 1)[1].split("\n#", 1)[0]
        rows = re.findall(r"^\| `(\w+)` \|", text, re.M)
        assert rows == [name for name, _spec, _doc in cls.fields()], title
