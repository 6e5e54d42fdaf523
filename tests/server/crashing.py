"""A server killed and restarted under play: the harness of the crash test and of
``bench/restart.py``.

Several stake tables play (some with two humans, the rest bots); each human is a test
client answering its prompts and keeping its own tiles from what it was sent. The server
is a subprocess, killed with SIGKILL at random moments and started again on the same
file. After each restart every player signs in again with its session token and must land
straight back at its seat, with the tiles it held before the kill.
"""

from __future__ import annotations

import contextlib
import random
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from gbmj.economy.stakes import hand_payments
from gbmj_server.storage import Storage
from gbmj_server.tables.registry import match_state
from gbmj_tui.local_server import start_local_server
from server.wireclient import TIMEOUT, WireClient, WireDecoder, encode, simple_choice

STAKE = 10
CONFIG = """bot_delay = 0
hand_pause = 0
log_level = "warning"
[limits]
request_rate = 100000.0
request_burst = 100000
"""


@dataclass(eq=False)
class Player:
    """One human at a table, as a test client that keeps its own tiles."""

    name: str
    client: WireClient | None = None
    token: str = ""
    table_id: int = 0
    seat: int | None = None  # the seat of the hand in play (None: none yet)
    tiles: Counter[int] = field(default_factory=Counter)
    seq: int = 0  # the last event seen
    in_hand: bool = False
    finished: bool = False  # its match_result came
    match_results: int = 0
    exact: int = 0  # restarts after which its tiles were compared one for one
    ahead: int = 0  # restarts where the server had a step it never heard of

    def apply(self, message: dict[str, Any]) -> None:
        """Follow the player's own concealed tiles through the messages it gets."""
        kind = message["type"]
        if kind == "snapshot":
            self.seq = message["seq"]
            game = message.get("game")
            self.in_hand = game is not None
            if game is not None:
                self.seat = message["seat"]
                self.tiles = Counter(game["seats"][self.seat]["concealed"])
        elif kind == "match_result":
            self.finished = True
            self.match_results += 1
        elif kind == "event" and message["seq"] > self.seq:
            self.seq = message["seq"]
            event = message["event"]
            if event["kind"] == "hand_start":  # seats change: our deal tells ours
                self.seat, self.tiles, self.in_hand = None, Counter(), True
            elif event["kind"] == "deal" and "tiles" in event:
                self.seat = event["seat"]
            elif event["kind"] == "hand_end":
                self.in_hand = False
            if event.get("seat") != self.seat or self.seat is None:
                return
            tiles = self.tiles
            match event["kind"]:
                case "deal":
                    tiles.update(event["tiles"])
                case "draw":
                    tiles[event["tile"]] += 1
                case "flower" | "discard" | "added_kong":
                    tiles[event["tile"]] -= 1
                case "concealed_kong":
                    tiles[event["tile"]] -= 4
                case "chow" | "pung" | "exposed_kong":
                    used = list(event["tiles"])
                    used.remove(event["claimed_tile"])
                    tiles.subtract(used)
            self.tiles = +tiles

    async def connect(self, port: int) -> dict[str, Any] | None:
        """Sign in (the first time: register and take a seat elsewhere); the snapshot the
        server sends when the player is seated in a running match."""
        self.client = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
        await self.client.hello()
        if not self.token:
            self.token = (await self.client.register(self.name))["token"]
            return None
        await self.client.ok("resume", token=self.token)
        if self.finished:
            return None
        return await self.client.expect("snapshot")

    async def dealt(self) -> None:
        """Read until the first event of the player's match has come, taking nothing
        from the inbox (``play`` follows every message): the match is on file then,
        since every step is written before anyone hears of it."""
        client = self.client
        assert client is not None
        with trio.fail_after(TIMEOUT):
            while not any(message["type"] == "event" for message in client.seen):
                await client._fill()

    async def play(self, seconds: float) -> None:
        """Answer prompts for ``seconds`` (or until the match ends or the server dies)."""
        client = self.client
        assert client is not None
        with trio.move_on_after(seconds):
            while not self.finished:
                while not client.inbox:
                    await client._fill()
                message = client.inbox.pop(0)
                self.apply(message)
                if message["type"] == "prompt" and message["seq"] == self.seq:
                    await client.send(
                        {
                            "type": "action",
                            "table_id": self.table_id,
                            "seq": message["seq"],
                            **simple_choice(message),
                        }
                    )


class Crashes:
    """The server process, its file, and the kills."""

    def __init__(self, folder: Path, seed: int = 0) -> None:
        self.db = folder / "crash.sqlite3"
        self.config = folder / "server.toml"
        self.config.write_text(CONFIG)
        self.rng = random.Random(seed)
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.kills = 0
        self.back_at_seat: list[float] = []  # seconds from a restart to each player's seat
        self.server_exact = 0  # snapshots compared one for one with the file before

    async def start(self) -> float:
        started = time.monotonic()
        self.proc, self.port = await trio.to_thread.run_sync(
            start_local_server, self.db, self.config
        )
        return started

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await trio.to_thread.run_sync(self.proc.wait, 10)
        self.kills += 1

    async def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            await trio.to_thread.run_sync(self.proc.wait, 20)


async def seat(crashes: Crashes, players: list[Player], humans_per_table: int) -> None:
    """Tables of ``humans_per_table`` players and bots, at stake, their matches begun
    (on file, dealt)."""
    for player in players:
        await player.connect(crashes.port)
    for first in range(0, len(players), humans_per_table):
        group = players[first : first + humans_per_table]
        owner = group[0].client
        assert owner is not None
        settings = {
            "name": f"crash {first}",
            "stake": STAKE,
            "rounds": 4,
            "bots_allowed": True,
            "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
        }
        reply = await owner.ok("create_table", settings=settings)
        table_id = reply["table"]["table_id"]
        for n, player in enumerate(group):
            assert player.client is not None
            player.table_id = table_id
            if n:
                await player.client.ok("join_table", table_id=table_id)
            await player.client.ok("sit", table_id=table_id, seat=n)
        for s in range(len(group), 4):
            await owner.ok("add_bot", table_id=table_id, seat=s, level="easy")
        for player in group:
            assert player.client is not None
            await player.client.ok("ready", table_id=table_id, ready=True)
    # The answer to the last ``ready`` comes before the match is written: a kill in
    # between leaves a table that a restart does not bring back, its players in the
    # lobby (docs/rules.md §2.4). The matches are on file once they are dealt.
    for player in players:
        await player.dealt()


async def run_until_killed(crashes: Crashes, players: list[Player]) -> None:
    """Everyone plays until the server is killed at a random moment: after a random
    number of the tables' steps (events the players hear), not of seconds, so that a
    fast machine gets through no more of the matches between two kills than a slow one
    (a few seconds at most, should the tables stop moving)."""
    steps = crashes.rng.randint(3, 60)
    start = sum(p.seq for p in players)
    async with trio.open_nursery() as nursery:
        for player in players:
            if not player.finished:
                nursery.start_soon(_play_through_the_kill, player)
        with trio.move_on_after(5):
            while sum(p.seq for p in players) - start < steps:
                await trio.sleep(0.005)
        await crashes.kill()


async def _play_through_the_kill(player: Player) -> None:
    with contextlib.suppress(EOFError, trio.BrokenResourceError, trio.ClosedResourceError):
        await player.play(60)  # until the kill


def held(db: Path) -> dict[str, tuple[int, Counter[int]]]:
    """What the file says each human of a hand in play holds: (the table's seq, tiles),
    the engine replayed as the restarted server replays it."""
    out: dict[str, tuple[int, Counter[int]]] = {}
    with Storage(db) as store:
        for record in store.running_matches():
            st = match_state(record)
            if not st.in_hand:
                continue
            assert st.hand is not None
            for who in st.participants:
                if who.account_id is not None and who.left is None:
                    seat = st.match.seat_of(who.slot)
                    out[who.name] = (
                        record.last_seq,
                        Counter(int(t) for t in st.hand.concealed(seat)),
                    )
    return out


async def come_back(
    crashes: Crashes,
    players: list[Player],
    started: float,
    before: dict[str, tuple[int, Counter[int]]],
) -> None:
    """After a restart each player signs in again and must be back at its seat with the
    tiles it held. ``before``: what the file held (``held``) before the restart. A
    player may not have heard of the last steps the server wrote (a connection reset
    by the kill drops what it had not read): then only the server's two sides are
    compared, the file before and the snapshot after. The tables players are back at."""
    back: set[int] = set()
    for player in players:
        seen_seq, tiles, in_hand = player.seq, +player.tiles, player.in_hand
        snapshot = await player.connect(crashes.port)
        if snapshot is None:
            continue
        crashes.back_at_seat.append(time.monotonic() - started)
        assert snapshot["table"]["table_id"] == player.table_id
        back.add(player.table_id)
        assert snapshot["seq"] >= seen_seq, "the restarted server forgot a step a player saw"
        player.apply(snapshot)
        if player.name in before and snapshot["seq"] == before[player.name][0]:
            assert player.tiles == before[player.name][1], "the tiles changed in the restart"
            crashes.server_exact += 1
        if snapshot["seq"] == seen_seq and in_hand and player.in_hand:
            assert player.tiles == tiles, (player.name, sorted(tiles), sorted(player.tiles))
            player.exact += 1
        elif snapshot["seq"] > seen_seq:
            player.ahead += 1
    return back


def check_books(db: Path) -> tuple[int, int]:
    """The ledger balances; each hand is settled once and wholly (its coins are its
    points × stake for every human); every match is ended. (hands, matches) checked."""
    with Storage(db) as store:
        assert store.ledger_balanced()
        hands = 0
        match_ids = store.match_ids()
        for match_id in match_ids:
            match = store.match(match_id)
            assert match is not None
            human = {p.name: p.account_id for p in match.players if p.account_id is not None}
            numbers = [h.number for h in store.hands(match_id)]
            assert numbers == list(range(1, len(numbers) + 1)), "a hand missing or doubled"
            for hand in store.hands(match_id):
                names = hand.result["players"]
                transfers = store.hand_transfers(hand.id)
                for seat_no, name in enumerate(names):
                    if name in human:
                        account_id = human[name]
                        net = sum(
                            t.amount
                            * ((t.to_account == account_id) - (t.from_account == account_id))
                            for t in transfers
                        )
                        assert net == hand.result["points"][seat_no] * STAKE, hand.result
                owed = hand_payments(
                    hand.result["points"], STAKE, hand.result["winner"], hand.result["escaper"]
                )
                involved = [
                    p
                    for p in owed
                    if names[p.payer] in human or (p.payee is not None and names[p.payee] in human)
                ]
                assert len(transfers) == len(involved), "a payment missing or made twice"
                hands += 1
    return hands, len(match_ids)


class AutoPlayer:
    """A player at a stake table with three bots, on auto-play, in a thread that reads
    (and forgets) what the server sends: the table plays hand after hand by itself, for
    tests of a server process under load (backups)."""

    def __init__(self, port: int, name: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.decoder = WireDecoder()
        self.ids = 0
        self._request("hello", version=1, client="auto-player/1")
        self._request("register", name=name, password="secret-pw")
        settings = {
            "name": f"{name}'s table",
            "stake": STAKE,
            "rounds": 4,
            "bots_allowed": True,
            "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
        }
        table_id = self._request("create_table", settings=settings)["table"]["table_id"]
        self._request("sit", table_id=table_id, seat=0)
        for s in (1, 2, 3):
            self._request("add_bot", table_id=table_id, seat=s, level="easy")
        self._request("ready", table_id=table_id, ready=True)
        self._request("auto_play", table_id=table_id, on=True)
        self.sock.settimeout(None)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        self.sock.sendall(encode({"type": kind, "id": self.ids, **fields}))
        while True:
            data = self.sock.recv(65536)
            assert data, "the server closed the connection"
            for message in self.decoder.feed(data):
                assert isinstance(message, dict)
                if message.get("id") == self.ids:
                    assert message["type"] != "error", message
                    return message

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while self.sock.recv(65536):
                pass

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
