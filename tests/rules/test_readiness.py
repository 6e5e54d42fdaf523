"""The readiness bound is sound: it never rules out a hand that some tile completes."""

import json
import random
from pathlib import Path

from gbmj.rules.errors import HandError
from gbmj.rules.readiness import may_be_ready
from gbmj.rules.records import record_input
from gbmj.rules.shapes import is_complete

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fan-sample.jsonl"


def test_every_winning_hand_of_the_fixtures_passes_the_bound():
    checked = 0
    for line in FIXTURES.read_text("utf-8").splitlines():
        record = json.loads(line)
        if not record.get("valid", True):
            continue
        try:
            hand, _ = record_input(record)
        except HandError:
            continue
        assert may_be_ready(hand.counts(), len(hand.melds)), record["id"]
        checked += 1
    assert checked > 300  # every shape: regular, seven pairs, orphans, knitted...


def test_a_hand_the_bound_rules_out_is_completed_by_no_tile():
    rng = random.Random(3)
    deck = [t for t in range(34) for _ in range(4)]
    ruled_out = 0
    for _ in range(3000):
        melds = rng.choice((0, 0, 0, 1, 2))
        tiles = rng.sample(deck, 13 - 3 * melds)
        if rng.random() < 0.3:  # bias towards near-complete hands: pairs and runs
            tiles = sorted(tiles)
        counts = [0] * 34
        for t in tiles:
            counts[t] += 1
        if may_be_ready(counts, melds):
            continue
        ruled_out += 1
        for t in range(34):
            if counts[t] < 4:
                counts[t] += 1
                assert not is_complete(counts, melds), (tiles, melds, t)
                counts[t] -= 1
    assert ruled_out > 1000


def test_the_bound_lets_through_near_misses_of_each_shape():
    def counts_of(text_codes):
        counts = [0] * 34
        for t in text_codes:
            counts[t] += 1
        return counts

    orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]  # waits on any of them
    assert may_be_ready(counts_of(orphans), 0)
    pairs = [0, 0, 3, 3, 7, 7, 12, 12, 20, 20, 30, 30, 33]  # seven pairs, waits on 33
    assert may_be_ready(counts_of(pairs), 0)
    knitted = [0, 3, 6, 10, 13, 16, 20, 23, 27, 28, 29, 31, 32]  # 全不靠 shape
    assert may_be_ready(counts_of(knitted), 0)
    assert not may_be_ready(counts_of([0, 0, 4, 8, 10, 14, 18, 22, 26, 27, 28, 29, 30]), 0)
