"""Personal walls: the hand of duplicate play, one wall of 34 tiles for each seat.

With one shared wall, the first chow or pung shifts every later draw, so two tables
dealt the same wall stop holding the same tiles. Here each seat deals its 13 tiles (the
dealer 14) from its own wall and draws only from it, kong replacements included and
always from its front, so a seat's tiles come in the same order at every table whatever
the calls (docs/rules.md §1.6). The set is the 136 tiles without flowers.

A *deal* is a seed, the dealer and the prevailing wind: ``PersonalWalls.from_seed``
gives the same walls for the same seed and dealer everywhere. ``PersonalWalls(walls,
salt, dealer)`` builds a hand from walls recorded elsewhere, so such a deal can be
replayed and checked.

The commitment binds the hand's place (a match's id and the hand's number, as for the
shared wall) and covers the four walls in seat order (seat 0's first, each front
first) then the salt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.tiles import PLAYING_TILES, Tile

from ..rules.hand import parse_tiles
from .wall import Dice, SeedStream, commitment_of

if TYPE_CHECKING:
    from .events import Plain

PERSONAL_WALL_SIZE = 34
PERSONAL_SET: tuple[Tile, ...] = tuple(t for t in PLAYING_TILES for _ in range(4))
_PERSONAL_COUNTS = Counter(PERSONAL_SET)
_TILE_OF_CODE: dict[object, Tile] = {int(t): t for t in PLAYING_TILES}
# No dice are rolled and no wall is broken: the start of the hand says so with the
# lowest roll and the first stack.
NO_DICE: Dice = ((1, 1), (1, 1))


@dataclass(frozen=True, slots=True)
class PersonalWalls:
    """Four walls of 34 tiles by seat (each front first), the salt, the dealer and the
    hand's place that the commitment binds."""

    walls: tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
    salt: bytes
    dealer: int = 0
    match_id: int = 0
    number: int = 0
    order: tuple[Tile, ...] = field(init=False, compare=False)
    commitment: str = field(init=False, compare=False)
    dice: Dice = field(init=False, compare=False, default=NO_DICE)
    second_roller: int = field(init=False, compare=False, default=0)
    break_stack: int = field(init=False, compare=False, default=0)

    def __post_init__(self) -> None:
        if len(self.walls) != 4 or any(len(w) != PERSONAL_WALL_SIZE for w in self.walls):
            raise ValueError("personal walls are four walls of 34 tiles")
        order = tuple(t for w in self.walls for t in w)
        if Counter(order) != _PERSONAL_COUNTS:
            raise ValueError("personal walls hold each of the 136 tiles exactly once")
        if self.dealer not in range(4):
            raise ValueError("the dealer is a seat 0-3")
        if not (0 <= self.match_id < 2**64 and 0 <= self.number <= 16):
            raise ValueError("the walls' match id is 0 to 2**64 - 1 and their number 0 to 16")
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "second_roller", self.dealer)
        commitment = commitment_of(order, self.salt, self.match_id, self.number)
        object.__setattr__(self, "commitment", commitment)

    @classmethod
    def from_seed(
        cls, seed: bytes, dealer: int = 0, match_id: int = 0, number: int = 0
    ) -> PersonalWalls:
        """The walls and salt of ``seed`` (Fisher-Yates over the 136 tiles, dealt in seat
        order 34 at a time), for hand ``number`` of match ``match_id``."""
        stream = SeedStream(seed, b"gbmj-personal-walls")
        tiles = list(PERSONAL_SET)
        for i in range(len(tiles) - 1, 0, -1):
            j = stream.below(i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        salt = SeedStream(seed, b"gbmj-salt").bytes(16)
        return cls(_split(tiles), salt, dealer, match_id, number)

    @classmethod
    def scripted(
        cls, hands: Sequence[str], draws: Sequence[str] = ("", "", "", ""), dealer: int = 0
    ) -> PersonalWalls:
        """Walls that deal ``hands`` (by seat; the dealer's has 14 tiles) and then give
        each seat the tiles of ``draws[seat]`` first; the rest fill up in code order
        (tests write hands in notation)."""
        dealt = [parse_tiles(h) for h in hands]
        sizes = [14 if s == dealer else 13 for s in range(4)]
        if [len(h) for h in dealt] != sizes:
            raise ValueError(f"hands must have {sizes} tiles, got {[len(h) for h in dealt]}")
        heads = [dealt[s] + parse_tiles(draws[s]) for s in range(4)]
        if any(len(h) > PERSONAL_WALL_SIZE for h in heads):
            raise ValueError("a wall holds 34 tiles")
        used = Counter(t for h in heads for t in h)
        if used - _PERSONAL_COUNTS:
            raise ValueError(f"too many copies of {sorted(used - _PERSONAL_COUNTS)}")
        rest = iter(sorted((_PERSONAL_COUNTS - used).elements()))
        tiles = [t for h in heads for t in (*h, *(next(rest) for _ in range(34 - len(h))))]
        return cls(_split(tiles), b"\0" * 16, dealer)

    @classmethod
    def from_order(
        cls,
        order: Sequence[Tile],
        salt: bytes,
        dealer: int = 0,
        match_id: int = 0,
        number: int = 0,
    ) -> PersonalWalls:
        """The walls of ``order`` (the four walls in seat order, as the commitment covers
        them): a recorded hand rebuilt."""
        return cls(_split(order), salt, dealer, match_id, number)

    def deal_size(self, seat: int) -> int:
        return 14 if seat == self.dealer else 13

    def to_dict(self) -> dict[str, Plain]:
        return {
            "walls": [[int(t) for t in w] for w in self.walls],
            "salt": self.salt.hex(),
            "dealer": self.dealer,
            "match_id": self.match_id,
            "number": self.number,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> PersonalWalls:
        walls, salt, dealer = data["walls"], data["salt"], data["dealer"]
        try:
            if not isinstance(walls, list | tuple):
                raise TypeError
            if not all(isinstance(w, list | tuple) and len(w) == 34 for w in walls):
                raise TypeError
            tiles = [_TILE_OF_CODE[c] for w in walls if isinstance(w, list | tuple) for c in w]
        except (KeyError, TypeError):
            raise ValueError("personal walls are four lists of 34 tile codes") from None
        match_id, number = data.get("match_id", 0), data.get("number", 0)
        if not isinstance(salt, str) or not isinstance(dealer, int):
            raise ValueError("the walls' salt is hex and their dealer a seat")
        if not isinstance(match_id, int) or not isinstance(number, int):
            raise ValueError("the walls' match id and number are integers")
        return cls(_split(tiles), bytes.fromhex(salt), dealer, match_id, number)


def verify_personal_commitment(
    commitment: str, order: Sequence[int], salt: bytes | str, match_id: int = 0, number: int = 0
) -> bool:
    """True when ``order`` (the four walls in seat order) and ``salt`` are what
    ``commitment`` promised for hand ``number`` of match ``match_id``, and the order is
    the 136 tiles."""
    if isinstance(salt, str):
        salt = bytes.fromhex(salt)
    if sorted(order) != sorted(PERSONAL_SET):
        return False
    return commitment_of(order, salt, match_id, number) == commitment


def _split(
    tiles: Sequence[Tile],
) -> tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]:
    if len(tiles) != 4 * PERSONAL_WALL_SIZE:
        raise ValueError("personal walls are four walls of 34 tiles")
    n = PERSONAL_WALL_SIZE
    return (
        tuple(tiles[0:n]),
        tuple(tiles[n : 2 * n]),
        tuple(tiles[2 * n : 3 * n]),
        tuple(tiles[3 * n : 4 * n]),
    )


__all__ = [
    "PERSONAL_SET",
    "PERSONAL_WALL_SIZE",
    "PersonalWalls",
    "verify_personal_commitment",
]
