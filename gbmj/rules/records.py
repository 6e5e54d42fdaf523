"""Scored-hand records (tests/fixtures/README.md) <-> (Hand, WinContext), in one place.

The CLI (``gbmj-fan --jsonl``), the fixture test and the speed bench all read records
through ``record_input`` and write results with ``score_result`` / ``error_result``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from protocol.tiles import Tile
from protocol.vocabulary import MeldKind

from .errors import HandError
from .hand import Hand, Meld
from .scoring import Score, WinContext, score_hand

# Keyed by any JSON value a record may hold (an unhashable one raises TypeError).
_KINDS: dict[object, MeldKind] = {
    "chow": MeldKind.CHOW,
    "pung": MeldKind.PUNG,
    "kong": MeldKind.KONG,
}


def _items(value: object) -> Iterable[object]:
    """A JSON array's items (TypeError for anything else: not a record)."""
    if not isinstance(value, list | tuple):
        raise TypeError(f"{value!r} is not a list")
    return value


def _int(value: object) -> int:
    """``int(value)`` for the JSON values it reads (TypeError for the others)."""
    if not isinstance(value, int | float | str):
        raise TypeError(f"{value!r} is not a number")
    return int(value)


def _tile(text: object) -> Tile:
    try:
        return Tile.parse(str(text))
    except ValueError:
        raise HandError("unknown_tile", f"unknown tile {text!r}") from None


def _meld(data: object) -> Meld:
    if not isinstance(data, Mapping):
        raise TypeError(f"a meld is an object, not {data!r}")
    kind = _KINDS.get(data.get("type", ""))
    if kind is None:
        raise HandError("bad_meld", f"unknown meld type {data.get('type')!r}")
    tiles = sorted(_tile(t) for t in _items(data.get("tiles", ())))
    size = 4 if kind is MeldKind.KONG else 3
    if len(tiles) != size:
        raise HandError("bad_meld", f"a {kind} has {size} tiles")
    if kind is MeldKind.CHOW:
        if [t - tiles[0] for t in tiles] != [0, 1, 2] or not tiles[0].is_suited:
            raise HandError("bad_meld", f"{tiles} is not a chow")
    elif len(set(tiles)) != 1:
        raise HandError("bad_meld", f"{tiles} is not a {kind}")
    claimed = data.get("claimed_tile")
    return Meld(
        kind,
        tiles[0],
        concealed=bool(data.get("concealed", False)),
        claimed_from=_int(data.get("claimed_from") or 0),
        claimed_tile=_tile(claimed) if claimed else None,
        added=bool(data.get("added", False)),
    )


def _wind(text: object) -> Tile:
    tile = _tile(text)
    if not tile.is_wind:
        raise HandError("bad_context", f"{text!r} is not a wind")
    return tile


def record_hand(record: Mapping[str, object]) -> Hand:
    """A record's hand (``concealed`` and ``melds``; before the winning tile, if any)."""
    return Hand(
        tuple(_tile(t) for t in _items(record.get("concealed", ()))),
        tuple(_meld(m) for m in _items(record.get("melds", ()))),
    )


def record_seat(record: Mapping[str, object]) -> tuple[Tile, Tile, int]:
    """A record's seat wind, prevailing wind and flowers."""
    if "prevalent_wind" in record:  # the key's old name: refused, not read as East
        raise HandError("bad_context", "prevalent_wind is named prevailing_wind now")
    return (
        _wind(record.get("seat_wind", "E")),
        _wind(record.get("prevailing_wind", "E")),
        _int(record.get("flowers", 0)),
    )


def record_input(record: Mapping[str, object]) -> tuple[Hand, WinContext]:
    """The hand (before the winning tile) and the win context of a record."""
    hand = record_hand(record)
    seat_wind, prevailing_wind, flowers = record_seat(record)
    context = WinContext(
        win_tile=_tile(record.get("win_tile")),
        self_drawn=bool(record.get("self_drawn", False)),
        fourth_tile=bool(record.get("fourth_tile", False)),
        kong_related=bool(record.get("kong_related", False)),
        last_tile=bool(record.get("last_tile", False)),
        seat_wind=seat_wind,
        prevailing_wind=prevailing_wind,
        flowers=flowers,
    )
    return hand, context


def score_json(score: Score) -> dict[str, object]:
    """A score as plain JSON data."""
    return {
        "total": score.total,
        "total_without_flowers": score.total_without_flowers,
        "meets_8": score.meets_8,
        "fans": [
            {
                "name_zh": fc.fan.name_zh,
                "name_en": fc.fan.name_en,
                "points": fc.fan.points,
                "count": fc.count,
            }
            for fc in score.fans
        ],
    }


def score_record(record: Mapping[str, object]) -> dict[str, object]:
    """The result line of one record: ``valid`` with the score, or ``error``."""
    rid = record.get("id")
    try:
        hand, context = record_input(record)
        score = score_hand(hand, context)
    except HandError as e:
        return invalid_result(rid, e.code, str(e))
    except (TypeError, ValueError, AttributeError) as e:  # not even a record
        return invalid_result(rid, "bad_record", str(e))
    return {"id": rid, "valid": True, "error": None, **score_json(score)}


def invalid_result(rid: object, code: str, message: str) -> dict[str, object]:
    """The result line of a record that gets no score."""
    return {
        "id": rid,
        "valid": False,
        "error": code,
        "message": message,
        "total": None,
        "total_without_flowers": None,
        "meets_8": False,
        "fans": [],
    }
