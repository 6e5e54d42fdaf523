"""A player's profile (coins, rating, level) as the player sees it: one builder for the
sign-in reply, the shop and the table's updates after a hand."""

from __future__ import annotations

from gbmj.economy.levels import level_of
from gbmj_server.storage.threads import AsyncStorage
from protocol import messages as m


async def profile(store: AsyncStorage, account_id: int, name: str, guest: bool) -> m.Profile:
    storage = store.storage
    coins, rating = await store.call(
        lambda: (storage.balance(account_id), storage.rating(account_id))
    )
    return m.Profile(
        name=name, guest=guest, coins=coins or 0, rating=rating, level=level_of(rating)
    )
