"""Events: every change at a table, each with a form per viewer.

The engine emits the protocol's event records (``protocol.messages.EventBody``: one
class per kind of docs/vocabulary.md); the hiding rules are the game's and live here.
``for_viewer(event, viewer)`` (a seat 0-3 or ``SPECTATOR``) is what that viewer may be
sent: the deal, draws and concealed kongs of another seat lose their tiles (the deal
keeps a count). ``meld_view`` is a rules meld in the records' form. The plain-data
helpers (``Plain``, ``to_plain``...) serve the engine's other values (walls, logs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum, IntEnum
from typing import TypeAlias, TypeVar

import msgspec

from protocol import messages as m
from protocol.tiles import Tile

from ..rules.hand import Meld

T = TypeVar("T")
U = TypeVar("U")

SPECTATOR = -1
"""The viewer who sits nowhere: sees only what the table shows in public."""


# Plain data: what ``to_dict`` gives and the wire and the logs carry.
Plain: TypeAlias = "bool | int | str | list[Plain] | dict[str, Plain] | None"


def to_plain(value: object) -> Plain:
    """Ints, strs, bools, None, lists and dicts only: tiles become codes, bytes hex."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, IntEnum):
        return int(value)
    if isinstance(value, Enum):
        return to_plain(value.value)
    if isinstance(value, int | str):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Meld):
        return {
            "kind": value.kind.value,
            "tile": int(value.tile),
            "concealed": value.concealed,
            "claimed_from": value.claimed_from,
            "claimed_tile": None if value.claimed_tile is None else int(value.claimed_tile),
            "added": value.added,
        }
    if hasattr(value, "_asdict"):  # a named tuple (views)
        return plain_fields(value)
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, msgspec.Struct) or dataclasses.is_dataclass(value):
        return plain_fields(value)
    raise TypeError(f"no plain form for {value!r}")


def plain_int(data: Mapping[str, Plain], key: str) -> int:
    """``data[key]``, which must be an int (``ValueError`` if not)."""
    value = data[key]
    if not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, not {value!r}")
    return value


def plain_str(data: Mapping[str, Plain], key: str) -> str:
    """``data[key]``, which must be a str (``ValueError`` if not)."""
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string, not {value!r}")
    return value


def plain_list(value: Plain, what: str) -> list[Plain] | tuple[Plain, ...]:
    """``value``, which must be a list (a tuple too: plain data read back may hold them)."""
    if not isinstance(value, list | tuple):
        raise ValueError(f"{what} must be a list, not {value!r}")
    return value


def plain_dict(value: Plain, what: str) -> dict[str, Plain]:
    """``value``, which must be a dict (``ValueError`` if not)."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a mapping, not {value!r}")
    return value


def plain_fields(value: object) -> dict[str, Plain]:
    """The fields of a named tuple, a record or a dataclass instance in plain form, by
    name (every field, absent ones as None)."""
    asdict = getattr(value, "_asdict", None)
    if asdict is not None:
        return {k: to_plain(v) for k, v in asdict().items()}
    if isinstance(value, msgspec.Struct):
        return {k: to_plain(getattr(value, k)) for k in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"{value!r} has no fields")


def for_viewer(event: m.EventBody, viewer: int) -> m.EventBody:
    """``event`` as ``viewer`` may see it: another seat's deal keeps only its count, its
    draws and concealed kongs lose their tile; public events are the same for all."""
    if isinstance(event, m.Draw):
        if viewer == event.seat or event.tile is None:
            return event
        return _HIDDEN_DRAWS[event.seat, event.replacement]
    if isinstance(event, m.Deal):
        if viewer == event.seat or event.tiles is None:
            return event
        return m.Deal(seat=event.seat, count=event.count)
    if isinstance(event, m.ConcealedKong):
        if viewer == event.seat or event.tile is None:
            return event
        return _HIDDEN_KONGS[event.seat]
    return event


# The hidden forms are few and immutable: built once, not per event and viewer.
_HIDDEN_DRAWS = {
    (s, r): m.Draw(seat=s, tile=None, replacement=r) for s in range(4) for r in (False, True)
}
_HIDDEN_KONGS = {s: m.ConcealedKong(seat=s, tile=None) for s in range(4)}


def meld_view(meld: Meld) -> m.MeldView:
    """A rules meld as the protocol's records show it (revealed: a concealed kong too)."""
    entry = _MELD_VIEWS.get(id(meld))
    if entry is not None and entry[0] is meld:
        return entry[1]
    view = m.MeldView(
        kind=meld.kind,
        tile=meld.tile,
        concealed=meld.concealed,
        claimed_from=meld.claimed_from,
        claimed_tile=meld.claimed_tile,
        added=meld.added,
    )
    _remember(_MELD_VIEWS, meld, view)
    _remember(_MELDS, view, meld)
    return view


def meld_of(view: m.MeldView) -> Meld:
    """The rules meld a ``MeldView`` shows (``HandError`` if it is none)."""
    entry = _MELDS.get(id(view))
    if entry is not None and entry[0] is view:
        return entry[1]
    meld = Meld(
        view.kind,
        Tile(view.tile),
        view.concealed,
        view.claimed_from,
        None if view.claimed_tile is None else Tile(view.claimed_tile),
        view.added,
    )
    _remember(_MELDS, view, meld)
    return meld


# Each way, by the object converted: a hand's melds are converted again at every step
# of its views and bots (the values' own hashes, of their enums, cost more than this
# lookup). Each entry holds its object, so an id is never another's while it is kept.
_MELD_VIEWS: dict[int, tuple[Meld, m.MeldView]] = {}
_MELDS: dict[int, tuple[m.MeldView, Meld]] = {}
_MELD_LIMIT = 4096  # entries each: a long-running server keeps memory bounded


def _remember(memo: dict[int, tuple[T, U]], key: T, value: U) -> None:
    if len(memo) >= _MELD_LIMIT:
        memo.clear()
    memo[id(key)] = (key, value)
