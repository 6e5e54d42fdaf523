"""Hand settlements per second on each storage engine: one store alone, then two stores
(two connections, two threads) settling at once on the same database, as two
processes would.

    uv run python bench/storage.py [--hands 1000] [--pg postgresql://...]

SQLite runs on a file in a temporary folder; PostgreSQL (``--pg``, an empty database the
bench may fill: it makes its own accounts and matches) only when given. Each settlement
is ``Storage.settle_hand`` with one payment between two players and two rating changes,
the transaction a finished hand commits. Two stores pay between the same two players,
so on PostgreSQL their transactions conflict and some are run again.

Prints one figure a line: ``<engine> <stores> store(s): settlements/s``, the ms p50/p99
of one settlement, and (PostgreSQL) how many transactions were run again; then whether
the ledger balanced.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from gbmj_server.storage import Payment, Storage, hash_password
from gbmj_server.storage import postgres as pg
from gbmj_server.storage.matches import PlayerJoined


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(target: str | Path, hands: int, stores: int) -> None:
    with Storage(target) as setup:
        tag = f"{time.monotonic_ns() % 10**9}"
        alice = setup.create_account(f"a{tag}", hash_password("a")).id
        bob = setup.create_account(f"b{tag}", hash_password("b")).id
        players = [
            PlayerJoined(0, 0, 0, alice, "a"),
            PlayerJoined(0, 1, 1, bob, "b"),
            *(PlayerJoined(0, n, n, None, f"bot-{n}", bot_level="easy") for n in (2, 3)),
        ]
        matches = [
            setup.start_match(t, "bench", {}, b"\x01" * 32, "a", True, "", players)
            for t in range(stores)
        ]
    times: list[float] = []
    retried_before = pg.retried_transactions()
    start = threading.Barrier(stores)

    def settle(match_id: int) -> None:
        with Storage(target) as store:
            start.wait()
            for number in range(1, hands // stores + 1):
                began = time.perf_counter()
                store.settle_hand(
                    match_id,
                    number,
                    1,
                    number,
                    {},
                    b"",
                    payments=[Payment(alice, bob, 1, "hand", 0, 1)],
                    ratings=[(alice, -1), (bob, 1)],
                )
                times.append(time.perf_counter() - began)

    threads = [threading.Thread(target=settle, args=(m,)) for m in matches]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    engine = "postgresql" if isinstance(target, str) else "sqlite"
    print(f"{engine} {stores} store(s): {len(times) / elapsed:.0f} settlements/s")
    print(
        f"{engine} {stores} store(s): settlement ms p50 {_percentile(times, 0.5) * 1000:.2f}"
        f" p99 {_percentile(times, 0.99) * 1000:.2f}"
    )
    if engine == "postgresql":
        again = pg.retried_transactions() - retried_before
        print(f"{engine} {stores} store(s): transactions run again {again}")
    with Storage(target) as store:
        print(f"{engine} {stores} store(s): ledger balanced {store.ledger_balanced()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--pg", help="an empty PostgreSQL database the bench may fill")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for stores in (1, 2):
            run(Path(folder) / f"bench-{stores}.sqlite3", args.hands, stores)
    if args.pg:
        for stores in (1, 2):
            run(args.pg, args.hands, stores)


if __name__ == "__main__":
    main()
