"""A club tournament on a real server: 16 bot clients register over TCP and play a
5-session tournament of short sessions; the server is killed with SIGKILL once in the
middle of a session and started again on the same file. Prints::

    players: 16
    sessions: 5
    repeat meetings: N
    table points per table: 84
    standings consistent: yes|no
    killed in session 3 with N of its matches running; wall-clock: N s (kills: 1)

"repeat meetings" counts the pairs seated together again (16 players and 5 sessions
follow the schedule in which everyone meets everyone once: 0). "standings consistent"
recomputes every session's scores from the stored hands' own results, their table
points, and the standings from those, and compares them with what the server recorded.

    uv run python bench/tournament.py --hands 2
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server.wireclient import WireClient, simple_choice

from gbmj.tournament.points import places, table_points
from gbmj.tournament.seating import meetings
from gbmj.tournament.standings import SessionResult, standings
from gbmj_server import admin_socket
from gbmj_server.storage import Storage
from gbmj_server.tournaments.runner import load_detail
from gbmj_tui.local_server import start_local_server

CONFIG = """bot_delay = 0
hand_pause = 0
log_level = "warning"
[limits]
request_rate = 100000.0
request_burst = 100000
"""


class Server:
    """The server process on its file; its port changes at each start."""

    def __init__(self, folder: Path) -> None:
        self.db = folder / "tournament.sqlite3"
        self.config = folder / "server.toml"
        self.config.write_text(CONFIG)
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.up = trio.Event()
        self.kills = 0

    async def start(self) -> None:
        self.proc, self.port = await trio.to_thread.run_sync(
            start_local_server, self.db, self.config
        )
        self.up.set()

    async def kill(self) -> None:
        assert self.proc is not None
        self.up = trio.Event()
        self.proc.send_signal(signal.SIGKILL)
        await trio.to_thread.run_sync(self.proc.wait, 10)
        self.kills += 1

    async def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            await trio.to_thread.run_sync(self.proc.wait, 20)

    async def admin(self, **request: Any) -> str:
        """A host's tournament command through the admin socket (which opens a moment
        after the server says it listens)."""
        for _ in range(100):
            reply = await trio.to_thread.run_sync(
                admin_socket.call, self.db, {"command": "tournament", **request}
            )
            if reply is not None:
                break
            await trio.sleep(0.05)
        assert reply is not None and reply.get("ok"), reply
        return str(reply["message"])


class Bot:
    """A player: a test client that answers every prompt at once, and signs in again
    (with its session token) when the server comes back."""

    def __init__(self, server: Server, name: str) -> None:
        self.server = server
        self.name = name
        self.token = ""
        self.client: WireClient | None = None
        self.table_id = 0
        self.session = 0
        self.hand_results: Counter[int] = Counter()  # by session

    async def connect(self) -> None:
        await self.server.up.wait()
        self.client = WireClient(await trio.open_tcp_stream("127.0.0.1", self.server.port))
        await self.client.hello()
        if self.token:
            await self.client.ok("resume", token=self.token)
        else:
            self.token = (await self.client.register(self.name))["token"]

    async def play(self, done: trio.Event) -> None:
        while not done.is_set():
            try:
                await self._answer()
            except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self.server.up.wait()  # killed: back when it is up again
                with contextlib.suppress(OSError):
                    await self.connect()

    def heard(self, message: dict) -> None:
        """A message this bot read (a subclass keeps what it needs of it)."""

    async def before_answering(self) -> None:
        """Called before each answer to a prompt (a subclass may hold its turn)."""

    async def _answer(self) -> None:
        client = self.client
        assert client is not None
        while True:
            while not client.inbox:
                await client._fill()
            message = client.inbox.pop(0)
            kind = message["type"]
            if kind == "tournament_seated":
                self.session = message["session"]
                self.table_id = message.get("table_id", self.table_id)
            elif kind == "snapshot":
                self.table_id = message["table"]["table_id"]
            elif kind == "hand_result":
                self.hand_results[self.session] += 1
            self.heard(message)
            if kind == "prompt":
                await self.before_answering()
                await client.send(
                    {
                        "type": "action",
                        "table_id": self.table_id,
                        "seq": message["seq"],
                        **simple_choice(message),
                    }
                )


def figures(db: Path, tournament_id: int) -> dict[str, str]:
    with Storage(db) as store:
        detail = load_detail(store, tournament_id)
        sessions = store.tournament_sessions(tournament_id)
        tables = detail.tables
        by_session: dict[int, list[tuple[int, ...]]] = {}
        for table in tables:
            by_session.setdefault(table.session, []).append(table.players)
        met = meetings(by_session[s] for s in sorted(by_session))
        repeats = sum(count - 1 for count in met.values())
        sums = Counter()
        for r in detail.results:
            sums[(r.session, r.table_number)] += r.table_points
        # Recomputed from the hands: each table's scores, table points and places, then
        # the standings, against what the server recorded.
        names = {e.n: e.name for e in detail.entrants}
        recomputed = []
        for table in tables:
            assert table.match_id is not None
            totals = store.scores_from_hands(table.match_id)
            scores = [totals.get(names.get(n, ""), 0) for n in table.players]
            points, ranks = table_points(scores), places(scores)
            for place, n in enumerate(table.players):
                if n in names and n not in table.absent:
                    recomputed.append(
                        SessionResult(n, table.session, points[place], scores[place], ranks[place])
                    )
        stored = sorted((r.n, r.session, r.table_points, r.score, r.place) for r in detail.results)
        again = sorted((r.player, r.session, r.table_points, r.score, r.place) for r in recomputed)
        order = [line.player for line in standings(list(names), recomputed)]
        consistent = stored == again and order == [line.player for line in detail.standings]
    return {
        "players": str(len(detail.entrants)),
        "sessions": str(sum(1 for s in sessions if s.finished_at is not None)),
        "repeat meetings": str(repeats),
        "table points per table": ",".join(sorted({str(v) for v in sums.values()})),
        "standings consistent": "yes" if consistent else "no",
    }


async def main(players: int, sessions: int, hands: int, kill_in: int) -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder))
        await server.start()
        bots = [Bot(server, f"club{n:02d}") for n in range(players)]
        done = trio.Event()
        try:
            said = await server.admin(
                action="create",
                name="bench club",
                sessions=sessions,
                hands=hands,
                turn_seconds=5,
                grace_seconds=20,
                pause_seconds=0,
            )
            tournament_id = int(said.split()[1])
            for bot in bots:
                await bot.connect()
                assert bot.client is not None
                await bot.client.ok("enter_tournament", tournament_id=tournament_id)
            await server.admin(action="start", id=tournament_id)
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.play, done)
                # The kill: once a hand of session ``kill_in`` has ended somewhere.
                while not any(b.hand_results[kill_in] for b in bots):
                    await trio.sleep(0.01)
                await server.kill()
                with Storage(server.db) as store:  # the file alone, between kill and start
                    running = len(store.running_matches())
                await server.start()
                while True:
                    with Storage(server.db) as store:
                        found = store.tournament(tournament_id)
                    if found is not None and found.state == "finished":
                        break
                    await trio.sleep(0.2)
                done.set()
                nursery.cancel_scope.cancel()
        finally:
            await server.stop()
        result = figures(server.db, tournament_id)
    for key, value in result.items():
        print(f"{key}: {value}")
    print(
        f"killed in session {kill_in} with {running} of its matches running; "
        f"wall-clock: {time.monotonic() - started:.1f} s (kills: {server.kills})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--hands", type=int, default=2, help="a session's hands")
    parser.add_argument("--kill-in", type=int, default=3, help="the session to kill in")
    args = parser.parse_args()
    trio.run(main, args.players, args.sessions, args.hands, args.kill_in)
