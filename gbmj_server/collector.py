"""The garbage collector's policy for a server process holding thousands of connections.

Each connection keeps a few dozen coroutines, frames and cancel scopes alive for as long
as it is open, so a busy server holds half a million long-lived objects. CPython's full
collection scans them all, and at human pace (a step's objects live through a think
time, long enough to reach the oldest generation) it runs every few seconds: measured
with ``bench/capacity.py`` at 4,000 connections, pauses of 300-400 ms every 2 s.

So what survives a full collection is frozen (``gc.freeze``): later collections scan only
what is newer, and the pauses stay short. Frozen objects that later become cyclic
garbage (a connection's frames left in a cycle when it closes) are not collected while
frozen: every ``FULL_EVERY`` seconds everything is thawed and collected once.

A crowd of connections that came and went since the last freeze leaves its cycles (a
closed connection's frames, held by the exceptions that ended them, and over TLS its
OpenSSL state) to the next full collection, and glibc's ``malloc`` keeps freed pages for
the process: the server would stay at its peak size. Once many connections have gone
(twice as many as are still open: the collection's work, which grows with what is alive
and not frozen, stays small beside what went; a crowd still there is not scanned) the
server calls ``give_back``: a collection of what is not frozen, whose survivors are left
unfrozen (connections still open now may go soon, and frozen they would stay until the
next full collection), and the free pages back to the system. It costs a pause of about
0.07 ms per connection gone (88 ms after a crowd of 1,200), once.

And the young generation is collected after ``THRESHOLDS[0]`` new objects, not
CPython's 700: a step's objects (its frames, its events, its coroutines' state) live a
few milliseconds, and at 700 they were caught alive, moved to the older generations and
scanned again there. With 4,000 connections at human pace that made a 10-40 ms pause
every tenth of a second and a 100 ms one every 3 s, the tail of every latency
(``bench/capacity.py``: p99 110 ms; with these thresholds 23 ms, RSS unchanged).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import cache
from typing import Any

import trio

FULL_EVERY = 600.0  # seconds between two collections of everything
THRESHOLDS = (50_000, 50, 50)  # gc.set_threshold: new objects, then collections of each


_giving_back = False  # a give_back's collection: its survivors stay unfrozen


def _freeze_after_full(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info["generation"] == 2 and not _giving_back:
        gc.freeze()


def start() -> None:
    """Freeze what the process holds now (modules, the rules' tables), and every full
    collection's survivors from now on, and collect the young less often. Once per
    process: a server process calls it."""
    gc.set_threshold(*THRESHOLDS)
    gc.freeze()
    if _freeze_after_full not in gc.callbacks:
        gc.callbacks.append(_freeze_after_full)


async def run(every: float = FULL_EVERY) -> None:
    """Thaw and collect everything every ``every`` seconds (then freeze again)."""
    while True:
        await trio.sleep(every)
        gc.unfreeze()
        gc.collect()  # the callback freezes the survivors


@cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim`` (None where the C library has none)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def give_back() -> None:
    """Collect the garbage that is not frozen (what survives stays unfrozen), and return
    the heap's free pages to the system."""
    global _giving_back
    _giving_back = True
    try:
        gc.collect()
    finally:
        _giving_back = False
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
