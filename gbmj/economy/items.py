"""The item kinds (道具, docs/rules.md §2.6): one registry entry per kind.

How to add an item kind:

1. add its wire name to ``protocol.vocabulary.Item`` (and regenerate docs/protocol.md);
2. add one ``ItemRule`` entry to ``ITEM_RULES`` below: its price in the shop (None: not
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

from protocol.messages import INVENTORY_SLOTS, STACK_LIMIT
from protocol.vocabulary import Item

# The timer extension (定时器): +90 s, 270 coins from the user, 90 to each other seat.
TIMER_EXTENSION_SECONDS = 90
TIMER_EXTENSION_SHARE = 90  # to each other seat: 270 from the user in all
# The signs (招牌, 金字招牌): a table renamed with one keeps its name this long (seconds).
TABLE_SIGN_PROTECTION = 3600.0
GOLD_SIGN_PROTECTION = 24 * 3600.0
SIGN_PROTECTION: Mapping[Item, float] = {
    Item.TABLE_SIGN: TABLE_SIGN_PROTECTION,
    Item.GOLD_SIGN: GOLD_SIGN_PROTECTION,
}
DROP_CHANCE = 0.2  # a win drops a random item one time in five
GEM_CHANCE = 0.5  # finishing a match first drops a gem one time in two


@dataclass(frozen=True, slots=True)
class ItemRule:
    """What the shop, the inventory and the drops need to know of an item."""

    name: Item
    price: int | None  # coins in the shop; None: never for sale
    droppable: bool = True  # may come as the random item of a win
    stack: int = STACK_LIMIT  # 1: not stackable
    rating: int = 0  # a gem's rating points when used
    gem_weight: int = 0  # a gem's share of the gems dropped for finishing first


ITEM_RULES: Mapping[Item, ItemRule] = {
    rule.name: rule
    for rule in (
        ItemRule(Item.TIMER_EXTENSION, price=500),
        ItemRule(Item.TILE_COUNTER, price=800),
        ItemRule(Item.TABLE_SIGN, price=1000),
        ItemRule(Item.GOLD_SIGN, price=5000),
        ItemRule(Item.TABLECLOTH, price=2000),
        ItemRule(Item.RECORDER, price=1500),
        ItemRule(Item.GEM_SHARD, None, droppable=False, stack=1, rating=1, gem_weight=89),
        ItemRule(Item.GEM, None, droppable=False, stack=1, rating=10, gem_weight=10),
        ItemRule(Item.PERFECT_GEM, None, droppable=False, stack=1, rating=100, gem_weight=1),
    )
}
assert set(ITEM_RULES) == set(Item), "every item has its rule"
assert all(1 <= k.stack <= STACK_LIMIT for k in ITEM_RULES.values())

SLOTS = INVENTORY_SLOTS


def shop_prices(overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Item -> price of what the shop sells: the registry's prices with a host's
    ``overrides`` (a price of 0 or less takes the item off the shelf)."""
    prices: dict[str, int] = {k.name: k.price for k in ITEM_RULES.values() if k.price is not None}
    for name, price in (overrides or {}).items():
        if name not in ITEM_RULES:
            raise ValueError(f"unknown item {name!r}")
        if ITEM_RULES[Item(name)].price is None:
            raise ValueError(f"{name} is never sold")
        if price > 0:
            prices[name] = price
        else:
            prices.pop(name, None)
    return prices


def droppable() -> tuple[str, ...]:
    return tuple(k.name for k in ITEM_RULES.values() if k.droppable)


def roll_drop(chance: float, choice: int) -> str | None:
    """The item a win drops, from two random numbers the caller draws: ``chance`` in
    [0, 1) (below ``DROP_CHANCE`` wins something) and ``choice`` (any integer)."""
    if chance >= DROP_CHANCE:
        return None
    kinds = droppable()
    return kinds[choice % len(kinds)] if kinds else None


GEMS: tuple[Item, ...] = tuple(k.name for k in ITEM_RULES.values() if k.gem_weight)


def roll_gem(chance: float, choice: int) -> Item | None:
    """The gem a player who finished a match first gets, from two random numbers the
    caller draws: ``chance`` in [0, 1) (below ``GEM_CHANCE`` drops one) and ``choice``
    (any integer), each gem by its weight (of 100: shards the most, perfect gems rarely)."""
    if chance >= GEM_CHANCE:
        return None
    n = choice % sum(ITEM_RULES[g].gem_weight for g in GEMS)
    for gem in GEMS:
        n -= ITEM_RULES[gem].gem_weight
        if n < 0:
            return gem
    raise AssertionError("the weights add up")
