"""The item kinds (SPEC §2.6, seed 000 道具): one registry entry per kind.

How to add an item kind:

1. add its wire name to ``protocol.messages.ITEMS`` (and regenerate docs/protocol.md);
2. add one ``ItemKind`` entry to ``ITEM_KINDS`` below: its price in the shop (None: not
   sold), whether a win may drop it, its stack size;
3. give it its effect where it acts: the server consumes one with
   ``Storage.use_item(account, kind, payments)`` (one transaction: the item and any coins
   it costs) and then does what the item does.

The shop, the inventory, buying and win drops need nothing more. The table sign is the
worked example: its effect is ``Table.rename`` in ``gbmj_server.net.lobby`` (renaming a
table costs a sign and protects the name for ``TABLE_SIGN_PROTECTION`` seconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from protocol.messages import INVENTORY_SLOTS, ITEMS, STACK_LIMIT

# The timer extension (定时器): +90 s, 270 coins from the user, 90 to each other seat.
TIMER_EXTENSION_SECONDS = 90
TIMER_EXTENSION_COST = 270
TIMER_EXTENSION_SHARE = 90
# The table sign (招牌): a renamed table keeps its name this long.
TABLE_SIGN_PROTECTION = 3600.0
DROP_CHANCE = 0.2  # a win drops a random item one time in five


@dataclass(frozen=True, slots=True)
class ItemKind:
    """What the shop, the inventory and the drops need to know of an item."""

    name: str  # the wire name (protocol.messages.ITEMS)
    name_zh: str
    price: int | None  # coins in the shop; None: not for sale
    droppable: bool = True  # may come as the random item of a win
    stack: int = STACK_LIMIT  # 1: not stackable


ITEM_KINDS: Mapping[str, ItemKind] = {
    kind.name: kind
    for kind in (
        ItemKind("timer_extension", "定时器", price=500),
        ItemKind("tile_counter", "算牌器", price=800),
        ItemKind("table_sign", "招牌", price=1000),
    )
}
assert set(ITEM_KINDS) == set(ITEMS), "every wire item has a kind, and no other"
assert all(1 <= k.stack <= STACK_LIMIT for k in ITEM_KINDS.values())

SLOTS = INVENTORY_SLOTS


def shop_prices(overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Item -> price of what the shop sells: the registry's prices with a host's
    ``overrides`` (a price of 0 or less takes the item off the shelf)."""
    prices = {k.name: k.price for k in ITEM_KINDS.values() if k.price is not None}
    for name, price in (overrides or {}).items():
        if name not in ITEM_KINDS:
            raise ValueError(f"unknown item {name!r}")
        if price > 0:
            prices[name] = price
        else:
            prices.pop(name, None)
    return prices


def droppable() -> tuple[str, ...]:
    return tuple(k.name for k in ITEM_KINDS.values() if k.droppable)


def roll_drop(chance: float, choice: int) -> str | None:
    """The item a win drops, from two random numbers the caller draws: ``chance`` in
    [0, 1) (below ``DROP_CHANCE`` wins something) and ``choice`` (any integer)."""
    if chance >= DROP_CHANCE:
        return None
    kinds = droppable()
    return kinds[choice % len(kinds)] if kinds else None
