"""Bot decisions off the event loop: worker processes that hold the tables' bots.

A hard bot thinks about 1.5 ms a decision (up to 30 ms), some 70 decisions a hand: on
the event loop that is more than the rest of a bot table's work, and every other table
waits behind it. ``Brains`` runs ``workers`` child processes instead. A seat's bot is
sent to one of them once (pickled, with its random state and caches, so it decides
exactly as it would have in the server), and so is the hand in play (the worker keeps
a replica of it); from then on a decision costs the loop only the steps played since
the worker last heard, as plain tuples, and the chosen action back.

The child speaks length-prefixed pickle frames over its standard input and output (it is
the server's own process: nothing else writes to these pipes). A decision that fails
there, or a worker that died, is answered ``None``: the caller decides in the loop.
"""

from __future__ import annotations

import itertools
import logging
import pickle
import subprocess
import sys
import weakref
from typing import Any

import trio

from gbmj.bots import Bot
from gbmj.game.actions import from_plain
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from protocol.messages import ActionChoice

log = logging.getLogger(__name__)

HEADER = 4


def _frame(message: object) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(body).to_bytes(HEADER, "big") + body


class _Worker:
    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.lock = trio.Lock()  # one frame at a time on its input
        self.waiting: dict[int, list[Any]] = {}  # request id -> [done, choice]
        self.synced: dict[int, int] = {}  # hand key -> steps of its log the worker has
        self.forgotten: list[tuple[str, int]] = []  # bots and hands gone, told next time
        self.alive = True

    async def send(self, message: object) -> None:
        assert self.process.stdin is not None
        async with self.lock:
            await self.process.stdin.send_all(_frame(message))

    async def read(self) -> None:
        """Answers to their requests, until the worker's output ends."""
        assert self.process.stdout is not None
        buffer = bytearray()
        try:
            while data := await self.process.stdout.receive_some(65536):
                buffer += data
                while len(buffer) >= HEADER:
                    end = HEADER + int.from_bytes(buffer[:HEADER], "big")
                    if len(buffer) < end:
                        break
                    request_id, choice = pickle.loads(buffer[HEADER:end])
                    del buffer[:end]
                    slot = self.waiting.pop(request_id, None)
                    if slot is not None:
                        slot[1] = choice
                        slot[0].set()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.alive = False
            for slot in self.waiting.values():  # their callers decide in the loop
                slot[0].set()
            self.waiting.clear()


class Brains:
    def __init__(self, workers: int) -> None:
        self.workers_wanted = workers
        self._workers: list[_Worker] = []
        self._keys: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
        self._next_key = itertools.count(1)
        self._ids = itertools.count(1)
        self.decided = 0  # decisions the workers made

    @property
    def running(self) -> bool:
        return any(w.alive for w in self._workers)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Start the workers and keep them until cancelled (then they are killed)."""
        command = [sys.executable, "-m", "gbmj_server.tables.brains"]
        async with trio.open_nursery() as nursery:
            for _ in range(self.workers_wanted):
                process = await trio.lowlevel.open_process(
                    command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
                worker = _Worker(process)
                self._workers.append(worker)
                nursery.start_soon(worker.read)
            task_status.started()
            try:
                await trio.sleep_forever()
            finally:
                for worker in self._workers:
                    worker.alive = False
                    with trio.CancelScope(shield=True):
                        worker.process.kill()
                        await worker.process.wait()

    def _key(self, thing: object, kind: str) -> tuple[int, bool]:
        """``thing``'s number for the workers, and whether it is new to them. Once
        ``thing`` is gone the workers are told to drop it."""
        key = self._keys.get(thing)
        if key is not None:
            return key, False
        key = self._keys[thing] = next(self._next_key)
        weakref.finalize(thing, self._forget, kind, key)
        return key, True

    def _forget(self, kind: str, key: int) -> None:
        for worker in self._workers:
            worker.forgotten.append((kind, key))
            worker.synced.pop(key, None)

    async def choose(
        self, seat: object, brain: Bot, hand: HandState, s: int
    ) -> ActionChoice | None:
        """``brain``'s choice for engine seat ``s`` of ``hand`` (the bot of ``seat``,
        handed to a worker on first use); None when no worker could decide."""
        bot_key, fresh = self._key(seat, "bot")
        worker = self._workers[bot_key % len(self._workers)] if self._workers else None
        if worker is None or not worker.alive:
            return None
        hand_key, _ = self._key(hand, "hand")
        synced = worker.synced.get(hand_key)
        if synced is None:  # the hand itself, once per worker: steps from then on
            replica: HandState | None = hand
            steps: list[tuple[int, str | None, int | None]] = []
        else:
            replica = None
            steps = [
                (seat_no, None, None)  # an escape
                if a is None
                else (seat_no, a.kind.value, None if a.tile is None else int(a.tile))
                for seat_no, a in hand.log[synced:]
            ]
        worker.synced[hand_key] = len(hand.log)
        request_id = next(self._ids)
        slot: list[Any] = [trio.Event(), None]
        worker.waiting[request_id] = slot
        forgotten, worker.forgotten = worker.forgotten, []
        message = (request_id, bot_key, brain if fresh else None, hand_key, replica, steps, s)
        try:
            await worker.send((message, forgotten))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            worker.alive = False
            worker.waiting.pop(request_id, None)
            log.error("bot worker %s is gone: bots decide in the server", worker.process.pid)
            return None
        await slot[0].wait()
        if slot[1] is None:
            return None
        kind, tile = slot[1]
        self.decided += 1
        return from_plain({"kind": kind} if tile is None else {"kind": kind, "tile": tile})


def serve(stdin: Any, stdout: Any) -> None:
    """The worker: decisions for the bots it was handed, on its replicas of their hands,
    until its input ends."""
    bots: dict[int, Bot] = {}
    hands: dict[int, HandState] = {}
    while header := stdin.read(HEADER):
        body = stdin.read(int.from_bytes(header, "big"))
        (request_id, bot_key, brain, hand_key, replica, steps, s), forgotten = pickle.loads(body)
        for kind, key in forgotten:
            (bots if kind == "bot" else hands).pop(key, None)
        if brain is not None:
            bots[bot_key] = brain
        if replica is not None:
            hands[hand_key] = replica
        try:
            hand = hands[hand_key]
            for seat_no, kind, tile in steps:
                if kind is None:
                    hand.escape(seat_no)
                    continue
                step = {"kind": kind} if tile is None else {"kind": kind, "tile": tile}
                hand.apply(seat_no, from_plain(step))
            view = make_view(hand, s)
            action = bots[bot_key].choose(view, view.legal_actions)
            choice: tuple[str, int | None] | None = (
                action.kind.value,
                None if action.tile is None else int(action.tile),
            )
        except Exception:  # told back as no answer: the server decides itself
            hands.pop(hand_key, None)
            choice = None
        stdout.write(_frame((request_id, choice)))
        stdout.flush()


if __name__ == "__main__":
    # The worker is not the server: Ctrl-C in a terminal reaches the whole process group,
    # and the server ends its workers itself.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)
