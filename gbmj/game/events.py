"""Events: every change at a table, each with a form per viewer.

``event.for_viewer(viewer)`` (a seat 0-3 or ``SPECTATOR``) is what that viewer may be
sent: the deal, draws and concealed kongs of another seat lose their tiles (the deal
keeps a count). ``event.to_dict()`` is plain data (ints, strs, lists) for the wire.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import ClassVar, TypeAlias

from protocol.tiles import Tile
from protocol.vocabulary import EventKind

from ..rules.hand import Meld

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
    if dataclasses.is_dataclass(value):
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
    """The fields of a named tuple or a dataclass instance in plain form, by name."""
    asdict = getattr(value, "_asdict", None)
    if asdict is not None:
        return {k: to_plain(v) for k, v in asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"{value!r} has no fields")


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def for_viewer(self, viewer: int) -> Event:
        """This event as ``viewer`` may see it (public events are the same for all)."""
        return self

    def to_dict(self) -> dict[str, Plain]:
        """Plain data, the wire form of the protocol's event: a field with nothing to
        say (a hidden tile, no discarder) is left out."""
        d: dict[str, Plain] = {"kind": self.kind}
        d.update((k, v) for k, v in plain_fields(self).items() if v is not None)
        return d


@dataclass(frozen=True, slots=True)
class HandStart(Event):
    kind: ClassVar[EventKind] = EventKind.HAND_START
    round_number: int
    hand_number: int
    dealer: int
    seat_winds: tuple[Tile, ...]
    prevailing_wind: Tile
    dice: tuple[tuple[int, int], tuple[int, int]]
    second_roller: int
    break_stack: int
    commitment: str


@dataclass(frozen=True, slots=True)
class Deal(Event):
    kind: ClassVar[EventKind] = EventKind.DEAL
    seat: int
    tiles: tuple[Tile, ...] | None
    count: int

    def for_viewer(self, viewer: int) -> Event:
        return self if viewer == self.seat else Deal(self.seat, None, self.count)


@dataclass(frozen=True, slots=True)
class Flower(Event):
    kind: ClassVar[EventKind] = EventKind.FLOWER
    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Draw(Event):
    kind: ClassVar[EventKind] = EventKind.DRAW
    seat: int
    tile: Tile | None
    replacement: bool

    def for_viewer(self, viewer: int) -> Event:
        if viewer == self.seat:
            return self
        hidden = _HIDDEN_DRAWS.get((self.seat, self.replacement))
        return hidden if hidden is not None else Draw(self.seat, None, self.replacement)


# The hidden forms are few and immutable: built once, not per event and viewer.
_HIDDEN_DRAWS = {(s, r): Draw(s, None, r) for s in range(4) for r in (False, True)}


@dataclass(frozen=True, slots=True)
class Discard(Event):
    kind: ClassVar[EventKind] = EventKind.DISCARD
    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Chow(Event):
    kind: ClassVar[EventKind] = EventKind.CHOW
    seat: int
    tiles: tuple[Tile, ...]
    claimed_tile: Tile
    from_seat: int


@dataclass(frozen=True, slots=True)
class Pung(Event):
    kind: ClassVar[EventKind] = EventKind.PUNG
    seat: int
    tiles: tuple[Tile, ...]
    claimed_tile: Tile
    from_seat: int


@dataclass(frozen=True, slots=True)
class ExposedKong(Event):
    kind: ClassVar[EventKind] = EventKind.EXPOSED_KONG
    seat: int
    tiles: tuple[Tile, ...]
    claimed_tile: Tile
    from_seat: int


@dataclass(frozen=True, slots=True)
class ConcealedKong(Event):
    kind: ClassVar[EventKind] = EventKind.CONCEALED_KONG
    seat: int
    tile: Tile | None

    def for_viewer(self, viewer: int) -> Event:
        if viewer == self.seat:
            return self
        hidden = _HIDDEN_KONGS.get(self.seat)
        return hidden if hidden is not None else ConcealedKong(self.seat, None)


_HIDDEN_KONGS = {s: ConcealedKong(s, None) for s in range(4)}


@dataclass(frozen=True, slots=True)
class AddedKong(Event):
    kind: ClassVar[EventKind] = EventKind.ADDED_KONG
    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Win(Event):
    """``fans`` are (fan id, count) pairs as the calculator listed them."""

    kind: ClassVar[EventKind] = EventKind.WIN
    seat: int
    from_seat: int | None
    win_tile: Tile
    fans: tuple[tuple[int, int], ...]
    total: int
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ExhaustiveDraw(Event):
    kind: ClassVar[EventKind] = EventKind.EXHAUSTIVE_DRAW


@dataclass(frozen=True, slots=True)
class Escape(Event):
    kind: ClassVar[EventKind] = EventKind.ESCAPE
    seat: int


@dataclass(frozen=True, slots=True)
class HandEnd(Event):
    """Everything revealed: each seat's concealed tiles and melds, the wall and salt
    (sealed at a duplicate table: ``gbmj.game.duplicate.sealed_end``)."""

    kind: ClassVar[EventKind] = EventKind.HAND_END
    outcome: str
    concealed: tuple[tuple[Tile, ...], ...]
    melds: tuple[tuple[Meld | None, ...], ...]
    wall_order: tuple[Tile, ...] | None
    salt: bytes | None
    commitment: str
    points: tuple[int, ...]
