"""The coach's speed: the hints of a 14-tile hand, over real positions.

    uv run python bench/hint.py --hands 40

Four hard bots play ``--hands`` hands (``gbmj.bots.arena``); every position where a seat
holds 14 tiles on its turn is kept, as that seat sees it (``coach.sight_of``). Then
``coach.hints`` is timed on each, and the script prints the positions, p50, p99 and the
worst in milliseconds of wall-clock time, and the same for 13-tile positions (a claim
window: the waits scored). The first position is timed apart (``cold``): the rules'
per-suit tables start empty in a new process, as in a client just started. Last, the
review after a hand (``coach.review``) of an easy bot's seat among three hard bots, per
hand: p50 and the worst, in seconds.
"""

from __future__ import annotations

import argparse
import time

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand
from gbmj.coach import Sight, hints, sight_of
from gbmj.coach.review import review
from gbmj.replay.build import hand_from_log
from protocol import messages as m
from protocol.tiles import Tile


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="hands of bot self-play")
    parser.add_argument("--seed", default="hint", help="prefix of the wall seeds")
    args = parser.parse_args()

    by_size: dict[int, list[Sight]] = {13: [], 14: []}

    def keep(bot, view, legal):  # type: ignore[no-untyped-def]
        s = sight_of(view)
        if s.size in by_size:
            by_size[s.size].append(s)
        return bot.choose(view, legal)

    bots = [make_bot("hard", seat) for seat in range(4)]
    for n in range(args.hands):
        play_hand(bots, f"{args.seed}-{n}".encode(), dealer=n % 4, on_decision=keep)

    first = by_size[14][0]
    start = time.perf_counter()
    hints(first)
    cold = (time.perf_counter() - start) * 1000
    print(f"cold (first position of the process): {cold:.1f} ms")
    for size in (14, 13):
        times = []
        for s in by_size[size]:
            start = time.perf_counter()
            hints(s)
            times.append((time.perf_counter() - start) * 1000)
        print(
            f"{size} tiles: positions {len(times)}  p50 {_percentile(times, 0.5):.2f} ms"
            f"  p99 {_percentile(times, 0.99):.2f} ms  max {max(times):.2f} ms"
        )

    reviews = []
    for n in range(min(args.hands, 20)):
        players = [make_bot("easy", 1), *(make_bot("hard", s) for s in (2, 3, 4))]
        state = play_hand(players, f"{args.seed}-review-{n}".encode(), dealer=n % 4)
        hand = hand_from_log(_log(state))
        start = time.perf_counter()
        review(hand, 0)
        reviews.append(time.perf_counter() - start)
    print(
        f"review: hands {len(reviews)}  p50 {_percentile(reviews, 0.5):.3f} s"
        f"  max {max(reviews):.3f} s"
    )


def _log(state):  # type: ignore[no-untyped-def]
    """A finished hand's log as the server records it."""
    w = state.wall
    actions = tuple(
        m.LoggedAction(seat=seat, kind=a.kind, tile=a.tile, ms=0)
        for seat, a in state.log
        if a is not None
    )
    return m.HandLog(
        hand_id=1, match_id=1, number=1, round_number=1, hand_number=1,
        prevailing_wind=Tile.E, dealer=state.dealer, dice=w.dice, wall_order=tuple(w.order),
        salt=w.salt.hex(), commitment=w.commitment, players=("a", "b", "c", "d"),
        actions=actions, escape=None, points=tuple(state.result.points), coins=None,
    )  # fmt: skip


if __name__ == "__main__":
    main()
