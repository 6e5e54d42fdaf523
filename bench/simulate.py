"""Simulated hands per second with every invariant checked (issue 3).

    uv run python bench/simulate.py --hands 2000 --repeat 3

Plays N complete hands with the random legal policy of
``gbmj.game.invariants.play_random_hand`` (a win taken nine times in ten, a
timeout one step in ten), checks the invariants after every step and replays each hand
from its plain form, then prints ``hands/s: N`` and the shares of wins and draws.
``--no-check`` times the engine alone. The machine is shared: ``--repeat`` runs the same
hands several times and reports the best run, with the load average before each run.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

from gbmj.game.invariants import play_random_hand


def run(hands: int, seed: int, check: bool) -> tuple[float, float, Counter[str]]:
    """(wall seconds, CPU seconds, outcomes) of ``hands`` hands."""
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(hands):
        state = play_random_hand(f"bench-{i}".encode(), rng, check=check)
        outcomes[state.result.outcome.value] += 1
    return time.perf_counter() - start, time.process_time() - cpu_start, outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="runs; the best is reported")
    parser.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    args = parser.parse_args()
    play_random_hand(b"warm-up", random.Random(0))  # build the rules' tables first
    n = args.hands
    best: tuple[float, float, Counter[str]] | None = None
    for r in range(args.repeat):
        load = os.getloadavg()[0]
        elapsed, cpu, outcomes = run(n, args.seed, not args.no_check)
        if args.repeat > 1:
            print(
                f"run {r + 1}: {n / elapsed:.0f} hands/s, {n / cpu:.0f} per CPU s, load {load:.2f}"
            )
        if best is None or elapsed < best[0]:
            best = (elapsed, cpu, outcomes)
    assert best is not None
    elapsed, cpu, outcomes = best
    print(f"hands/s: {n / elapsed:.0f}")
    print(f"hands per CPU second: {n / cpu:.0f} (less sensitive to a busy machine)")
    print(f"wins: {outcomes['win'] / n:.1%}")
    print(f"draws: {outcomes['exhaustive_draw'] / n:.1%}")
    print(f"checks: {'off' if args.no_check else 'every step + replay of every hand'}")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
