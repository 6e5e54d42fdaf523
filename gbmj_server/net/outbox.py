"""A connection's outbox: encoded frames waiting for its writer, bounded twice.

In frames (a client far behind is not reading) and in bytes (a few large frames, such
as table lists, must not pile up megabytes for a client that never reads). ``put``
never blocks: over either bound it refuses, and the caller drops the connection, so a
slow reader can never slow a table or another client down.
"""

from __future__ import annotations

from collections import deque

import trio


class Outbox:
    def __init__(self, max_frames: int, max_bytes: int) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self._frames: deque[bytes] = deque()
        self._bytes = 0
        self._wake: trio.Event | None = None
        self.closed = False

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def put(self, frame: bytes) -> bool:
        """Queue a frame; False (nothing queued) when it would pass a bound."""
        if self.closed:
            return True  # the connection is ending: nothing more is sent, nothing to drop
        if len(self._frames) >= self.max_frames or self._bytes + len(frame) > self.max_bytes:
            return False
        self._frames.append(frame)
        self._bytes += len(frame)
        if self._wake is not None:
            self._wake.set()
        return True

    def close(self) -> None:
        """No more frames; the writer sends what is queued and ends."""
        self.closed = True
        if self._wake is not None:
            self._wake.set()

    def discard(self) -> None:
        """The connection is gone: what is queued goes now, not when the rest of the
        connection's objects are collected."""
        self.closed = True
        self._frames.clear()
        self._bytes = 0

    async def take(self) -> bytes:
        """Everything queued, as one write (``b""`` once closed and empty)."""
        while not self._frames:
            if self.closed:
                return b""
            self._wake = trio.Event()
            await self._wake.wait()
        self._wake = None
        data = b"".join(self._frames)
        self._frames.clear()
        self._bytes = 0
        return data
