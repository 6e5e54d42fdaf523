"""``verify``: a real match's file passes; a moved tile, a forged commitment, a false win
and wrong payments fail, each with a message that says what is wrong: unsigned since
the change, and, re-signed by the server's own key, against the rules all the same (a
server's signature vouches for where a file comes from, not that the server kept the
rules)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

import pytest
from conftest import World, host_replay, player_replay

from gbmj.game.actions import WIN
from gbmj.game.wall import Wall, deal_positions
from gbmj.replay import dumps, hand_state, loads, verify, verify_text
from gbmj.replay.signing import hand_statement, match_statement
from gbmj.replay.verify import (
    Report,
    documented_break,
    documented_commitment,
    documented_deal,
)
from protocol.vocabulary import ActionKind

WHAT_A_HAND_CHECKS = [
    "signature",
    "seating",
    "wall",
    "commitment",
    "dice",
    "deal",
    "draws",
    "actions",
    "times",
    "result",
]


def file_of(world: World, which: str = "free") -> dict[str, Any]:
    return json.loads(dumps(host_replay(world, getattr(world, which))))


def mismatches(report: Report) -> dict[str, str]:
    return {f"{c.where.split(' (')[0]}/{c.what}": c.detail for c in report.mismatches}


def resigned(world: World, data: dict[str, Any]) -> str:
    """The (changed) file signed again with the server's key, as if the server had
    signed it so."""
    replay = loads(json.dumps(data))
    sign = world.signer.sign
    match = replace(replay.match, signature=sign(match_statement(replay.match)))
    hands = tuple(
        replace(h, signature=sign(hand_statement(match.match_id, h))) for h in replay.hands
    )
    return dumps(replace(replay, match=match, hands=hands))


def check(world: World, text: str) -> Report:
    return verify_text(text, world.trust)


def test_an_exported_real_match_verifies(world: World) -> None:
    for match in (world.free, world.stake):
        for replay in (host_replay(world, match), player_replay(world, match)):
            report = check(world, dumps(replay))
            assert report.ok, report.text()
            assert report.checks[0].what == "server"
            assert world.signer.fingerprint in report.checks[0].detail
            for number in range(1, len(match.hand_ids) + 1):
                checked = [c.what for c in report.checks if c.where.startswith(f"hand {number} ")]
                assert checked[: len(WHAT_A_HAND_CHECKS)] == WHAT_A_HAND_CHECKS
                assert "points" in checked
            assert "coins" in [c.what for c in report.checks] or match is world.free
            assert [c.what for c in report.checks if c.where == "match"] == [
                "signature",
                "numbering",
                "players",
                "standings",
            ]
            assert report.text().endswith("no mismatch")


def test_a_moved_tile_breaks_the_signature_and_the_commitment(world: World) -> None:
    data = file_of(world)
    order = data["hands"][0]["wall"]["order"]
    order.insert(100, order.pop(3))  # one tile moved further down the wall
    for text in (json.dumps(data), resigned(world, data)):
        report = check(world, text)
        assert not report.ok
        bad = mismatches(report)
        assert "not the wall promised for hand 1 of match" in bad["hand 1/commitment"]
        assert report.text().splitlines()[-1].startswith("NOT VERIFIED")
    assert (
        "did not sign this hand" in mismatches(check(world, json.dumps(data)))["hand 1/signature"]
    )


def test_a_forged_commitment_fails(world: World) -> None:
    data = file_of(world, "stake")
    wall = data["hands"][2]["wall"]
    wall["commitment"] = hashlib.sha256(bytes(wall["order"]) + b"another salt").hexdigest()
    assert list(mismatches(check(world, json.dumps(data)))) == [
        "hand 3/signature",
        "hand 3/commitment",
    ]
    bad = mismatches(check(world, resigned(world, data)))
    assert list(bad) == ["hand 3/commitment"]
    assert bad["hand 3/commitment"].endswith(
        f"this is not the wall promised for hand 3 of match {world.stake.match_id}"
    )


def test_a_wall_that_is_no_full_set_fails(world: World) -> None:
    data = file_of(world)
    order = data["hands"][1]["wall"]["order"]
    order[0], order[1] = 0, 0  # a fifth 1m for a tile that goes missing
    bad = mismatches(check(world, resigned(world, data)))
    assert "not a full set of 144 tiles" in bad["hand 2/wall"]
    assert "too many" in bad["hand 2/wall"] and "missing" in bad["hand 2/wall"]


def test_a_false_win_fails(world: World) -> None:
    """A win declared where the rules allow none (诈和) is refused by the replay."""
    replay = host_replay(world, world.free)
    data = json.loads(dumps(replay))
    hand = replay.hands[0]
    # The first turn at which the seat to act could not win: the file says it won there.
    for i, a in enumerate(hand.actions):
        state = hand_state(hand, i)
        if a.kind is ActionKind.DISCARD and WIN not in state.legal_actions(a.seat):
            break
    data["hands"][0]["actions"][i] = {"seat": a.seat, "kind": "win", "ms": a.ms}
    report = check(world, resigned(world, data))
    detail = mismatches(report)["hand 1/actions"]
    assert f"action {i + 1} of {len(hand.actions)} (seat {a.seat}: win" in detail
    assert "a false win (诈和)" in detail


def test_a_result_the_rules_do_not_give_fails(world: World) -> None:
    """The fans are not signed (the rules derive them): changed, the signature still
    holds and the calculator says what is wrong."""
    data = file_of(world)
    result = data["hands"][0]["result"]
    result["fans"] = [[1, 1], *result["fans"]]  # 大四喜 88, which the hand does not hold
    result["total"] += 88
    bad = mismatches(check(world, json.dumps(data)))
    assert list(bad) == ["hand 1/fans"]
    assert "the file says" in bad["hand 1/fans"] and "大四喜 88" in bad["hand 1/fans"]
    assert "gbmj's calculator scores" in bad["hand 1/fans"]


def test_a_claimed_result_the_actions_do_not_give_fails(world: World) -> None:
    data = file_of(world, "stake")
    escaped = data["hands"][1]
    escaped["result"] = {  # the escape hand, claimed as seat 0's self-drawn win
        "outcome": "win",
        "winner": 0,
        "win_tile": 0,
        "fans": [[43, 1]],
        "total": 8,
        "points": [48, -16, -16, -16],
        "coins": [0, 0, 0, 0],
    }
    won = data["hands"][0]["result"]
    assert won["outcome"] == "win"
    other = (won["winner"] + 1) % 4
    won["winner"] = other  # someone else claimed as the winner
    bad = mismatches(check(world, resigned(world, data)))
    assert bad["hand 2/result"] == (
        "the file says seat 0 (bot-3) wins on 1m, self-drawn; its actions do not get there"
    )
    assert "stop before the hand's end" in bad["hand 2/actions"]
    said, ruled = bad["hand 1/result"].split("; replayed with the rules: ")
    assert said.startswith(f"the file says seat {other} ")
    assert ruled.startswith(f"seat {(other - 1) % 4} ")


def test_wrong_points_coins_and_standings_fail(world: World) -> None:
    data = file_of(world, "stake")
    first = data["hands"][0]["result"]
    first["points"] = [p * 2 for p in first["points"]]
    data["hands"][2]["result"]["coins"][0] -= 1  # a payer paid one coin more than asked
    data["match"]["standings"][0]["points"] += 5
    unsigned = mismatches(check(world, json.dumps(data)))
    assert {"hand 1/signature", "hand 3/signature", "match/signature"} <= set(unsigned)
    bad = mismatches(check(world, resigned(world, data)))
    assert "the rules pay" in bad["hand 1/points"]
    assert "the points × stake 10 ask" in bad["hand 3/coins"]
    name = data["match"]["standings"][0]["name"]
    assert bad["match/standings"].startswith(f"{name} ")
    assert "the hands add up to" in bad["match/standings"]


def test_a_hand_file_verifies_without_the_matchs_totals(world: World) -> None:
    replay = host_replay(world, world.stake)
    one = loads(dumps(replace(replay, hands=replay.hands[1:2])))
    report = verify(one, world.trust)
    assert report.ok, report.text()
    standings = next(c for c in report.checks if c.what == "standings")
    assert "holds 1 of 4 hands" in standings.detail


def test_what_is_not_a_replay_file_fails_with_the_reason(world: World) -> None:
    report = check(world, b"\x89PNG")
    assert not report.ok and report.refused
    assert report.text().startswith("NOT VERIFIED: not a JSON document: ")
    assert "\n" not in report.text()


def test_the_rule_books_geometry_is_the_engines() -> None:
    """The verifier reads the wall as docs/rules.md §1.1 says, apart from the engine's
    code: the two agree on every dealer and many dice, and on the book's example."""
    for n in range(300):
        wall = Wall.from_seed(f"geometry-{n}".encode(), n % 4, match_id=n * 977, number=n % 17)
        assert documented_break(wall.dealer, wall.dice) == (wall.second_roller, wall.break_stack)
        assert (
            documented_commitment(wall.match_id, wall.number, wall.order, wall.salt.hex())
            == wall.commitment
        )
    for j in range(4):
        assert documented_deal(j) == deal_positions(j)
    example = Wall.from_seed(b"rules-example-77", dealer=1, match_id=88, number=2)
    assert documented_break(1, example.dice) == (3, 55)
    assert example.commitment.startswith("c87c8b2157c797ca")  # as docs/rules.md shows it


@pytest.mark.parametrize("which", ["free", "stake"])
def test_the_report_says_what_it_checked(world: World, which: str) -> None:
    match = getattr(world, which)
    text = verify(host_replay(world, match), world.trust).text()
    assert f"server: the certificate {world.signer.fingerprint} of the test server" in text
    assert f"commitment: SHA-256 of match {match.match_id}, hand 1, the wall order and salt" in text
    assert "each the next tile of the draw sequence" in text
    assert "(gbmj's calculator)" in text
