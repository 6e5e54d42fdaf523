"""The wall: a seeded shuffle, the dice, the break point and the commitment.

The wall is 72 stacks of two tiles, 18 in front of each seat. Its *order* (what the
commitment covers) lists the tiles stack by stack, top before bottom, starting at the
right end of the dealer's wall and going left (clockwise), so the dealer's wall is
stacks 0-17, the dealer's left seat's wall 18-35, the opposite seat's 36-53 and the right
seat's 54-71.

Dice and break point (docs/rules.md §1.1): the dealer rolls two dice; counting counter-clockwise
from the dealer (the dealer is 1) that total names the second roller; the second roller
rolls; the sum of both rolls counts stacks leftwards from the right end of the second
roller's wall (past its left end into the wall of its left seat) and drawing starts at
the next stack. The *draw sequence* is the order rotated to start there: normal draws
take it from the front, replacement draws (flowers, kongs) from the back.

Commitment (docs/rules.md §1.1): SHA-256 over the hand's place (its match's id and its
number in the match: the *binding*, so a hand cannot pass for another match's or another
hand of its own), the order (one byte per tile code) and the salt, announced before the
deal and revealed with the salt when the hand ends; ``verify_commitment`` lets anyone
check it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.tiles import FLOWERS, PLAYING_TILES, Tile

from ..rules.hand import parse_tiles

if TYPE_CHECKING:
    from .events import Plain

WALL_SIZE = 144
STACKS_PER_WALL = 18
FULL_SET: tuple[Tile, ...] = tuple(t for t in PLAYING_TILES for _ in range(4)) + FLOWERS

Dice = tuple[tuple[int, int], tuple[int, int]]


class SeedStream:
    """A deterministic byte stream from SHA-256 in counter mode (no global random state)."""

    def __init__(self, seed: bytes, label: bytes) -> None:
        self._key = hashlib.sha256(label + b"\0" + seed).digest()
        self._counter = 0
        self._buf = bytearray()
        self._pos = 0  # bytes of ``_buf`` already handed out

    def bytes(self, n: int) -> bytes:
        buf, pos = self._buf, self._pos
        while len(buf) - pos < n:
            buf += hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
        self._pos = pos + n
        return bytes(buf[pos : pos + n])

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection sampling 32-bit words."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            x = int.from_bytes(self.bytes(4), "big")
            if x < limit:
                return x % n


def binding(match_id: int, number: int) -> bytes:
    """The hand's place, as the commitment hashes it first: the match's id on its server
    (8 bytes, big-endian) and the hand's number in the match (1 byte). A wall made
    outside any match (tests, the benchmarks) has match 0, hand 0."""
    return match_id.to_bytes(8, "big") + number.to_bytes(1, "big")


def commitment_of(order: Sequence[int], salt: bytes, match_id: int = 0, number: int = 0) -> str:
    """The SHA-256 hex digest of the binding, the wall order (one byte per tile code)
    and the salt."""
    return hashlib.sha256(binding(match_id, number) + bytes(order) + salt).hexdigest()


def verify_commitment(
    commitment: str, order: Sequence[int], salt: bytes | str, match_id: int = 0, number: int = 0
) -> bool:
    """True when ``order`` and ``salt`` (bytes or hex) are what ``commitment`` promised
    for hand ``number`` of match ``match_id``.

    Also checks that the order is a complete set of 144 tiles.
    """
    if isinstance(salt, str):
        salt = bytes.fromhex(salt)
    if sorted(order) != sorted(FULL_SET):
        return False
    return commitment_of(order, salt, match_id, number) == commitment


def second_roller(dealer: int, first_roll: int) -> int:
    """The seat that rolls second: counted counter-clockwise from the dealer as 1."""
    return (dealer + first_roll - 1) % 4


def break_stack(dealer: int, dice: Dice) -> int:
    """The stack (0-71 in wall order) where drawing starts."""
    first, second = sum(dice[0]), sum(dice[1])
    roller = second_roller(dealer, first)
    # Seat s's wall starts (right end) at stack ((dealer - s) mod 4) * 18 in wall order.
    start_of_wall = ((dealer - roller) % 4) * STACKS_PER_WALL
    return (start_of_wall + first + second) % (WALL_SIZE // 2)


@dataclass(frozen=True, slots=True)
class Wall:
    """One hand's wall: the order, the dice, the salt, the dealer whose wall starts it,
    and the hand's place (match id, number in the match) that the commitment binds."""

    order: tuple[Tile, ...]
    dice: Dice
    salt: bytes
    dealer: int = 0
    match_id: int = 0
    number: int = 0
    # Derived once (the wall is immutable): where drawing starts and the commitment.
    second_roller: int = field(init=False, compare=False)
    break_stack: int = field(init=False, compare=False)
    commitment: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if Counter(self.order) != _FULL_COUNTS:
            raise ValueError("a wall holds each of the 144 tiles exactly once")
        if len(self.dice) != 2 or not all(1 <= d <= 6 for roll in self.dice for d in roll):
            raise ValueError("dice are two rolls of two dice, 1-6 each")
        if self.dealer not in range(4):
            raise ValueError("the dealer is a seat 0-3")
        if not (0 <= self.match_id < 2**64 and 0 <= self.number <= 16):
            raise ValueError("a wall's match id is 0 to 2**64 - 1 and its number 0 to 16")
        setattr_ = object.__setattr__
        setattr_(self, "second_roller", second_roller(self.dealer, sum(self.dice[0])))
        setattr_(self, "break_stack", break_stack(self.dealer, self.dice))
        setattr_(
            self, "commitment", commitment_of(self.order, self.salt, self.match_id, self.number)
        )

    def draw_sequence(self) -> tuple[Tile, ...]:
        """The tiles in the order they are drawn from the front (the back is the end)."""
        start = 2 * self.break_stack
        return self.order[start:] + self.order[:start]

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed: bytes, dealer: int = 0, match_id: int = 0, number: int = 0) -> Wall:
        """A shuffled wall, dice and salt, all derived from ``seed`` (Fisher-Yates), for
        hand ``number`` of match ``match_id``."""
        stream = SeedStream(seed, b"gbmj-wall")
        tiles = list(FULL_SET)
        for i in range(len(tiles) - 1, 0, -1):
            j = stream.below(i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        a, b, c, d = (1 + stream.below(6) for _ in range(4))
        salt = SeedStream(seed, b"gbmj-salt").bytes(16)
        return cls(tuple(tiles), ((a, b), (c, d)), salt, dealer, match_id, number)

    @classmethod
    def from_draw_sequence(
        cls,
        sequence: Sequence[int],
        dice: Dice = ((1, 1), (1, 1)),
        salt: bytes = b"\0" * 16,
        dealer: int = 0,
    ) -> Wall:
        """The wall whose draw sequence (front first) is ``sequence`` (for tests)."""
        start = 2 * break_stack(dealer, dice)
        seq = tuple(Tile(t) for t in sequence)
        order = seq[-start:] + seq[:-start] if start else seq
        return cls(order, dice, salt, dealer)

    @classmethod
    def scripted(
        cls,
        hands: Sequence[str],
        draws: str = "",
        back: str = "",
        dealer: int = 0,
        dice: Dice = ((1, 1), (1, 1)),
    ) -> Wall:
        """A wall that deals ``hands`` (by seat; the dealer's has 14 tiles) and then gives
        ``draws`` from the front and ``back`` from the back (first replacement first).

        Every other tile fills the middle in code order. Tiles are in notation.
        """
        dealt = [parse_tiles(h) for h in hands]
        sizes = [14 if s == dealer else 13 for s in range(4)]
        if [len(h) for h in dealt] != sizes:
            raise ValueError(f"hands must have {sizes} tiles, got {[len(h) for h in dealt]}")
        front_tiles = parse_tiles(draws)
        back_tiles = parse_tiles(back)
        used = Counter(t for h in dealt for t in h) + Counter(front_tiles) + Counter(back_tiles)
        if used - _FULL_COUNTS:
            raise ValueError(f"too many copies of {sorted(used - _FULL_COUNTS)}")
        filler = sorted((_FULL_COUNTS - used).elements())
        seq: list[Tile | None] = [None] * WALL_SIZE
        for s in range(4):
            for pos, tile in zip(deal_positions((s - dealer) % 4), dealt[s], strict=True):
                seq[pos] = tile
        pos = DEAL_SIZE
        for tile in front_tiles:
            seq[pos] = tile
            pos += 1
        for i, tile in enumerate(back_tiles):
            seq[WALL_SIZE - 1 - i] = tile
        rest = iter(filler)
        full = [t if t is not None else next(rest) for t in seq]
        return cls.from_draw_sequence(full, dice=dice, dealer=dealer)

    # -- plain data -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Plain]:
        return {
            "order": [int(t) for t in self.order],
            "dice": [list(r) for r in self.dice],
            "salt": self.salt.hex(),
            "dealer": self.dealer,
            "match_id": self.match_id,
            "number": self.number,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Plain]) -> Wall:
        codes, salt, dealer = data["order"], data["salt"], data["dealer"]
        try:
            if not isinstance(codes, list | tuple):
                raise TypeError
            order = tuple(map(_TILE_OF_CODE.__getitem__, codes))
        except (KeyError, TypeError):
            raise ValueError("a wall order holds tile codes 0-41") from None
        if not isinstance(salt, str) or not isinstance(dealer, int):
            raise ValueError("a wall's salt is hex and its dealer a seat")
        # Walls kept before the commitment bound its hand have no place: match 0, hand 0.
        match_id, number = data.get("match_id", 0), data.get("number", 0)
        if not isinstance(match_id, int) or not isinstance(number, int):
            raise ValueError("a wall's match id and number are integers")
        return cls(order, _dice_of(data["dice"]), bytes.fromhex(salt), dealer, match_id, number)


def _dice_of(plain: Plain) -> Dice:
    """Two rolls of two dice from plain data (``Wall`` checks their values)."""
    rolls = plain if isinstance(plain, list | tuple) else ()
    pairs = [r for r in rolls if isinstance(r, list | tuple) and len(r) == 2]
    dice = [d for r in pairs for d in r if isinstance(d, int)]
    if len(rolls) != 2 or len(dice) != 4:
        raise ValueError("dice are two rolls of two dice, 1-6 each")
    return ((dice[0], dice[1]), (dice[2], dice[3]))


_FULL_COUNTS = Counter(FULL_SET)
# A dict lookup is cheaper than Tile(code); any plain value may be looked up (KeyError).
_TILE_OF_CODE: dict[object, Tile] = {int(t): t for t in Tile}

# The deal (docs/rules.md §1.1): three times four tiles each, dealer first; then the dealer takes
# one tile, skips a stack and takes another (跳牌) while the others take one each.
DEAL_SIZE = 53


def deal_positions(offset: int) -> tuple[int, ...]:
    """Positions in the draw sequence dealt to the seat ``offset`` places after the dealer."""
    blocks = [16 * k + 4 * offset + i for k in range(3) for i in range(4)]
    if offset == 0:
        return (*blocks, 48, 52)
    return (*blocks, 48 + offset)
