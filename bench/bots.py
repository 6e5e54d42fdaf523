"""Bot strength and speed: four hard bots, and hard against three baselines.

    uv run python bench/bots.py --hands 200
    uv run python bench/bots.py --hands 200 --personal-walls   # the hand of duplicate play

Prints, one figure a line:

- ``win rate``: the share of hands among four hard bots that end in a win;
- ``average fan``: the mean fan (flowers included) of those wins;
- ``hard vs baseline points/hand: M ± H``: one hard bot against three shanten-only
  baselines, the hard seat rotated through all four seats (hand i puts it in seat
  i mod 4); M is its mean points per hand and H the half-width of a 95% confidence
  interval, 1.96 times the standard error of the per-hand points (sample standard
  deviation / sqrt(hands)). Hands are independent (a fresh seeded wall each), so the
  per-hand standard error is the noise;
- ``decision ms p50`` / ``p99`` (and the worst): the wall-clock time of one ``choose``
  call of the measured bot, over every decision of both runs; the same in CPU time of
  the thread (which other processes on a shared machine do not inflate) follows, and
  its worst without the process-wide garbage collections that happened to run inside
  a decision (their pause depends on the whole process's heap, not on the bot).
"""

from __future__ import annotations

import argparse
import gc
import math
import time

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands of each run")
    parser.add_argument("--seed", default="bench", help="prefix of the wall seeds")
    parser.add_argument("--level", default="hard", help="the level measured")
    parser.add_argument(
        "--personal-walls",
        action="store_true",
        help="play the hand of duplicate play, each seat on a wall of its own",
    )
    args = parser.parse_args()
    personal = args.personal_walls

    times: list[float] = []  # wall clock: what a player waits
    cpu: list[float] = []  # this thread's CPU time: the same without other processes
    own: list[float] = []  # CPU time less the process-wide garbage collections inside
    collecting = [0.0, 0.0]  # start of the running collection, total so far

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            collecting[0] = time.thread_time()
        else:
            collecting[1] += time.thread_time() - collecting[0]

    gc.callbacks.append(on_gc)

    def timed(bot, view, legal):
        if bot.level == "baseline":
            return bot.choose(view, legal)
        start, start_cpu, start_gc = time.perf_counter(), time.thread_time(), collecting[1]
        action = bot.choose(view, legal)
        cpu.append(time.thread_time() - start_cpu)
        own.append(cpu[-1] - (collecting[1] - start_gc))
        times.append(time.perf_counter() - start)
        return action

    # Four hard bots.
    wins = 0
    fans = 0
    bots = [make_bot(args.level, seed) for seed in range(4)]
    for i in range(args.hands):
        state = play_hand(
            bots,
            f"{args.seed}-4-{i}".encode(),
            dealer=i % 4,
            on_decision=timed,
            personal_walls=personal,
        )
        result = state.result
        if result is not None and result.score is not None:
            wins += 1
            fans += result.score.total

    # One hard bot against three baselines, seats rotated.
    points: list[int] = []
    for i in range(args.hands):
        seat = i % 4
        bots = [make_bot("baseline", 10 + s) for s in range(4)]
        bots[seat] = make_bot(args.level, 100 + i)
        state = play_hand(
            bots,
            f"{args.seed}-1-{i}".encode(),
            dealer=(i // 4) % 4,
            on_decision=timed,
            personal_walls=personal,
        )
        assert state.result is not None
        points.append(state.result.points[seat])

    n = len(points)
    mean = sum(points) / n
    sd = math.sqrt(sum((p - mean) ** 2 for p in points) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)  # 95% CI from the per-hand standard error
    times.sort()
    cpu.sort()
    own.sort()

    def pct(q: float, values: list[float] = times) -> float:
        return 1000 * values[min(len(values) - 1, int(q * len(values)))]

    print(f"win rate: {wins / args.hands:.2f}")
    print(f"average fan: {fans / wins if wins else 0:.1f}")
    print(f"hard vs baseline points/hand: {mean:.1f} ± {half:.1f}")
    print(f"decision ms p50: {pct(0.5):.2f}")
    print(f"decision ms p99: {pct(0.99):.2f}")
    print(f"decision ms max: {1000 * times[-1]:.2f}")
    print(f"decision cpu ms p50: {pct(0.5, cpu):.2f}")
    print(f"decision cpu ms p99: {pct(0.99, cpu):.2f}")
    print(f"decision cpu ms max: {1000 * cpu[-1]:.2f}")
    print(f"decision cpu ms max without gc: {1000 * own[-1]:.2f}")
    print(f"decisions: {len(times)}")


if __name__ == "__main__":
    main()
