"""The ``gbmj-fan`` console script, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = Path(sys.executable).parent / "gbmj-fan"
SAMPLE = ROOT / "tests" / "fixtures" / "fan-sample.jsonl"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_table() -> None:
    r = run(
        "123m 456p 789s EEE 1s",
        "--win",
        "1s",
        "--self-drawn",
        "--seat",
        "S",
        "--round",
        "E",
        "--flowers",
        "2",
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for words in ("花龙", "Mixed Straight", "不求人", "Fully Concealed Hand", "圈风刻", "花牌"):
        assert words in out
    assert "门风刻" not in out  # seat South, pung of East
    assert "total 17" in out and "without flowers 15" in out


def test_json_and_context_flags() -> None:
    r = run("123m 456p 789s EEE 1s", "--win", "1s", "--seat", "E", "--last-tile", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    names = {f["name_zh"]: f["count"] for f in data["fans"]}
    assert names == {"花龙": 1, "海底捞月": 1, "圈风刻": 1, "门风刻": 1, "门前清": 1, "单钓将": 1}
    assert data["total"] == data["total_without_flowers"] == 23
    assert data["meets_8"] is True


def test_win_defaults_to_the_last_tile_written() -> None:
    a = json.loads(run("123m 456p 789s EEE 1s 1s", "--json").stdout)
    b = json.loads(run("123m 456p 789s EEE 1s", "--win", "1s", "--json").stdout)
    assert a == b


def test_kong_and_fourth_tile_flags() -> None:
    r = run("123m 456p 789s 9s [EEEE<2]", "--win", "9s", "--self-drawn", "--kong", "--json")
    names = {f["name_zh"] for f in json.loads(r.stdout)["fans"]}
    assert "杠上开花" in names and "自摸" not in names
    r = run("123m 456p 78s EEE 55s", "--win", "9s", "--fourth-tile", "--json")
    assert "和绝张" in {f["name_zh"] for f in json.loads(r.stdout)["fans"]}


def test_a_hand_that_does_not_win() -> None:
    r = run("123m 456p 789s EEE 1s", "--win", "2s")
    assert r.returncode == 1
    assert "not_winning" in r.stderr
    r = run("123m 456p 789s EEE 1s", "--win", "2s", "--json")
    assert json.loads(r.stdout)["error"] == "not_winning"


@pytest.mark.slow
def test_bad_flags_are_argparse_errors() -> None:
    assert run("123m", "--bogus").returncode == 2
    assert run("123m 456p 789s EEE 1s", "--seat", "X").returncode == 2
    assert run("123m 456p 789s EEE 1s", "--flowers", "9").returncode == 2
    assert run().returncode == 2


def test_jsonl_file_matches_the_expected_scores() -> None:
    r = run("--jsonl", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    records = [json.loads(x) for x in SAMPLE.read_text("utf-8").splitlines() if x.strip()]
    assert len(lines) == len(records)
    for line, rec in zip(lines, records, strict=True):
        assert set(line) >= {
            "id",
            "valid",
            "error",
            "total",
            "total_without_flowers",
            "meets_8",
            "fans",
        }
        assert line["id"] == rec["id"]
        assert line["valid"] == rec["valid"]
        if rec["valid"]:
            assert line["total"] == rec["expected"]["total"]
        else:
            assert line["error"] == rec["expected"]["error"]


def test_jsonl_stdin_keeps_going_after_bad_records() -> None:
    good = {
        "id": "g",
        "concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "1s"],
        "melds": [],
        "win_tile": "1s",
        "self_drawn": False,
        "seat_wind": "E",
        "prevailing_wind": "E",
        "flowers": 0,
    }
    short = dict(good, id="short", concealed=good["concealed"][:10])
    old = {("prevalent_wind" if k == "prevailing_wind" else k): v for k, v in good.items()}
    lines = [
        json.dumps(short),
        "not json",
        json.dumps(dict(good, win_tile="2s", id="nw")),
        json.dumps(dict(old, id="old")),  # the key's old name: refused, not read as East
        json.dumps(good),
    ]
    r = run("--jsonl", "-", stdin="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(o["id"], o["valid"], o["error"]) for o in out] == [
        ("short", False, "wrong_tile_count"),
        (None, False, "bad_json"),
        ("nw", False, "not_winning"),
        ("old", False, "bad_context"),
        ("g", True, None),
    ]
    assert out[4]["total"] == 15
