"""Shanten over every winning shape, useful tiles, and agreement with shapes and waits."""

from __future__ import annotations

import importlib
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbmj.rules import shanten as shanten_module
from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand, Meld
from gbmj.rules.shanten import shanten, useful_tiles
from protocol.tiles import PLAYING_TILES, Tile
from protocol.vocabulary import MeldKind

WALL = [t for t in PLAYING_TILES for _ in range(4)]


def sh(text: str) -> int:
    return shanten(Hand.parse(text))


def useful(text: str) -> set[str]:
    return {t.notation for t in useful_tiles(Hand.parse(text))}


# -- four sets and a pair ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("123m 456p 789s EEE 11s", -1),
        ("123m 456p 789s EEE 1s", 0),  # single wait
        ("123m 456p 789s EE 11s", 0),  # two pairs: either becomes the pung
        ("123m 456p 78s EEE 11s", 0),  # open wait 6s/9s
        ("123m 456p 79s EEE 11s", 0),  # closed wait 8s
        ("123m 456p 12s EEE 11s", 0),  # edge wait 3s
        ("123m 456p 19s EEE 55s", 1),
        ("123m 456p 19s EEE 11s", 0),  # 111s + a single 9s
        ("123m 456p 19s EEE 5s 8m", 2),
        ("1112345678999m", 0),  # nine gates: ready on every character
        ("11123456789999m", -1),
        ("1m 4m 7m 1p 5p 9p 2s 6s E S W C C", 4),
        ("1m 5m 9m 3p 7p 2s 6s E S W N C F", 4),  # knitted 1m 3p 2s + six honors
    ],
)
def test_regular_shape(hand: str, expected: int) -> None:
    assert sh(hand) == expected


def test_melds_count_as_done_sets() -> None:
    assert sh("[EEE<1] [SSS<2] [WWW<3] [NNN<1] C") == 0
    assert sh("[EEE<1] [SSS<2] [WWW<3] [NNN<1] CC") == -1
    assert sh("[123m<1] [456m<1] 789m 12p 5s 9s") == 1
    # A kong is one set although it holds four tiles.
    assert sh("[1111m] [2222m] [3333m] 123p 4p") == 0
    assert sh("[1111m] [2222m] [3333m] [EEEE<2] 5p") == 0


def test_fourteen_tiles_count_as_the_best_discard() -> None:
    assert sh("123m 456p 789s EEE 1s 9p") == 0
    assert sh("123m 456p 789s EEE 19s") == 0
    assert sh("123m 456p 19s EEE 55s 9m") == 1


# -- the special shapes -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("11m 22m 33p 44p 55s 66s 77s", -1),
        ("11m 22m 33p 44p 55s 66s 7s", 0),
        ("11m 22m 33p 44p 55s 6s 7s 9s", 1),
        # Four of a kind are two pairs in Chinese Official rules.
        ("1111m 33p 44p 55s 66s 77s", -1),
        ("1111m 33p 44p 55s 66s 7s", 0),
    ],
)
def test_seven_pairs(hand: str, expected: int) -> None:
    assert sh(hand) == expected


def test_seven_pairs_needs_no_melds() -> None:
    # Five pairs would be one from seven pairs, but with a meld only sets count.
    assert sh("[123m<1] 11p 55p 33s 77s 99s") == 2


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("19m 19p 19s ESWNCFP C", -1),
        ("19m 19p 19s ESWNCFP", 0),  # thirteen-sided wait
        ("19m 19p 19s ESWNCF C", 0),  # waits on P only
        ("19m 19p 19s ESWN 5m 5p 5s", 3),
    ],
)
def test_thirteen_orphans(hand: str, expected: int) -> None:
    assert sh(hand) == expected


def test_thirteen_orphans_waits() -> None:
    assert len(useful("19m 19p 19s ESWNCFP")) == 13
    assert useful("19m 19p 19s ESWNCF C") == {"P"}


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("147m 258p 36s ESWNCF", -1),  # 全不靠
        ("147m 25p 36s ESWNCFP", -1),  # 七星不靠
        ("147m 258p 369s ESWN", 0),
        ("14m 258p 369s ESWN 5m", 1),  # 5m does not knit with 147m
    ],
)
def test_honors_and_knitted(hand: str, expected: int) -> None:
    assert sh(hand) == expected


def test_honors_and_knitted_waits() -> None:
    # Nine knitted tiles and four winds: any of the three dragons completes it.
    assert useful("147m 258p 369s ESWN") == {"C", "F", "P"}


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("147m 258p 369s 555s 88m", -1),
        ("147m 258p 369s 555s 8m", 0),
        ("147m 258p 369s 55s 88m", 0),
        ("147m 258p 39s 555s 88m 1p", 0),  # waits on 6s, the missing knitted tile
        ("147p 258s 369m 123m 9p", 0),
    ],
)
def test_knitted_straight(hand: str, expected: int) -> None:
    assert sh(hand) == expected


def test_knitted_straight_with_a_meld() -> None:
    assert sh("147m 258p 369s 8m [555s<2]") == 0
    assert useful("147m 258p 369s 8m [555s<2]") == {"8m"}
    # Two melds leave no room for the nine knitted tiles.
    assert sh("147m 258p 3s [555s<2] [EEE<1]") > 0


def test_knitted_straight_waits() -> None:
    assert useful("147m 258p 39s 555s 88m") == {"6s"}


# -- copies already held ------------------------------------------------------------------
def test_a_wait_on_a_fifth_copy_is_not_ready() -> None:
    # 1111p looks like 111p + a single 1p wait, but no fifth 1p exists.
    hand = "123m 456m 789m 1111p"
    assert sh(hand) == 1
    # Any tile drawn becomes the single wait after discarding a 1p.
    assert len(useful(hand)) == 34 - 1


def test_copies_in_melds_count_as_held() -> None:
    # Waiting on 5p alone while the pung meld holds three and the hand one more.
    assert sh("123m 456m 789m 5p [555p<2]") == 1


def test_useful_tiles_lower_the_shanten() -> None:
    assert useful("123m 456p 78s EEE 11s") == {"6s", "9s"}
    assert useful("123m 456p 79s EEE 11s") == {"8s"}
    assert useful("1112345678999m") == {f"{r}m" for r in range(1, 10)}


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("hand", ["123m 456p 789s EE", "123m 456p 789s EEE 11s 9p"])
def test_wrong_size_raises(hand: str) -> None:
    with pytest.raises(HandError) as err:
        sh(hand)
    assert err.value.code == "wrong_tile_count"


def test_useful_tiles_wants_thirteen() -> None:
    with pytest.raises(HandError) as err:
        useful_tiles(Hand.parse("123m 456p 789s EEE 11s"))
    assert err.value.code == "wrong_tile_count"


# -- tables and properties ----------------------------------------------------------------
def _one_suit_wins() -> set[tuple[int, ...]]:
    """Every one-suit count vector made of four sets and a pair, built set by set."""
    sets = [(k, k, k) for k in range(9)] + [(k, k + 1, k + 2) for k in range(7)]
    found: set[tuple[int, ...]] = set()
    for chosen in itertools.combinations_with_replacement(range(len(sets)), 4):
        for pair in range(9):
            v = [0] * 9
            v[pair] += 2
            for i in chosen:
                for k in sets[i]:
                    v[k] += 1
            if max(v) <= 4:
                found.add(tuple(v))
    return found


@pytest.mark.slow
def test_suit_table_knows_the_complete_one_suit_hands() -> None:
    """Of the 118,800 one-suit 14-tile count vectors exactly 13,259 are four sets and a
    pair: the suit table behind the shanten count finds exactly those complete."""
    wins = _one_suit_wins()
    assert len(wins) == 13_259
    for v in wins:
        assert (4, 4, 1) in shanten_module.suit_options(v), v
    r = random.Random(2)
    vectors = [v for v in itertools.product(range(5), repeat=9) if sum(v) == 14]
    assert len(vectors) == 118_800
    for v in r.sample(vectors, 6000):
        assert ((4, 4, 1) in shanten_module.suit_options(v)) == (v in wins), v


def _hand(tiles: list[Tile]) -> Hand:
    return Hand(tuple(tiles))


hands13 = st.randoms(use_true_random=False).map(lambda r: _hand(r.sample(WALL, 13)))


def _near_ready(r: random.Random) -> Hand:
    """A 13-tile hand built from four sets and a pair minus one tile: often ready.

    Some sets become melds (chows, pungs, kongs both exposed and concealed)."""
    tiles: list[Tile] = []
    melds: list[Meld] = []
    counts = [0] * 34
    meld_chance = r.choice((0.0, 0.0, 0.3, 0.6))
    while len(tiles) + 3 * len(melds) < 12:
        kind = r.choice((MeldKind.CHOW, MeldKind.PUNG, MeldKind.PUNG, MeldKind.KONG))
        if kind is MeldKind.CHOW:
            base = r.choice([s * 9 + k for s in range(3) for k in range(7)])
            group = [base, base + 1, base + 2]
        else:
            base = r.randrange(34)
            group = [base] * (4 if kind is MeldKind.KONG else 3)
        if any(counts[t] + group.count(t) > 4 for t in group):
            continue
        for t in group:
            counts[t] += 1
        if kind is MeldKind.KONG:
            concealed = r.random() < 0.5
            melds.append(Meld(kind, Tile(base), concealed, 0 if concealed else 2))
        elif r.random() < meld_chance:
            melds.append(Meld(kind, Tile(base), claimed_from=1))
        else:
            tiles += [Tile(t) for t in group]
    pair = r.choice([t for t in range(34) if counts[t] <= 2])
    tiles += [Tile(pair)] * 2
    tiles.pop(r.randrange(len(tiles)))
    return Hand(tuple(tiles), tuple(melds))


near_ready = st.randoms(use_true_random=False).map(_near_ready)


@settings(max_examples=60, deadline=None)
@given(st.one_of(hands13, near_ready), st.randoms(use_true_random=False))
def test_fourteen_is_the_best_discard_and_a_draw_gains_at_most_one(
    hand: Hand, r: random.Random
) -> None:
    now = shanten(hand)
    assert now >= 0
    useful_now = set(useful_tiles(hand))
    held = list(hand.all_tiles())
    drawable = [t for t in PLAYING_TILES if held.count(t) < 4]
    for t in r.sample(drawable, 6):
        grown = hand.with_tile(t)
        after = shanten(grown)
        assert now - 1 <= after <= now
        discards = {
            shanten(Hand(grown.concealed[:i] + grown.concealed[i + 1 :], grown.melds))
            for i in range(len(grown.concealed))
        }
        assert after == (-1 if after == -1 else min(discards))
        assert (t in useful_now) == (after < now)


def _optional(module: str, name: str):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        pytest.skip(f"{module}.{name} does not exist yet")


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.randoms(use_true_random=False))
def test_complete_exactly_when_shapes_says_so(r: random.Random) -> None:
    is_complete = _optional("gbmj.rules.shapes", "is_complete")
    hand = _near_ready(r) if r.random() < 0.7 else _hand(r.sample(WALL, 13))
    for t in r.sample(PLAYING_TILES, 6):
        if sum(1 for x in hand.all_tiles() if x == t) < 4:
            grown = hand.with_tile(t)
            complete = is_complete(grown.counts(), len(grown.melds))
            assert (shanten(grown) == -1) == complete, str(grown)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.one_of(near_ready, hands13))
def test_ready_exactly_when_waits_are_found(hand: Hand) -> None:
    waits = _optional("gbmj.rules.waits", "waits")
    assert (shanten(hand) == 0) == bool(waits(hand)), str(hand)
    if shanten(hand) == 0:
        assert set(waits(hand)) == set(useful_tiles(hand)), str(hand)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.one_of(hands13, near_ready))
def test_useful_tiles_are_exactly_the_draws_that_lower_the_shanten(hand: Hand) -> None:
    """Every tile, against the definition (the fast path checks only some shapes)."""
    now = shanten(hand)
    useful_now = set(useful_tiles(hand))
    held = list(hand.all_tiles())
    for t in PLAYING_TILES:
        if held.count(t) < 4:
            assert (t in useful_now) == (shanten(hand.with_tile(t)) < now), (str(hand), t)
