"""How long pruning the hand logs takes (docs/hosting.md, "Hand logs and recorders"):
a database of ``--hands`` ended hands, all past the host's days, one in a hundred saved
with a recorder; the first pruning empties the rest a batch at a time, as the server's
housekeeping does, and the next one (nothing left) shows what an hourly run costs
afterwards. The longest batch is how long a table's settlement may wait behind it.

    uv run python bench/prune.py [--hands 20000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "history"))

from recorder import record_match, sitters  # noqa: E402

from gbmj_server.handlers.history import PRUNE_BATCH  # noqa: E402
from gbmj_server.storage import Storage  # noqa: E402

DAY = 86400.0


def fill(store: Storage, hands: int) -> list[int]:
    """One recorded match's hands copied until there are ``hands`` of them (the logs are
    real ones, a few kilobytes each), all a year and a day old; their ids."""
    match = record_match(store, sitters(store, "alice", "bob"), b"prune-bench", hands=2)
    db = store._db
    with db:
        rows = db.execute(
            "SELECT result, event_log FROM hand WHERE match_id = ?", (match.match_id,)
        ).fetchall()
        settings = db.execute("SELECT settings FROM match WHERE id = ?", (match.match_id,))
        (raw_settings,) = settings.fetchone()
        old = time.time() - 366 * DAY
        for _ in range(hands // 16):
            cur = db.execute(
                "INSERT INTO match (table_name, started_at, ended_at, end_reason, public, "
                "settings) VALUES ('bench', ?, ?, 'finished', 1, ?)",
                (old, old, raw_settings),
            )
            for n in range(16):
                result, log = rows[n % len(rows)]
                db.execute(
                    "INSERT INTO hand (match_id, number, round, hand_number, result, "
                    "event_log, played_at) VALUES (?, ?, 1, 1, ?, ?, ?)",
                    (cur.lastrowid, n + 1, result, log, old),
                )
        db.execute("UPDATE hand SET played_at = ?", (old,))
    return [r[0] for r in db.execute("SELECT id FROM hand")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as where:
        store = Storage(Path(where) / "gbmj.sqlite3")
        ids = fill(store, args.hands)
        alice = store.account_by_name("alice")
        assert alice is not None
        for hand_id in ids[::100]:
            store.save_hand(alice.id, hand_id, None)
        before = time.time() - 365 * DAY
        batches: list[float] = []
        pruned = 0
        start = time.perf_counter()
        while True:
            t = time.perf_counter()
            n = store.prune_hand_logs(before, PRUNE_BATCH)
            batches.append((time.perf_counter() - t) * 1000)
            pruned += n
            if n < PRUNE_BATCH:
                break
        total = (time.perf_counter() - start) * 1000
        t = time.perf_counter()
        again = store.prune_hand_logs(before, PRUNE_BATCH)
        idle = (time.perf_counter() - t) * 1000
        kept = sum(store.hand_log(h) is not None for h in ids[::100])
        store.close()
    print(f"{len(ids)} hands, {len(ids[::100])} saved: {pruned} logs pruned in {total:.0f} ms")
    print(f"  {len(batches)} batches of {PRUNE_BATCH}: the longest {max(batches):.1f} ms")
    print(f"  the next run (nothing to prune): {idle:.2f} ms, {again} pruned")
    print(f"  saved hands still replayable: {kept} of {len(ids[::100])}")


if __name__ == "__main__":
    main()
