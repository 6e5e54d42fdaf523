"""Waits (gbmj/rules/waits.py)."""

from __future__ import annotations

import pytest

from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand, parse_tiles
from gbmj.rules.shapes import counts_of, is_complete
from gbmj.rules.waits import waits
from protocol.tiles import PLAYING_TILES


def notation(tiles) -> str:
    return " ".join(t.notation for t in tiles)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("123m 456p 789s EEE 1s", "1s"),  # single wait
        ("123m 456p 789s EE 15s", ""),  # not ready
        ("123m 456p EE 23456s", "1s 4s 7s"),  # three-sided
        ("1112345678999m", "1m 2m 3m 4m 5m 6m 7m 8m 9m"),  # nine gates
        ("19m 19p 19s ESWNCFP", "1m 9m 1p 9p 1s 9s E S W N C F P"),  # thirteen-way
        ("19m 19p 19s ESWNCF 9s", "P"),
        ("1133m 55p 77s EE CC F", "F"),  # seven pairs
        ("147m 258p 369s EWNC", "S F P"),  # honors and knitted
        ("147m 258p 369s 23m EE", "1m 4m"),  # knitted straight + 123m / 234m
        ("4556m 123p 789s EEE", "5m"),  # closed
        ("45567m 123p 789s EE", "3m 6m"),  # 45567 waiting 6: not only 6
        ("12m 345p 789s EEE 55s", "3m"),  # edge
        ("12345m 789s EEE 55s", "3m 6m"),  # 12345 waiting 3: not only 3
    ],
)
def test_waits(hand: str, expected: str) -> None:
    assert notation(waits(Hand.parse(hand))) == expected


def test_melds_are_fixed_sets() -> None:
    assert notation(waits(Hand.parse("45m 99s [123p<1] [EEE<2] [789s<1]"))) == "3m 6m"


def test_a_tile_held_four_times_is_no_wait_but_still_part_of_the_shape() -> None:
    hand = Hand.parse("4m 555m 6m 44s 5555s 66s")
    assert notation(waits(hand)) == "5m"
    assert notation(waits(hand, by_shape=True)) == "5m 5s"


def test_four_concealed_honours_wait_on_a_fifth_by_shape() -> None:
    # NNNNN is a pung and a pair by shape, as in the suits (the fifth copy does not exist).
    hand = Hand.parse("1234444m56m NNNN")
    assert notation(waits(hand, by_shape=True)) == "N"
    assert notation(waits(hand)) == ""


def test_each_wait_completes_the_hand_and_nothing_else_does() -> None:
    for text in (
        "22344556m 678p 99s",
        "1113456789m 22p 3p",
        "23456m 333p 567s 88s",
        "147m 258p 369s 23m EE",  # knitted straight: the set's waits
        "147m 258p 36s 555s 88m",  # knitted straight: the straight's missing tile
        "1m4m7m8m9m 3p6p9p 2s5s8s WW",  # both at once
        "1m4m7m 2p5p8p 3s6s EE [777s<1]",
        "1m4m7m 2p5p8p 3s6s9s E [777s<1]",
    ):
        hand = Hand.parse(text)
        found = set(waits(hand))
        for t in PLAYING_TILES:
            c = counts_of(hand.with_tile(t).concealed)
            if max(c) > 4:
                continue
            assert (t in found) == is_complete(c, len(hand.melds)), (text, t)


def test_a_hand_of_the_wrong_size_has_no_waits() -> None:
    with pytest.raises(HandError) as e:
        waits(Hand(tuple(parse_tiles("123m 456p"))))
    assert e.value.code == "wrong_tile_count"
