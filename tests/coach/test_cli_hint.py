"""``gbmj-fan --hint``: the coach on the command line, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gbmj.rules.errors import HandError
from gbmj.rules.records import record_input
from gbmj.rules.scoring import WinContext, score_hand
from protocol.tiles import Tile

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = Path(sys.executable).parent / "gbmj-fan"
SAMPLE = ROOT / "tests" / "fixtures" / "fan-sample.jsonl"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )


@pytest.mark.slow
def test_waits_and_their_fan_agree_with_the_scoring_for_every_reference_hand() -> None:
    """Each valid reference hand, its winning tile taken out, is ready: the hint lists
    that tile, and its totals on a discard and self-drawn are the calculator's (and the
    reference's, where the record's situation is one the coach can know)."""
    r = run("--hint", "--jsonl", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    records = [json.loads(x) for x in SAMPLE.read_text("utf-8").splitlines() if x.strip()]
    assert len(lines) == len(records)
    checked = against_reference = 0
    for line, rec in zip(lines, records, strict=True):
        if not rec.get("valid"):
            continue
        hand, context = record_input(rec)
        assert line["shanten"] == 0, rec["id"]
        assert line["discards"] == []
        waits = {w["tile"]: w for w in line["waits"]}
        win = Tile(context.win_tile).notation
        assert win in waits, rec["id"]
        for w in line["waits"]:
            for self_drawn, key in ((False, "discard"), (True, "self_drawn")):
                ctx = WinContext(
                    Tile.parse(w["tile"]),
                    self_drawn=self_drawn,
                    seat_wind=context.seat_wind,
                    prevailing_wind=context.prevailing_wind,
                    flowers=context.flowers,
                )
                try:
                    score = score_hand(hand, ctx)
                except HandError:
                    assert w[f"{key}_total"] == 0 and not w[f"{key}_meets_8"]
                    continue
                assert w[f"{key}_total"] == score.total, rec["id"]
                assert w[f"{key}_meets_8"] == score.meets_8, rec["id"]
        if not (context.fourth_tile or context.kong_related or context.last_tile):
            key = "self_drawn" if context.self_drawn else "discard"
            assert waits[win][f"{key}_total"] == rec["expected"]["total"], rec["id"]
            assert waits[win][f"{key}_meets_8"] == rec["expected"]["meets_8"], rec["id"]
            against_reference += 1
        checked += 1
    assert checked >= 400 and against_reference >= 300


def test_a_fourteen_tile_hand_gives_each_discard() -> None:
    r = run("--hint", "456m 23456p 678s FF 9p", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["shanten"] == 0 and data["waits"] == []
    first = data["discards"][0]
    assert first == {"tile": "9p", "shanten": 0, "useful_kinds": 3, "useful_tiles": 11}
    assert {d["tile"] for d in data["discards"]} == {
        "4m", "5m", "6m", "2p", "3p", "4p", "5p", "6p", "9p", "6s", "7s", "8s", "F"
    }  # fmt: skip


def test_the_readable_form_warns_when_no_wait_reaches_8() -> None:
    r = run("--hint", "3m 444m 5m 66m [888m<2] [456s<1]")
    assert r.returncode == 0, r.stderr
    assert "no wait reaches 8 fan" in r.stdout
    assert "4m" in r.stdout and "6m" in r.stdout
    r = run("--hint", "456m 23456p 678s FF")
    assert "no wait reaches 8 fan" not in r.stdout and "Mixed Shifted Chows" in r.stdout


def test_seen_tiles_and_context_flags() -> None:
    plain = json.loads(run("--hint", "123m 46p 789s EEE 11s", "--json").stdout)
    seen = json.loads(run("--hint", "123m 46p 789s EEE 11s", "--seen", "5p5p5p", "--json").stdout)
    five = next(w for w in seen["waits"] if w["tile"] == "5p")
    was = next(w for w in plain["waits"] if w["tile"] == "5p")
    assert five["discard_total"] == was["discard_total"] + 4  # 和绝张
    flowers = json.loads(run("--hint", "123m 46p 789s EEE 11s", "--flowers", "2", "--json").stdout)
    assert flowers["waits"][0]["discard_total"] == plain["waits"][0]["discard_total"] + 2


def test_bad_input() -> None:
    r = run("--hint", "123m 456p")
    assert r.returncode == 1 and "wrong_tile_count" in r.stderr
    r = run("--hint", "--jsonl", "-", stdin='{"concealed": ["1m"]}\nnot json\n[1]\n')
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["error"] for x in lines] == ["wrong_tile_count", "bad_json", "bad_record"]
    assert run("--hint").returncode == 2
