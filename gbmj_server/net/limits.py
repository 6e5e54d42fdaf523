"""Rate limits on the trio clock (so ``MockClock`` drives them in tests)."""

from __future__ import annotations

from collections import deque

import trio

PRUNE_AT = 10_000


class SlidingWindow:
    """At most ``limit`` events per ``window`` seconds for each key."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._events: dict[object, deque[float]] = {}

    def _recent(self, key: object) -> deque[float]:
        now = trio.current_time()
        events = self._events.get(key)
        if events is None:
            return deque()
        while events and events[0] <= now - self.window:
            events.popleft()
        if not events:
            del self._events[key]
        return events

    def blocked(self, key: object) -> bool:
        """True if ``key`` has used up its events in the current window."""
        return len(self._recent(key)) >= self.limit

    def record(self, key: object) -> None:
        if len(self._events) >= PRUNE_AT:  # many keys (e.g. random names): drop stale ones
            for stale in list(self._events):
                self._recent(stale)
        self._recent(key)
        self._events.setdefault(key, deque()).append(trio.current_time())

    def allow(self, key: object) -> bool:
        """Record an event for ``key`` if allowed; False (nothing recorded) if over."""
        if self.blocked(key):
            return False
        self.record(key)
        return True

    def clear(self, key: object) -> None:
        self._events.pop(key, None)
