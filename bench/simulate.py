"""Simulated hands per second with every invariant checked (issue 3).

    uv run python bench/simulate.py --hands 2000

Plays N complete hands with the random legal policy of
``gbmj_server.game.invariants.play_random_hand`` (a win taken nine times in ten, a
timeout one step in ten), checks the invariants after every step and replays each hand
from its plain form, then prints ``hands/s: N`` and the shares of wins and draws.
``--no-check`` times the engine alone.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from gbmj_server.game.invariants import play_random_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    play_random_hand(b"warm-up", random.Random(0))  # build the rules' tables first
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(args.hands):
        state = play_random_hand(f"bench-{i}".encode(), rng, check=not args.no_check)
        outcomes[state.result.outcome.value] += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    n = args.hands
    print(f"hands/s: {n / elapsed:.0f}")
    print(f"hands per CPU second: {n / cpu:.0f} (less sensitive to a busy machine)")
    print(f"wins: {outcomes['win'] / n:.1%}")
    print(f"draws: {outcomes['exhaustive_draw'] / n:.1%}")
    print(f"checks: {'off' if args.no_check else 'every step + replay of every hand'}")


if __name__ == "__main__":
    main()
