"""Kill a loaded server with SIGKILL and restart it on the same file, again and again.

Tables of humans (test clients answering at once) and bots play stake matches; the
server is killed at random moments and started again. Prints::

    kills: N, matches resumed: N/N, hands lost: 0, ledger balanced: yes
    back at the seat after a restart, ms: p50 N, max N

"matches resumed" counts, at each restart, the matches the file held unfinished and
those whose players were back at their seats; "hands lost" the hands missing from a
finished match. The harness is the crash test's (tests/server/crashing.py).

    uv run python bench/restart.py --kills 50 --players 8
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server.crashing import (
    Crashes,
    Player,
    check_books,
    come_back,
    held,
    run_until_killed,
    seat,
)

from gbmj_server.storage import Storage

HANDS = 16  # a four-round match


async def main(kills: int, players: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        crashes = Crashes(Path(folder), seed)
        people = [Player(f"crash{n}") for n in range(players)]
        await crashes.start()
        await seat(crashes, people, humans_per_table=2)
        running = resumed = 0
        try:
            while crashes.kills < kills and not all(p.finished for p in people):
                await run_until_killed(crashes, people)
                with Storage(crashes.db) as store:
                    running += len(store.running_matches())
                before = held(crashes.db)
                started = await crashes.start()
                resumed += len(await come_back(crashes, people, started, before))
            async with trio.open_nursery() as nursery:
                for player in people:
                    nursery.start_soon(player.play, 600)
        finally:
            await crashes.stop()
        check_books(crashes.db)
        with Storage(crashes.db) as store:
            lost = sum(HANDS - len(store.hands(i)) for i in store.match_ids())
            balanced = store.ledger_balanced()
        back = sorted(1000 * s for s in crashes.back_at_seat)
        print(
            f"kills: {crashes.kills}, matches resumed: {resumed}/{running}, "
            f"hands lost: {lost}, ledger balanced: {'yes' if balanced else 'NO'}"
        )
        print(
            f"back at the seat after a restart, ms: p50 {statistics.median(back):.0f}, "
            f"max {back[-1]:.0f} ({len(back)} returns)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--players", type=int, default=8, help="humans, two a table")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    trio.run(main, args.kills, args.players, args.seed)
