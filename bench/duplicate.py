"""A duplicate session on a real server: 16 players, four tables, the same 8 deals at
every table (docs/rules.md §2.14). The players are bot clients over TCP that discard at
random and win when they can; half of them also make every chow, pung or kong they
are offered and the other half none, so the tables play the deals differently. Then
each table's match is exported as a signed replay file, as the
host exports it, and the files are checked. Prints::

    deals: 8
    identical deals per seat: N/N
    replay files verified: 4/4
    score sum per deal: 0
    calls per table: N,N,N,N
    sealed hand ends: N/N, deals unsealed at one table alone: 8/8
    wall-clock: N s

"identical deals per seat" counts the (deal, seat) pairs whose dealt tiles and draws,
read from the four replay files, are the same at every table (a seat that got further
down its wall drew more, the same tiles first). "score sum per deal" sums, for each
deal, every result's points minus the mean of the other tables' results for the same
seat (it is 0 for every deal when the comparison is fair). "calls per table" counts the
chows, pungs and kongs made at each table: the tables did not play the deals alike.
"sealed hand ends" counts the hand results the players received without a wall (a deal
still to be played at another table), and the deals whose results came with their walls
at one table alone (by the rules, the last to play the deal).

    uv run python bench/duplicate.py
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from server.wireclient import WireClient
from tournament import Server

from gbmj.replay import Replay, ReplayId, dumps, hand_state, verify_text
from gbmj.replay.verify import Trust
from gbmj.tournament.duplicate import Result, deal_sums
from gbmj_server.config import ServerConfig
from gbmj_server.export import stored_replay
from gbmj_server.signing import load_signer
from gbmj_server.storage import Storage
from protocol import messages as m

CALLS = ("win", "exposed_kong", "pung", "chow", "concealed_kong", "added_kong")


class Caller:
    """A player over TCP that wins when it can, makes every call it is offered (if
    ``calls``) and discards at random."""

    def __init__(self, port: int, name: str, seed: int, calls: bool) -> None:
        self.port, self.name, self.calls = port, name, calls
        self.rng = random.Random(seed)
        self.client: WireClient | None = None
        self.table_id = 0
        self.results: list[tuple[int, int, bool]] = []  # (deal, table, sealed) received

    async def connect(self) -> WireClient:
        self.client = WireClient(await trio.open_tcp_stream("127.0.0.1", self.port))
        await self.client.hello()
        await self.client.register(self.name)
        return self.client

    def choose(self, actions: list[dict[str, Any]]) -> dict[str, Any]:
        for kind in CALLS if self.calls else CALLS[:1]:
            offered = [a for a in actions if a["kind"] == kind]
            if offered:
                return dict(self.rng.choice(offered))
        rest = [a for a in actions if a["kind"] in ("discard", "pass")]
        passes = [a for a in rest if a["kind"] == "pass"]
        return dict(passes[0] if passes else self.rng.choice(rest or actions))

    async def play(self) -> None:
        client = self.client
        assert client is not None
        while True:
            while not client.inbox:
                await client._fill()
            message = client.inbox.pop(0)
            kind = message["type"]
            if kind == "tournament_seated":
                self.table_id = message.get("table_id", self.table_id)
            elif kind == "snapshot":
                self.table_id = message["table"]["table_id"]
            elif kind == "hand_result":
                deal = 4 * (message["round_number"] - 1) + message["hand_number"]
                self.results.append((deal, self.table_id, "wall_order" not in message))
            elif kind == "prompt":
                choice = self.choose(message["actions"])
                await client.send(
                    {"type": "action", "table_id": self.table_id, "seq": message["seq"], **choice}
                )


def check(db: Path, tournament_id: int, deals: int) -> dict[str, str]:
    signer = load_signer(ServerConfig(db=db))
    trust = Trust({signer.fingerprint: "the bench server"}, "the bench")
    with Storage(db) as store:
        tables = sorted(store.session_tables(tournament_id, 1), key=lambda x: x.number)
        files: list[Replay] = []
        for table in tables:
            assert table.match_id is not None
            replay = stored_replay(store, ReplayId("match", table.match_id), "bench", signer)
            files.append(replay)
    verified = sum(verify_text(dumps(f), trust).ok for f in files)
    # What each seat was dealt and drew, deal by deal, at each table (from the files).
    same = 0
    results: list[Result] = []
    for k in range(deals):
        seen: list[tuple[list[tuple[Any, ...]], list[list[Any]]]] = []
        for t, replay in enumerate(files):
            hand = replay.hands[k]
            state = hand_state(hand, match_id=replay.match.match_id)
            dealt: list[tuple[Any, ...]] = [() for _ in range(4)]
            drawn: list[list[Any]] = [[] for _ in range(4)]
            for ev in state.events:
                if isinstance(ev, m.Deal) and ev.tiles is not None:
                    dealt[ev.seat] = ev.tiles
                elif isinstance(ev, m.Draw) and ev.tile is not None:
                    drawn[ev.seat].append(ev.tile)
            seen.append((dealt, drawn))
            for seat, points in enumerate(hand.result.points):
                results.append(Result(k, seat, 4 * t + seat, points, t))
        for seat in range(4):
            dealt_alike = len({tuple(s[0][seat]) for s in seen}) == 1
            longest = max((s[1][seat] for s in seen), key=len)
            draws_alike = all(s[1][seat] == longest[: len(s[1][seat])] for s in seen)
            same += dealt_alike and draws_alike
    calls = [sum(a.kind.value in CALLS[1:] for h in f.hands for a in h.actions) for f in files]
    sums = deal_sums(results)
    shown = sorted({str(v) for v in sums.values()}, key=lambda v: Fraction(v))
    return {
        "deals": str(min(len(f.hands) for f in files)),
        "identical deals per seat": f"{same}/{4 * deals}",
        "replay files verified": f"{verified}/{len(files)}",
        "score sum per deal": ",".join(shown),
        "calls per table": ",".join(map(str, calls)),
    }


def sealed_line(received: list[tuple[int, int, bool]], deals: int) -> str:
    """How many hand results came sealed, and for how many deals the walls came with
    the results of one table alone (the last to play it: docs/rules.md §2.14)."""
    sealed = sum(1 for _, _, s in received if s)
    unsealed_at = [{t for d, t, s in received if d == k and not s} for k in range(1, deals + 1)]
    one = sum(1 for tables in unsealed_at if len(tables) == 1)
    return f"{sealed}/{len(received)}, deals unsealed at one table alone: {one}/{deals}"


async def main(deals: int) -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder))
        await server.start()
        try:
            said = await server.admin(
                action="create",
                name="bench duplicate",
                sessions=1,
                hands=deals,
                turn_seconds=5,
                grace_seconds=30,
                pause_seconds=0,
                duplicate=True,
            )
            tournament_id = int(said.split()[1])
            callers = [Caller(server.port, f"dup{n:02d}", n, n % 2 == 0) for n in range(16)]
            for caller in callers:
                client = await caller.connect()
                await client.ok("enter_tournament", tournament_id=tournament_id)
            await server.admin(action="start", id=tournament_id)
            async with trio.open_nursery() as nursery:
                for caller in callers:
                    nursery.start_soon(caller.play)
                while True:
                    with Storage(server.db) as store:
                        found = store.tournament(tournament_id)
                    if found is not None and found.state == "finished":
                        break
                    await trio.sleep(0.2)
                nursery.cancel_scope.cancel()
        finally:
            await server.stop()
        result = check(server.db, tournament_id, deals)
        result["sealed hand ends"] = sealed_line([r for c in callers for r in c.results], deals)
    for key, value in result.items():
        print(f"{key}: {value}")
    print(f"wall-clock: {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=8)
    args = parser.parse_args()
    trio.run(main, args.deals)
