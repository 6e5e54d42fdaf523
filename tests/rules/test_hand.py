"""The compact hand notation and the validation of melds and hands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand, Meld, parse_tiles
from protocol.tiles import PLAYING_TILES, Tile
from protocol.vocabulary import MeldKind

T = Tile.parse


# -- parsing ------------------------------------------------------------------------------
def test_parse_tiles_shares_the_suit_letter() -> None:
    assert parse_tiles("123m 55p EEE f1") == [
        T("1m"), T("2m"), T("3m"), T("5p"), T("5p"), T("E"), T("E"), T("E"), T("f1"),
    ]  # fmt: skip
    assert parse_tiles("19s CFP") == [T("1s"), T("9s"), T("C"), T("F"), T("P")]
    assert parse_tiles("") == []


def test_parse_a_hand_with_every_kind_of_meld() -> None:
    hand = Hand.parse("78s CC [123m<1] [555p<2] [EEEE+<2] [9999s]")
    assert hand.concealed == (T("7s"), T("8s"), T("C"), T("C"))
    chow, pung, added, concealed = hand.melds
    assert chow == Meld(MeldKind.CHOW, T("1m"), claimed_from=1)
    assert chow.tiles == (T("1m"), T("2m"), T("3m"))
    assert pung == Meld(MeldKind.PUNG, T("5p"), claimed_from=2)
    assert added == Meld(MeldKind.KONG, T("E"), claimed_from=2, added=True)
    assert added.tiles == (T("E"),) * 4
    assert concealed == Meld(MeldKind.KONG, T("9s"), concealed=True)
    assert concealed.is_kong and not pung.is_kong
    # Kongs count as three tiles: 4 concealed + 4 melds = 16.
    assert hand.size == 16


def test_concealed_tiles_are_kept_sorted() -> None:
    assert Hand.parse("E 9s 1m C 5p") == Hand.parse("1m 5p 9s E C")
    assert str(Hand.parse("E 9s 1m C 5p 3m")) == "13m 5p 9s EC"


def test_counts_and_with_tile() -> None:
    hand = Hand.parse("113m E [555p<2]")
    counts = hand.counts()
    assert len(counts) == 34
    assert counts[T("1m")] == 2 and counts[T("3m")] == 1 and counts[T("E")] == 1
    assert counts[T("5p")] == 0  # melds are not concealed tiles
    assert hand.with_tile(T("2m")) == Hand.parse("1123m E [555p<2]")
    assert sorted(hand.all_tiles()) == sorted(parse_tiles("113m E 555p"))


@pytest.mark.parametrize(
    "text",
    [
        "123m 456p 1789s EEE",  # the 1s joins its suit group
        "1112345678999m",
        "19m 19p 19s ESWNCFP",
        "78s CC [123m<1] [555p<2] [EEEE+<2] [9999s]",
        "C [EEEE<3] [SSS<1] [789p<1] [1111m]",
    ],
)
def test_str_round_trip(text: str) -> None:
    hand = Hand.parse(text)
    assert str(hand) == text
    assert Hand.parse(str(hand)) == hand


def _meld(kind: MeldKind, tile: int, claimed_from: int) -> Meld:
    return Meld(kind, Tile(tile), concealed=claimed_from == 0, claimed_from=claimed_from)


melds = st.one_of(
    st.builds(_meld, st.just(MeldKind.CHOW), st.sampled_from(
        [s * 9 + k for s in range(3) for k in range(7)]), st.just(1)),
    st.builds(_meld, st.just(MeldKind.PUNG), st.integers(0, 33), st.integers(1, 3)),
    st.builds(_meld, st.just(MeldKind.KONG), st.integers(0, 33), st.integers(0, 3)),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PLAYING_TILES), max_size=14), st.lists(melds, max_size=4))
def test_random_hands_round_trip(tiles: list[Tile], hand_melds: list[Meld]) -> None:
    try:
        hand = Hand(tuple(tiles), tuple(hand_melds))
    except HandError as err:
        assert err.code == "too_many_copies"
        return
    assert Hand.parse(str(hand)) == hand


# -- bad input: each raises HandError with its code ----------------------------------------
@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("11111m", "too_many_copies"),  # a fifth copy
        ("1m [1111m]", "too_many_copies"),  # the fifth copy in a meld
        ("EE [EEE<1]", "too_many_copies"),
        ("123m 5x", "unknown_tile"),
        ("0m", "unknown_tile"),
        ("123q", "unknown_tile"),
        ("Z", "unknown_tile"),
        ("f9", "unknown_tile"),
        ("f1 123m", "unknown_tile"),  # flowers are not part of a hand
        ("[789s<1", "unknown_tile"),  # an unclosed bracket
        ("[12m<1]", "bad_meld"),  # two tiles
        ("[124m<1]", "bad_meld"),  # not a run
        ("[1p2m3s<1]", "bad_meld"),  # across suits
        ("[ESW<1]", "bad_meld"),  # honors never chow
        ("[123m]", "bad_meld"),  # only a kong can be concealed
        ("[555p]", "bad_meld"),
        ("[555p<4]", "bad_meld"),  # no seat 4
        ("[123m<2]", "bad_meld"),  # a chow only from the left seat
        ("[EEE+<1]", "bad_meld"),  # only a kong is added
        ("[11111m<1]", "bad_meld"),
        ("[EEE<1] [SSS<1] [WWW<1] [NNN<1] [CCC<1]", "wrong_tile_count"),  # five melds
    ],
)
def test_bad_hand_text(text: str, code: str) -> None:
    with pytest.raises(HandError) as err:
        Hand.parse(text)
    assert err.value.code == code
    assert str(err.value)  # a message in words


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"kind": MeldKind.CHOW, "tile": Tile.M8, "claimed_from": 1}, "no 8-9-10 chow"),
        ({"kind": MeldKind.CHOW, "tile": Tile.E, "claimed_from": 1}, "honor chow"),
        ({"kind": MeldKind.CHOW, "tile": Tile.M1, "claimed_from": 3}, "chow from the right"),
        ({"kind": MeldKind.PUNG, "tile": Tile.M1, "concealed": True}, "concealed pung"),
        ({"kind": MeldKind.PUNG, "tile": Tile.M1, "claimed_from": 0}, "exposed from nobody"),
        (
            {"kind": MeldKind.KONG, "tile": Tile.M1, "concealed": True, "claimed_from": 2},
            "concealed kong claimed from a seat",
        ),
        ({"kind": MeldKind.PUNG, "tile": Tile.M1, "claimed_from": 1, "added": True}, "added"),
        ({"kind": MeldKind.PUNG, "tile": Tile.F1, "claimed_from": 1}, "flower pung"),
        (
            {"kind": MeldKind.PUNG, "tile": Tile.M1, "claimed_from": 1, "claimed_tile": Tile.M2},
            "claimed tile not in the meld",
        ),
    ],
)
def test_bad_meld_values(kwargs: dict, why: str) -> None:
    with pytest.raises(HandError) as err:
        Meld(**kwargs)
    assert err.value.code == "bad_meld", why


def test_good_meld_values() -> None:
    chow = Meld(MeldKind.CHOW, Tile.P7, claimed_from=1, claimed_tile=Tile.P8)
    assert chow.tiles == (Tile.P7, Tile.P8, Tile.P9)
    assert str(chow) == "[789p<1]"
    assert str(Meld(MeldKind.KONG, Tile.C, concealed=True)) == "[CCCC]"


def test_hand_errors_are_value_errors() -> None:
    """Callers that only know ValueError still catch bad hands."""
    with pytest.raises(ValueError, match="more than four"):
        Hand((Tile.M1,) * 5)
