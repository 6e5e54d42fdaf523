"""Actions: what a seat may choose (names from docs/vocabulary.md).

An action is the protocol's ``ActionChoice``: the engine's legal actions, its log, a
prompt's choices and a bot's answer are one value. Here are the shared values the engine
hands out and the plain form its log keeps.
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.messages import ActionChoice
from protocol.tiles import Tile
from protocol.vocabulary import TILE_ACTIONS, ActionKind

from .events import Plain

# One shared value per action (actions are immutable): the constructors below and
# ``from_plain`` return these, so the engine finds a replayed or chosen action in its
# legal list by identity before comparing fields. At most 8 kinds x 35 tiles.
_BY_PLAIN: dict[tuple[str, int | None], ActionChoice] = {}


def action_of(kind: ActionKind, tile: Tile | None = None) -> ActionChoice:
    """The shared action of ``kind`` (and ``tile``); ``ValueError`` if the kind needs a
    tile it was not given, or takes none and was given one."""
    key = (kind.value, None if tile is None else int(tile))
    found = _BY_PLAIN.get(key)
    if found is None:
        if (tile is not None) != (kind in TILE_ACTIONS):
            raise ValueError(f"{kind} {'needs' if tile is None else 'takes no'} tile")
        found = _BY_PLAIN[key] = ActionChoice(
            kind=ActionKind(kind), tile=None if tile is None else Tile(tile)
        )
    return found


def from_plain(data: Mapping[str, object]) -> ActionChoice:
    """The action of a plain map (``{"kind": "discard", "tile": 4}``, as the log keeps
    it); ``ValueError`` if it is none."""
    kind, tile = data["kind"], data.get("tile")
    if type(kind) is str and (tile is None or type(tile) is int):
        found = _BY_PLAIN.get((kind, tile))
        if found is not None:
            return found
    if not isinstance(kind, str) or not (tile is None or isinstance(tile, int)):
        raise ValueError(f"no action has kind {kind!r} and tile {tile!r}")
    return action_of(ActionKind(kind), None if tile is None else Tile(tile))


def to_plain(choice: ActionChoice) -> dict[str, Plain]:
    """The plain map the log keeps (``from_plain`` reads it back)."""
    if choice.tile is None:
        return {"kind": choice.kind.value}
    return {"kind": choice.kind.value, "tile": int(choice.tile)}


def parse_action(text: str) -> ActionChoice:
    """``"discard 5m"``, ``"chow 3s"``, ``"pass"`` (for tests and tools)."""
    kind, _, tile = text.strip().partition(" ")
    return action_of(ActionKind(kind), Tile.parse(tile) if tile else None)


def discard(tile: Tile) -> ActionChoice:
    return action_of(ActionKind.DISCARD, Tile(tile))


def chow(lowest: Tile) -> ActionChoice:
    return action_of(ActionKind.CHOW, Tile(lowest))


def concealed_kong(tile: Tile) -> ActionChoice:
    return action_of(ActionKind.CONCEALED_KONG, Tile(tile))


def added_kong(tile: Tile) -> ActionChoice:
    return action_of(ActionKind.ADDED_KONG, Tile(tile))


WIN = action_of(ActionKind.WIN)
PASS = action_of(ActionKind.PASS)
PUNG = action_of(ActionKind.PUNG)
EXPOSED_KONG = action_of(ActionKind.EXPOSED_KONG)


def tile_of(choice: ActionChoice) -> Tile:
    """The tile of an action that names one (discard, chow, kongs)."""
    tile = choice.tile
    if tile is None:
        raise ValueError(f"{choice.kind} names no tile")
    return tile
