"""What the views of a hand cost: built at every step of real hands.

    uv run python bench/views.py [--hands 200] [--repeat 3]

Plays ``--hands`` hands with the random legal policy (seeded) and, after every step,
times the three ways the views are built: ``all_views`` (the four seats and a spectator
at once, as the invariant checks do), ``make_view`` of the seat to act (as a bot and the
arena ask) and the server's ``game_view`` of one seat (a snapshot). Each is timed in the
thread's CPU time at every step, the hand's per-seat caches as they are in play. The
machine may be shared: ``--repeat`` plays the same hands again and the best run counts.
Prints ``all_views µs/step``, ``make_view µs/step`` and ``game_view µs/step``.
"""

from __future__ import annotations

import argparse
import random
import time

from gbmj.game.hand_state import HandState
from gbmj.game.views import all_views, make_view
from gbmj.game.wall import Wall
from gbmj_server.tables.wire import game_view


def run(hands: int, seed: int) -> tuple[float, float, float, int]:
    """CPU seconds spent in all_views, make_view and game_view, and the steps."""
    rng = random.Random(seed)
    clock = time.thread_time
    spent = [0.0, 0.0, 0.0]
    steps = 0
    for i in range(hands):
        state = HandState(Wall.from_seed(f"views-{i}".encode(), rng.randrange(4)))
        while True:
            seat = state.to_act[0] if state.to_act else 0
            t0 = clock()
            all_views(state)
            t1 = clock()
            make_view(state, seat)
            t2 = clock()
            game_view(state, seat, 5000)
            t3 = clock()
            spent[0] += t1 - t0
            spent[1] += t2 - t1
            spent[2] += t3 - t2
            steps += 1
            if state.ended:
                break
            seat = rng.choice(state.to_act)
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    return spent[0], spent[1], spent[2], steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = parser.parse_args()
    run(2, 0)  # warm up: the rules' tables, the caches of imports
    best: tuple[float, float, float, int] | None = None
    for _ in range(args.repeat):
        figures = run(args.hands, args.seed)
        if best is None or sum(figures[:3]) < sum(best[:3]):
            best = figures
    assert best is not None
    all_s, make_s, game_s, steps = best
    print(f"steps: {steps}")
    print(f"all_views µs/step: {1e6 * all_s / steps:.1f}")
    print(f"make_view µs/step: {1e6 * make_s / steps:.1f}")
    print(f"game_view µs/step: {1e6 * game_s / steps:.1f}")


if __name__ == "__main__":
    main()
