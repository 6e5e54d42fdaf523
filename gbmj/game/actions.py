"""Actions: what a seat may choose (names from docs/vocabulary.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.tiles import Tile
from protocol.vocabulary import TILE_ACTIONS, ActionKind

if TYPE_CHECKING:
    from .events import Plain


@dataclass(frozen=True, slots=True)
class Action:
    """One choice: ``kind`` and, for discard/kongs/chow, ``tile``."""

    kind: ActionKind
    tile: Tile | None = None

    def __post_init__(self) -> None:
        if (self.tile is not None) != (self.kind in TILE_ACTIONS):
            raise ValueError(f"{self.kind} {'needs' if self.tile is None else 'takes no'} tile")

    def __str__(self) -> str:
        return self.kind.value if self.tile is None else f"{self.kind.value} {self.tile}"

    def to_dict(self) -> dict[str, Plain]:
        d: dict[str, Plain] = {"kind": self.kind.value}
        if self.tile is not None:
            d["tile"] = int(self.tile)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Action:
        kind, tile = data["kind"], data.get("tile")
        if not isinstance(kind, str) or not (tile is None or isinstance(tile, int)):
            raise ValueError(f"no action has kind {kind!r} and tile {tile!r}")
        key = (kind, tile)
        if cls is Action and type(kind) is str and (tile is None or type(tile) is int):
            known = _BY_PLAIN.get(key)
            if known is not None:
                return known
        action = cls(ActionKind(kind), None if tile is None else Tile(tile))
        if cls is Action and type(kind) is str and (tile is None or type(tile) is int):
            _BY_PLAIN[key] = action  # at most 8 kinds x 35 tiles, all valid
        return action

    @classmethod
    def parse(cls, text: str) -> Action:
        """``"discard 5m"``, ``"chow 3s"``, ``"pass"`` (for tests and tools)."""
        kind, _, tile = text.strip().partition(" ")
        return cls(ActionKind(kind), Tile.parse(tile) if tile else None)


# One shared value per action (actions are immutable): the constructors below and
# ``Action.from_dict`` return these, so the engine finds a replayed or chosen action in
# its legal list by identity before comparing fields.
_BY_PLAIN: dict[tuple[str, int | None], Action] = {}


def _shared(kind: ActionKind, tile: Tile | None = None) -> Action:
    key = (kind.value, None if tile is None else int(tile))
    action = _BY_PLAIN.get(key)
    if action is None:
        action = _BY_PLAIN[key] = Action(kind, tile)
    return action


def discard(tile: Tile) -> Action:
    return _shared(ActionKind.DISCARD, Tile(tile))


def chow(lowest: Tile) -> Action:
    return _shared(ActionKind.CHOW, Tile(lowest))


def concealed_kong(tile: Tile) -> Action:
    return _shared(ActionKind.CONCEALED_KONG, Tile(tile))


def added_kong(tile: Tile) -> Action:
    return _shared(ActionKind.ADDED_KONG, Tile(tile))


WIN = _shared(ActionKind.WIN)
PASS = _shared(ActionKind.PASS)
PUNG = _shared(ActionKind.PUNG)
EXPOSED_KONG = _shared(ActionKind.EXPOSED_KONG)


def tile_of(action: Action) -> Tile:
    """The tile of an action that names one (discard, chow, kongs)."""
    tile = action.tile
    if tile is None:
        raise ValueError(f"{action.kind} names no tile")
    return tile
