"""The server killed with SIGKILL at random moments during stake matches, restarted on
the same database: the ledger balances, and every recorded hand is settled exactly once
and wholly (SPEC §2.5)."""

from __future__ import annotations

import random
import signal
import socket
import time
from pathlib import Path
from typing import Any

from gbmj.economy.stakes import hand_payments
from gbmj_server.storage import Storage
from gbmj_tui.local_server import start_local_server
from server.wireclient import WireDecoder, encode

STAKE = 10
KILLS = 3


class SyncClient:
    """A blocking wire client for a server in another process."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.decoder = WireDecoder()
        self.ids = 0
        self.request("hello", version=1, client="crash-test/1")

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        self.sock.sendall(encode({"type": kind, "id": self.ids, **fields}))
        while True:
            data = self.sock.recv(65536)
            assert data, "the server closed the connection"
            for message in self.decoder.feed(data):
                if message.get("id") == self.ids:  # type: ignore[union-attr]
                    assert message["type"] != "error", message  # type: ignore[index]
                    return message  # type: ignore[return-value]

    def close(self) -> None:
        self.sock.close()


def start_match(port: int, name: str) -> SyncClient:
    """A player at a stake table with three bots, on auto-play: the server plays every
    seat at once, hand after hand."""
    client = SyncClient(port)
    client.request("register", name=name, password="secret-pw")
    timers = {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5}
    settings = {
        "name": "crash",
        "stake": STAKE,
        "rounds": 4,
        "bots_allowed": True,
        "timers": timers,
    }
    table_id = client.request("create_table", settings=settings)["table"]["table_id"]
    client.request("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        client.request("add_bot", table_id=table_id, seat=seat, level="easy")
    client.request("ready", table_id=table_id, ready=True)
    client.request("auto_play", table_id=table_id, on=True)
    return client


def check_books(db: Path) -> int:
    """The ledger balances and each hand's coins are its points × stake, once; returns
    the number of hands checked."""
    with Storage(db) as store:
        assert store.ledger_balanced()
        checked = 0
        for match_id in store.match_ids():
            match = store.match(match_id)
            assert match is not None
            human = {p.name: p.account_id for p in match.players if p.account_id is not None}
            numbers = [h.number for h in store.hands(match_id)]
            assert numbers == list(range(1, len(numbers) + 1)), "a hand missing or doubled"
            for hand in store.hands(match_id):
                names = hand.result["players"]  # who played each seat of the hand
                transfers = store.hand_transfers(hand.id)
                for seat, name in enumerate(names):
                    if name not in human:
                        continue
                    account_id = human[name]
                    net = sum(
                        t.amount * ((t.to_account == account_id) - (t.from_account == account_id))
                        for t in transfers
                    )
                    assert net == hand.result["points"][seat] * STAKE, (hand.result, transfers)
                owed = hand_payments(
                    hand.result["points"], STAKE, hand.result["winner"], hand.result["escaper"]
                )
                involved = [
                    p
                    for p in owed
                    if names[p.payer] in human or (p.payee is not None and names[p.payee] in human)
                ]
                assert len(transfers) == len(involved), "a payment missing or made twice"
                checked += 1
    return checked


def test_sigkill_during_stake_matches_leaves_the_books_whole(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    config = tmp_path / "server.toml"
    config.write_text('bot_delay = 0\nhand_pause = 0\nlog_level = "warning"\n')
    rng = random.Random(0xC0FFEE)
    hands = 0
    for run in range(KILLS):
        proc, port = start_local_server(db, config)
        try:
            client = start_match(port, f"crash{run}")
            time.sleep(rng.uniform(0.3, 1.5))  # hands are being settled now
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=10) == -signal.SIGKILL
            client.close()
        finally:
            proc.kill()
            proc.wait()
        hands = check_books(db)
    assert hands > 0, "no hand was settled before the kills"
    # Restarted on the same file, the server serves again and the books still balance.
    proc, port = start_local_server(db, config)
    try:
        client = SyncClient(port)
        profile = client.request("login", name="crash0", password="secret-pw")["profile"]
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    with Storage(db) as store:
        account = store.account_by_name("crash0")
        assert profile["coins"] == store.balance(account.id)
        rows = store.ledger(account.id, limit=10_000)
        assert (
            sum(t.amount * (1 if t.to_account == account.id else -1) for t in rows)
            == (profile["coins"])
        )
        assert "crash0" in {r.name for r in store.leaderboard(100)}
    assert check_books(db) == hands
