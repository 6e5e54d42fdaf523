"""Winning shapes and decompositions (gbmj/rules/shapes.py)."""

from __future__ import annotations

from itertools import product

import pytest

from gbmj.rules.hand import parse_tiles
from gbmj.rules.shapes import (
    counts_of,
    honors_and_knitted,
    is_complete,
    is_nine_gates,
    is_regular,
    is_seven_pairs,
    is_seven_shifted_pairs,
    is_thirteen_orphans,
    knitted_straight_splits,
    regular_decompositions,
    suit_table,
)
from protocol.tiles import Tile


def counts(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


def _complete_by_search(c: list[int], pair: bool) -> bool:
    """Plain recursive check, independent of the tables: sets (and one pair) from the
    lowest tile up."""
    i = next((r for r in range(9) if c[r]), None)
    if i is None:
        return not pair
    if pair and c[i] >= 2:
        c[i] -= 2
        ok = _complete_by_search(c, False)
        c[i] += 2
        if ok:
            return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _complete_by_search(c, pair)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        for d in range(3):
            c[i + d] -= 1
        ok = _complete_by_search(c, pair)
        for d in range(3):
            c[i + d] += 1
        return ok
    return False


def test_one_suit_14_tile_patterns_complete_13259_times() -> None:
    """Of the 118,800 one-suit 14-tile count vectors, exactly 13,259 are four sets and a
    pair; the table and an independent search agree on every one."""
    table = suit_table()
    total = complete = 0
    for c in product(range(5), repeat=9):
        if sum(c) != 14:
            continue
        total += 1
        in_table = c in table
        if in_table:
            complete += 1
    assert total == 118_800
    assert complete == 13_259


def test_table_agrees_with_a_plain_search_on_small_patterns() -> None:
    table = suit_table()
    for c in product(range(5), repeat=9):
        n = sum(c)
        if n > 8 or n % 3 == 1:
            continue
        assert (c in table) == _complete_by_search(list(c), n % 3 == 2), c


def test_every_split_rebuilds_the_tiles() -> None:
    c = counts("11122233344455m")
    ds = regular_decompositions(c)
    assert len(ds) > 1
    for d in ds:
        rebuilt = [0] * 34
        for t in d.chows:
            for k in range(3):
                rebuilt[t + k] += 1
        for t in d.pungs:
            rebuilt[t] += 3
        rebuilt[d.pair] += 2
        assert rebuilt == c
    assert len(set(ds)) == len(ds)


def test_all_decompositions_are_found() -> None:
    # 111222333m: three pungs or three chows; 444555m... as in the classic example.
    ds = regular_decompositions(counts("111222333m 789p 55s"))
    shapes = {(d.chows, d.pungs) for d in ds}
    assert ((0, 0, 0, 15), ()) in shapes
    assert ((15,), (0, 1, 2)) in shapes
    assert len(ds) == 2


def test_melds_reduce_the_sets_needed() -> None:
    assert is_regular(counts("123m 55s"))  # two melds declared elsewhere
    assert not is_regular(counts("123m 56s"))
    assert is_complete(counts("123m 55s"), melds=3)
    assert not is_complete(counts("123m 55s"), melds=2)


def test_honor_sets() -> None:
    assert is_regular(counts("EEE CCC 123m 456p 99s"))
    assert not is_regular(counts("EEE CC FF 123m 456p 9s"))


def test_seven_pairs() -> None:
    assert is_seven_pairs(counts("1133m 55p 77s EE CC FF"))
    assert is_seven_pairs(counts("1111m 55p 77s EE CC FF"))  # four equal tiles: two pairs
    assert not is_seven_pairs(counts("111m 355p 77s EE CC FF"))
    assert is_seven_shifted_pairs(counts("22334455667788p"))
    assert not is_seven_shifted_pairs(counts("22334455667799p"))


def test_thirteen_orphans() -> None:
    assert is_thirteen_orphans(counts("19m 19p 19s ESWNCFP 9s"))
    assert not is_thirteen_orphans(counts("19m 19p 19s ESWNCF 99s"))


def test_honors_and_knitted() -> None:
    assert honors_and_knitted(counts("147m 258p 369s ESWNC")) is not None
    assert honors_and_knitted(counts("147m 25p 36s ESWNCFP")) is not None
    assert honors_and_knitted(counts("147m 258p 369s ESWNN")) is None  # a pair
    assert honors_and_knitted(counts("147m 258p 358s ESWNC")) is None  # 5s and 8s


def test_knitted_straight_with_a_set_and_a_pair() -> None:
    splits = knitted_straight_splits(counts("147m 258p 369s 234m EE"))
    assert len(splits) == 1
    assert splits[0].rest.chows == (Tile.M2,) and splits[0].rest.pair == Tile.E
    assert not knitted_straight_splits(counts("147m 258p 368s 234m EE"))
    assert is_complete(counts("147m 258p 369s EE"), melds=1)


def test_nine_gates_is_read_from_the_tiles_before_the_win() -> None:
    assert is_nine_gates(counts("11123456789999m"), Tile.M9)
    assert is_nine_gates(counts("11123455678999m"), Tile.M5)
    assert not is_nine_gates(counts("11123455678999m"), Tile.M9)


@pytest.mark.parametrize(
    "text",
    [
        "123m 456p 789s EEE 11s",
        "1133m 55p 77s EE CC FF",
        "19m 19p 19s ESWNCFP 1m",
        "147m 258p 369s ESWNC",
        "147m 258p 369s 234m EE",
    ],
)
def test_is_complete_for_every_shape(text: str) -> None:
    assert is_complete(counts(text))


def test_is_complete_rejects() -> None:
    assert not is_complete(counts("123m 456p 789s EEE 12s"))
    assert not is_complete(counts("123m 456p 789s EEE 1s"))  # 13 tiles
