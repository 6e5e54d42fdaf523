"""History and replay speed: ``uv run python bench/history.py``.

Fills a database in a temporary folder with ``--matches`` (10,000) one-round matches of
one player against three others drawn from a pool, and ``--others`` (10,000) matches
without that player, recorded the way the server's tables record them (start, settle
each hand with its payments, end with the standings; see tests/history/recorder.py).
The hands are a few bot-played matches replayed, so filling takes a minute, not hours.
Then prints, one figure a line:

- ``history page ms p50/p99``: ``Storage.matches_of`` for a page of 20 at offsets spread
  over the player's whole history (the first page included);
- ``match detail ms p50/p99``: ``Storage.match_detail`` of matches of the player;
- ``replay load ms``: one hand's log read (``Storage.hand_log``) and replayed with the
  rules into a replay file's hand (``gbmj.replay.hand_from_log``), median;
- ``signed hand log ms``: one hand's log read and signed as ``get_hand`` answers it
  (``gbmj_server.signing``), median;
- ``verify ms per hand``: ``gbmj.replay.verify`` of one match's signed file, per hand,
  median;

and the query plans of the page's two queries (``EXPLAIN QUERY PLAN``), which show the
indexes they walk. Times are wall-clock on a possibly shared machine: medians and the
99th percentile of many calls.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "history"))

from recorder import RecordedMatch, Sitter, record_match  # noqa: E402

from gbmj.replay import ReplayId, hand_from_log, verify  # noqa: E402
from gbmj.replay.verify import Trust  # noqa: E402
from gbmj_server.config import ServerConfig  # noqa: E402
from gbmj_server.export import stored_replay  # noqa: E402
from gbmj_server.signing import load_signer  # noqa: E402
from gbmj_server.storage import Storage  # noqa: E402

TEMPLATES = 4  # bot-played matches whose hands every match replays
POOL = 60  # other players


def timed_ms(call: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def fill(store: Storage, matches: int, others: int) -> tuple[int, list[int]]:
    pool = [store.create_account(f"p{i}", "x").id for i in range(POOL + 1)]  # p0 is measured
    names = {a: f"p{i}" for i, a in enumerate(pool)}
    seats = [Sitter(names[a], a) for a in pool]
    rng = random.Random(7)
    templates: list[tuple[bytes, RecordedMatch]] = []
    for t in range(TEMPLATES):
        seed = f"bench-history-{t}".encode()
        templates.append((seed, record_match(store, seats[:4], seed, write_ahead=False)))
    mine = [r.match_id for _, r in templates]
    plays = [True] * matches + [False] * others  # does the player sit in it?
    rng.shuffle(plays)
    started = time.perf_counter()
    for i, plays_in in enumerate(plays):
        seed, template = templates[i % TEMPLATES]
        seated = [seats[0], *rng.sample(seats[1:], 3)] if plays_in else rng.sample(seats[1:], 4)
        rng.shuffle(seated)
        made = record_match(
            store, seated, seed, choices=template.states, write_ahead=False, table_id=i + 2
        )
        if plays_in:
            mine.append(made.match_id)
        if (i + 1) % 2000 == 0:
            rate = (i + 1) / (time.perf_counter() - started)
            print(f"  {i + 1}/{len(plays)} matches recorded ({rate:.0f}/s)", file=sys.stderr)
    return pool[0], mine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000, help="the player's (10,000)")
    parser.add_argument("--others", type=int, default=10_000, help="without the player")
    parser.add_argument("--runs", type=int, default=500, help="calls timed per figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.sqlite3"
        with Storage(path) as store:
            start = time.perf_counter()
            player, mine = fill(store, args.matches - TEMPLATES, args.others)
            hands = store._db.execute("SELECT count(*) FROM hand").fetchone()[0]
            print(
                f"database: {len(mine)} matches of the player, "
                f"{store._db.execute('SELECT count(*) FROM match').fetchone()[0]} in all, "
                f"{hands} hands, {path.stat().st_size / 1e6:.0f} MB, "
                f"filled in {time.perf_counter() - start:.0f} s"
            )
            total = store.matches_of(player).total
            assert total == len(mine), (total, len(mine))
            rng = random.Random(11)
            offsets = [0] + [rng.randrange(0, total) for _ in range(args.runs - 1)]
            pages = iter(offsets)
            page = timed_ms(lambda: store.matches_of(player, next(pages), 20), args.runs)
            print(f"history page ms p50/p99: {statistics.median(page):.2f} / {p99(page):.2f}")
            picks = iter(rng.choice(mine) for _ in range(args.runs))
            detail = timed_ms(lambda: store.match_detail(next(picks), player), args.runs)
            print(f"match detail ms p50/p99: {statistics.median(detail):.2f} / {p99(detail):.2f}")
            hand_ids = [
                r[0] for r in store._db.execute("SELECT id FROM hand ORDER BY random() LIMIT 200")
            ]
            hand_picks = iter(hand_ids * (args.runs // len(hand_ids) + 1))

            def load() -> None:
                found = store.hand_log(next(hand_picks))
                assert found is not None
                hand_from_log(found.log)

            replay = timed_ms(load, min(args.runs, 200))
            print(f"replay load ms: {statistics.median(replay):.2f}")
            signer = load_signer(ServerConfig(db=path))  # the key beside the database
            signed_picks = iter(hand_ids * (args.runs // len(hand_ids) + 1))

            def sign() -> None:
                found = store.hand_log(next(signed_picks))
                assert found is not None
                signer.hand_log(found.log, found.result)

            signing = timed_ms(sign, min(args.runs, 200))
            print(f"signed hand log ms (read and sign, get_hand): {statistics.median(signing):.2f}")
            file = stored_replay(store, ReplayId("match", mine[-1]), "bench", signer)
            trust = Trust({signer.fingerprint: "bench"}, "the bench's key")
            checks = timed_ms(lambda: verify(file, trust), 20)
            print(f"verify ms per hand: {statistics.median(checks) / len(file.hands):.2f}")
            for what, sql in (
                (
                    "page",
                    "SELECT DISTINCT match_id FROM match_player WHERE account_id = ? "
                    "ORDER BY match_id DESC LIMIT 20 OFFSET 5000",
                ),
                ("total", "SELECT count(DISTINCT match_id) FROM match_player WHERE account_id = ?"),
            ):
                plan = store._db.execute(f"EXPLAIN QUERY PLAN {sql}", (player,)).fetchall()
                print(f"plan of the {what}: " + "; ".join(row[-1] for row in plan))


if __name__ == "__main__":
    main()
