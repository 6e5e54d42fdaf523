"""``AsyncStorage``: the synchronous ``Storage`` called from trio through worker threads.

The store gets one ``CapacityLimiter(1)`` (one connection, SQLite's or PostgreSQL's, one
thread at a time); password hashing gets its own limiter so a burst of logins never holds
up the database.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import trio

from gbmj_server import metrics
from gbmj_server.storage.db import Storage
from gbmj_server.storage.passwords import hash_password, verify_password

T = TypeVar("T")

# argon2 with default costs uses 64 MiB per hash: allow two at once on a small host.
HASH_THREADS = 2


class AsyncStorage:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._db_limiter = trio.CapacityLimiter(1)
        self._hash_limiter = trio.CapacityLimiter(HASH_THREADS)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` (a ``Storage`` method) in the database thread."""
        call = functools.partial(fn, *args, **kwargs)

        def locked() -> T:
            with self.storage.lock:  # never while the storage is being closed
                return call()

        with metrics.db_call(getattr(fn, "__name__", "call")):
            return await trio.to_thread.run_sync(locked, limiter=self._db_limiter)

    async def hash_password(self, password: str) -> str:
        return await trio.to_thread.run_sync(hash_password, password, limiter=self._hash_limiter)

    async def verify_password(self, password_hash: str, password: str) -> bool:
        return await trio.to_thread.run_sync(
            verify_password, password_hash, password, limiter=self._hash_limiter
        )
