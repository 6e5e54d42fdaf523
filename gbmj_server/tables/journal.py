"""The journal: every step of a running match on disk before anyone hears of it.

Tables ``await journal.write(entry)`` and only then publish what the step did. One writer
task commits whatever has gathered since its last commit in one transaction (a group
commit), so many busy tables share each commit, and a table waits for one commit at most.
A crash therefore never loses a step a player saw; at worst it keeps one nobody heard of,
which the restarted server replays and shows in its snapshot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import trio

from gbmj_server.storage.matches import JournalEntry
from gbmj_server.storage.nodes import LeaseLost
from gbmj_server.storage.threads import AsyncStorage

log = logging.getLogger(__name__)


class JournalFailed(Exception):
    """The database refused a journal write: the match cannot go on safely."""


@dataclass(eq=False)
class _Batch:
    entries: list[JournalEntry] = field(default_factory=list)
    done: trio.Event = field(default_factory=trio.Event)
    failed: bool = False
    lost: set[int] = field(default_factory=set)  # matches another node leases now


class Journal:
    def __init__(self, store: AsyncStorage, node: str | None = None) -> None:
        self.store = store
        self.node = node  # on several nodes, this one: it writes only what it leases
        self._next = _Batch()
        self._work = trio.Event()
        self.commits = 0  # transactions written (a figure for the benchmarks)

    async def write(self, *entries: JournalEntry) -> None:
        """Return once ``entries`` are committed; ``JournalFailed`` if they cannot be,
        ``LeaseLost`` if another node runs their match now (nothing of it written)."""
        batch = self._next
        batch.entries.extend(entries)
        self._work.set()
        await batch.done.wait()
        if batch.failed:
            raise JournalFailed("the match could not be written to the database")
        if any(e.match_id in batch.lost for e in entries):
            raise LeaseLost("another node runs this match now")

    async def run(self) -> None:
        while True:
            await self._work.wait()
            self._work = trio.Event()
            batch, self._next = self._next, _Batch()
            try:
                batch.lost = await self.store.call(
                    self.store.storage.journal, batch.entries, self.node
                )
                self.commits += 1
            except Exception:
                log.exception("journal: a write of %d entries failed", len(batch.entries))
                batch.failed = True
            batch.done.set()
