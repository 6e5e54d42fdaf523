"""The wall: seeded shuffles, dice and break point (docs/rules.md §1.1), the commitment."""

from collections import Counter

import pytest

from gbmj.game.wall import (
    DEAL_SIZE,
    FULL_SET,
    Wall,
    break_stack,
    commitment_of,
    deal_positions,
    second_roller,
    verify_commitment,
)
from gbmj.rules.hand import parse_tiles
from protocol.tiles import Tile


def test_a_seed_gives_the_same_wall_and_another_seed_another():
    a, b = Wall.from_seed(b"seed-1"), Wall.from_seed(b"seed-1")
    assert a == b and a.commitment == b.commitment
    c = Wall.from_seed(b"seed-2")
    assert c.order != a.order and c.salt != a.salt


def test_the_wall_holds_all_144_tiles_once():
    wall = Wall.from_seed(b"x")
    assert len(wall.order) == 144
    assert Counter(wall.order) == Counter(FULL_SET)
    assert sum(1 for t in wall.order if t.is_flower) == 8


def test_a_wall_with_a_missing_tile_is_refused():
    order = list(Wall.from_seed(b"x").order)
    order[0] = order[1] if order[1] != order[0] else order[2]
    with pytest.raises(ValueError):
        Wall(tuple(order), ((1, 1), (1, 1)), b"")


def test_the_dealer_rolling_four_makes_the_left_seat_roll_second():
    # docs/rules.md §1.1: a first roll of 4 makes the dealer's left seat the second roller
    assert second_roller(dealer=0, first_roll=4) == 3
    assert second_roller(dealer=2, first_roll=4) == 1
    assert second_roller(dealer=1, first_roll=5) == 1  # 5 comes round to the dealer
    assert second_roller(dealer=0, first_roll=2) == 1


def test_a_sum_of_15_starts_at_the_16th_stack_of_the_second_rollers_wall():
    # Dealer 0 rolls 4 (2+2): the second roller is seat 3, whose wall starts at stack
    # ((0 - 3) % 4) * 18 = 18. It rolls 11: the sum 15 -> drawing starts at its 16th stack.
    dice = ((2, 2), (5, 6))
    assert break_stack(0, dice) == 18 + 15


def test_a_sum_of_22_counts_on_into_the_left_seats_wall():
    # docs/rules.md §1.1: a sum of 22 counts past the second roller's wall, 4 stacks into
    # the next, and drawing starts at the 5th
    dice = ((4, 6), (6, 6))  # 10: dealer 0 -> seat 1 rolls second; 10 + 12 = 22
    roller = second_roller(0, 10)
    assert roller == 1
    left_of_roller_wall = ((0 - (roller - 1)) % 4) * 18  # the wall of seat 0
    assert break_stack(0, dice) == left_of_roller_wall + 4  # its 5th stack (0-based 4)


def test_the_draw_sequence_starts_at_the_break():
    wall = Wall.from_seed(b"break")
    seq = wall.draw_sequence()
    start = 2 * wall.break_stack
    assert seq[0] == wall.order[start] and seq[-1] == wall.order[start - 1]
    assert Counter(seq) == Counter(wall.order)


def test_the_deal_gives_the_dealer_14_with_the_jump_and_the_others_13():
    positions = [deal_positions(o) for o in range(4)]
    assert [len(p) for p in positions] == [14, 13, 13, 13]
    flat = sorted(p for ps in positions for p in ps)
    assert flat == list(range(DEAL_SIZE))
    assert positions[0][-2:] == (48, 52)  # takes one, skips a stack, takes another
    assert [p[-1] for p in positions[1:]] == [49, 50, 51]


def test_a_scripted_wall_deals_the_given_hands_and_draws():
    hands = [
        "123456789m 1234p E",
        "123456789s 11p CC",
        "999p 888p 777p 666p S",
        "WWW NNN FFF PPP 9m",
    ]
    wall = Wall.scripted(hands, draws="5p 5s", back="f1 E", dealer=0)
    seq = wall.draw_sequence()
    for seat, hand in enumerate(hands):
        assert sorted(seq[p] for p in deal_positions(seat)) == sorted(parse_tiles(hand))
    assert seq[DEAL_SIZE : DEAL_SIZE + 2] == (Tile.P5, Tile.S5)
    assert seq[-1] == Tile.F1 and seq[-2] == Tile.E


def test_the_commitment_verifies_and_catches_a_changed_wall_or_salt():
    wall = Wall.from_seed(b"commit")
    assert verify_commitment(wall.commitment, wall.order, wall.salt)
    assert verify_commitment(wall.commitment, wall.order, wall.salt.hex())
    swapped = list(wall.order)
    i = next(i for i in range(143) if swapped[i] != swapped[i + 1])
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    assert not verify_commitment(wall.commitment, swapped, wall.salt)
    assert not verify_commitment(wall.commitment, wall.order, b"\0" * 16)
    assert commitment_of(wall.order, wall.salt) == wall.commitment


def test_a_wall_survives_its_plain_form():
    wall = Wall.from_seed(b"plain", dealer=2)
    assert Wall.from_dict(wall.to_dict()) == wall
