"""The server process's collector policy: survivors of a full collection are frozen, and
the periodic full collection still frees cycles among them. Run in a child process:
freezing is process-wide."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import gc, weakref, trio
from gbmj_server import collector

class Node:
    pass

collector.start()
frozen = gc.get_freeze_count()
assert frozen > 0, "start freezes what the process holds"

young = gc.get_stats()[0]["collections"]
step = [[n] for n in range(10_000)]  # a step's worth of short-lived objects
del step
assert gc.get_stats()[0]["collections"] == young, "a step's objects are never scanned"

a, b = Node(), Node()
a.other, b.other = b, a  # a cycle, alive for now
gc.collect()
assert gc.get_freeze_count() > frozen, "a full collection's survivors are frozen"

gone = weakref.ref(a)
del a, b  # now cyclic garbage among frozen objects
gc.collect()
assert gone() is not None, "a frozen cycle waits for the periodic collection"

async def main():
    with trio.move_on_after(0.5):
        await collector.run(every=0.05)

trio.run(main)
assert gone() is None, "the periodic full collection freed it"
print("ok")
"""


def test_survivors_are_frozen_and_the_periodic_collection_frees_frozen_cycles() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
