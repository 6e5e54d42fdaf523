"""Plain data read back (a hand's log, a wall, a match): what is not of the shape
``to_dict`` writes is refused with ``ValueError`` and builds nothing."""

from __future__ import annotations

import pytest

from gbmj.game.actions import from_plain, parse_action
from gbmj.game.hand_state import HandState
from gbmj.game.match import Match
from gbmj.game.wall import Wall


def _hand_data() -> dict:
    return HandState(Wall.from_seed(b"plain input")).to_dict()


@pytest.mark.parametrize(
    "dice", [[[1, 2]], [[1, 2], [3]], [[1, 2], [3, "4"]], "1234", None, [[1, 2], [3, 4, 5]]]
)
def test_a_wall_with_bad_dice_is_refused(dice: object) -> None:
    data = Wall.from_seed(b"dice").to_dict()
    with pytest.raises(ValueError, match="dice"):
        Wall.from_dict({**data, "dice": dice})


@pytest.mark.parametrize("order", [None, "abc", [0] * 144, [99] * 144])
def test_a_wall_with_a_bad_order_is_refused(order: object) -> None:
    data = Wall.from_seed(b"order").to_dict()
    with pytest.raises(ValueError):
        Wall.from_dict({**data, "order": order})


@pytest.mark.parametrize(
    "log",
    [None, [[0]], [["0", {"kind": "pass"}]], [[0, "pass"]], [[0, {"kind": 5}]]],
)
def test_a_hand_with_a_bad_log_is_refused(log: object) -> None:
    with pytest.raises(ValueError):
        HandState.from_dict({**_hand_data(), "log": log})


def test_an_action_of_another_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="no action"):
        from_plain({"kind": "discard", "tile": "5m"})
    assert from_plain({"kind": "discard", "tile": 4}) == parse_action("discard 5m")


def test_a_match_with_bad_fields_is_refused() -> None:
    data = Match(b"seed").to_dict()
    for key, bad in (("seed", 5), ("rounds", "4"), ("booked", None), ("hands", 3)):
        with pytest.raises(ValueError):
            Match.from_dict({**data, key: bad})
