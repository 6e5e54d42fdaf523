"""What a table's actor is given: the services it may use, nothing it reaches for."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import trio

from gbmj_server.limits import Backoff, address_key
from gbmj_server.net.lobby import Lobby
from gbmj_server.storage.threads import AsyncStorage
from gbmj_server.tables.brains import Brains
from gbmj_server.tables.journal import Journal
from gbmj_server.tables.reports import Reporter


@dataclass(eq=False)
class TableContext:
    store: AsyncStorage
    lobby: Lobby
    journal: Journal
    nursery: trio.Nursery  # where the tables' tasks run
    rng: random.Random = field(default_factory=random.SystemRandom)  # item drops, seeds
    bot_delay: float = 0.0  # seconds a bot "thinks" before it acts
    hand_pause: float = 0.0  # seconds between hands, to read the result
    abandon_grace: float = 60.0  # seconds a match waits for any of its humans to return
    table_linger: float = 300.0  # seconds an empty table waits before it closes
    table_fee: int = 0  # coins × stake each player pays the house a hand (§2.5)
    match_seed: bytes | None = None  # None: a fresh seed per match (tests fix one)
    brains: Brains | None = None  # bot decisions in worker processes (None: in the loop)
    node: str | None = None  # on several nodes, this one: it settles only what it leases
    report: Reporter = lambda report: None  # to the registry, after a change
    # Wrong table passwords per (table, address): guessing slows down (docs/hosting.md).
    password_tries: Backoff = field(
        default_factory=lambda: Backoff(free=5, base=1.0, cap=300.0, forget=3600.0)
    )

    def password_key(self, table_id: int, address: str) -> str:
        return f"{table_id}\0{address_key(address)}"
