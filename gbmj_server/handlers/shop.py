"""Levels, the leaderboard, the inventory and the shop (docs/rules.md §2.6, §2.7)."""

from __future__ import annotations

from gbmj.economy.items import ITEM_RULES, TIMER_EXTENSION_SHARE
from gbmj.economy.levels import THRESHOLDS, level_of
from gbmj_server import logs
from gbmj_server.handlers.common import signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.profiles import profile
from gbmj_server.services import Services
from gbmj_server.storage import LedgerError
from gbmj_server.tables import commands as do
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Item

handlers: Handlers[Services] = Handlers()

LEADERBOARD = 20  # entries when the request does not say
# What using an item costs besides its price (the timer extension pays the other seats).
USE_COSTS = {Item.TIMER_EXTENSION: 3 * TIMER_EXTENSION_SHARE}


@handlers.on(m.GetLevels)
async def get_levels(services: Services, conn: Connection, request: m.GetLevels) -> m.Message:
    return m.Levels(thresholds=THRESHOLDS)


@handlers.on(m.GetLeaderboard)
async def get_leaderboard(
    services: Services, conn: Connection, request: m.GetLeaderboard
) -> m.Message:
    rows = await services.store.call(
        services.store.storage.leaderboard, request.limit or LEADERBOARD
    )
    return m.Leaderboard(
        entries=tuple(
            m.LeaderEntry(rank=i + 1, name=r.name, level=level_of(r.rating), rating=r.rating)
            for i, r in enumerate(rows)
        )
    )


async def inventory(services: Services, conn: Connection) -> m.Inventory:
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        return m.Inventory(slots=(), capacity=0)
    storage = services.store.storage
    slots = await services.store.call(storage.inventory, account.id)
    return m.Inventory(
        slots=tuple(m.ItemStack(item=Item(s.item), count=s.count, slot=s.slot) for s in slots),
        capacity=storage.inventory_slots,
        gem_cap=services.config.gem_cap or None,
    )


@handlers.on(m.GetInventory)
async def get_inventory(services: Services, conn: Connection, request: m.GetInventory) -> m.Message:
    return await inventory(services, conn)


def _player(conn: Connection) -> int:
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests hold no items")
    return account.id


@handlers.on(m.MoveItem)
async def move_item(services: Services, conn: Connection, request: m.MoveItem) -> m.Message:
    """Move a slot's items to another slot, swapping with what is there (§2.6)."""
    store = services.store
    try:
        await store.call(store.storage.move_item, _player(conn), request.from_slot, request.to_slot)
    except LedgerError as exc:
        raise RequestError(ErrorCode(exc.code), str(exc)) from None
    return await inventory(services, conn)


@handlers.on(m.UseItem)
async def use_item(services: Services, conn: Connection, request: m.UseItem) -> m.Message:
    """Use an item that acts on the account: a gem's rating points (§2.6), below the
    host's gem cap; the player's new profile is pushed."""
    account_id = _player(conn)
    if not ITEM_RULES[request.item].rating:
        raise RequestError(ErrorCode.NOT_EXPECTED, f"{request.item} is used at a table")
    store = services.store
    try:
        rating = await store.call(
            store.storage.use_gem, account_id, request.item, services.config.gem_cap or None
        )
    except LedgerError as exc:
        raise RequestError(ErrorCode(exc.code), str(exc)) from None
    logs.event("item_used", account=account_id, item=request.item.value, rating=rating)
    assert conn.session.account is not None
    mine = await profile(store, account_id, conn.session.account.name, False)
    conn.send(m.ProfileUpdate(profile=mine))
    return await inventory(services, conn)


@handlers.on(m.GetShop)
async def get_shop(services: Services, conn: Connection, request: m.GetShop) -> m.Message:
    return m.Shop(
        offers=tuple(
            m.ShopOffer(item=item, price=price, use_cost=USE_COSTS.get(item))
            for item, price in services.prices.items()
        )
    )


@handlers.on(m.Buy)
async def buy(services: Services, conn: Connection, request: m.Buy) -> m.Message:
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests hold no coins: register to buy")
    price = services.prices.get(request.item)
    if price is None:
        raise RequestError(ErrorCode.NO_SUCH_ITEM, f"the shop does not sell {request.item}")
    store = services.store

    async def purchase() -> None:
        try:
            await store.call(store.storage.buy, account.id, request.item, request.count, price)
        except LedgerError as exc:
            raise RequestError(ErrorCode(exc.code), str(exc)) from None

    actor = services.tables.where_seated(signed_in_id(conn))
    if actor is None:
        await purchase()
    else:
        await actor.call(do.Spend(conn, purchase))
    logs.event(
        "item_bought",
        account=account.id,
        item=request.item.value,
        count=request.count,
        coins=price * request.count,
    )
    conn.send(m.ProfileUpdate(profile=await profile(store, account.id, account.name, False)))
    return await inventory(services, conn)
