"""Every record of tests/fixtures/fan-sample.jsonl, scored by the reference calculator
of national competitions, must come out the same: the same total, the same fans with
the same counts, the same verdict on invalid records."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from gbmj.rules.records import score_record

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fan-sample.jsonl"
RECORDS = [json.loads(line) for line in FIXTURES.read_text("utf-8").splitlines() if line.strip()]


def test_the_sample_is_all_there() -> None:
    assert len(RECORDS) == 414
    assert len({r["id"] for r in RECORDS}) == 414


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_record(record: dict) -> None:
    result = score_record(record)
    expected = record["expected"]
    if not record["valid"]:
        assert not result["valid"]
        assert result["error"] == expected["error"]
        return
    assert result["valid"], result.get("message")
    got = Counter({(f["name_zh"], f["name_en"], f["points"]): f["count"] for f in result["fans"]})
    want = Counter(
        {(f["name_zh"], f["name_en"], f["points"]): f["count"] for f in expected["fans"]}
    )
    assert got == want
    assert result["total"] == expected["total"]
    assert result["total_without_flowers"] == expected["total_without_flowers"]
    assert result["meets_8"] == expected["meets_8"]
