"""The services every request handler is given (and nothing else it may reach for)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from gbmj.economy.items import shop_prices
from gbmj_server.config import ServerConfig
from gbmj_server.net.guard import Guard
from gbmj_server.net.lobby import Lobby
from gbmj_server.net.sessions import Sessions
from gbmj_server.signing import Signer
from gbmj_server.storage.threads import AsyncStorage
from gbmj_server.tables.registry import Tables
from gbmj_server.tournaments import Tournaments
from protocol.vocabulary import Item


@dataclass(eq=False)
class Services:
    config: ServerConfig
    store: AsyncStorage
    sessions: Sessions
    lobby: Lobby
    tables: Tables
    guard: Guard
    rng: random.Random = field(default_factory=random.SystemRandom)
    signer: Signer | None = None  # signs what the history tells (None: nothing signed)
    prices: dict[Item, int] = field(default_factory=dict)  # the shop: item -> coins
    tournaments: Tournaments | None = None  # the club tournaments (set once running)

    def __post_init__(self) -> None:
        if not self.prices:
            self.prices = {Item(k): v for k, v in shop_prices(dict(self.config.shop)).items()}
