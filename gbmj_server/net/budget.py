"""The one memory budget of the game port: bytes held in connections' buffers.

What a connection holds (a frame still arriving, a TLS record partly read, what its
client has left unread) counts against ``buffers_total``; over it, the connection that
has held bytes the longest is dropped (docs/hosting.md, "Limits"). A module of its own:
the connections report to it and the guard sizes it, and neither needs the other's
code for that.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from typing import Protocol

log = logging.getLogger(__name__)


class Holder(Hashable, Protocol):
    """A connection as the budget sees it: it can be told to close."""

    def close(self, reason: str) -> None: ...


class Buffers:
    """Bytes held in connections' buffers, at most ``total`` together. Each connection
    reports what it holds; the table keeps them in the order they began to hold (one
    that comes down to nothing leaves it), so the one holding longest is the first."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.held = 0
        self._by: dict[Holder, int] = {}

    def __len__(self) -> int:
        return len(self._by)

    def update(self, conn: Holder, held: int) -> None:
        before = self._by.pop(conn, 0) if held <= 0 else self._by.get(conn, 0)
        if held > 0:
            self._by[conn] = held
        self.held += max(held, 0) - before
        while self.held > self.total and self._by:
            oldest = next(iter(self._by))
            self.forget(oldest)
            log.info("%r: over the buffer budget (%d bytes held), dropped", oldest, self.held)
            oldest.close("over the server's buffer budget")

    def forget(self, conn: Holder) -> None:
        self.held -= self._by.pop(conn, 0)
