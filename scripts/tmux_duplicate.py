"""Drive a duplicate session (docs/rules.md §2.14) in tmux against a real server, as its
host and one of its players would, and fail if the screen is wrong at any step.

    uv run python scripts/tmux_duplicate.py [--lang zh|en] [--size 100x32] [--captures DIR]

Starts ``gbmj-server`` on a free port with a fresh database and the client in a
detached tmux session of the given size. The host creates a duplicate tournament of one
session of two deals with ``gbmj-server admin tournament create --duplicate``; seven
players (the tournament bench's bot clients, over TCP) register and enter it; the driven
player registers on the connect screen, opens the tournaments (``t``) and enters (``e``);
the host closes registration and starts it: two tables. The other table's players hold
their turns (its clock is long) while the player's table plays both deals, so the
player is the first to play each: every result is sealed, saying the walls are revealed
later; back in the lobby, the history lists the match without its hands (still to be
played at the other table). Then the other table plays; once the host's standings count
the whole session, the history shows the match's hands and a hand replays (``Enter``),
turned face up (``f``). Every capture is saved in DIR. Needs tmux. Exit status 0 when
everything was on screen.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))

from drive_kit import (  # noqa: E402
    HAND,
    PASSWORD,
    WORDS,
    Check,
    Reachable,
    arguments,
    bots_playing,
    capture,
    captures_folder,
    counted,
    host,
    keys,
    leave_seat,
    register,
    served,
    size,
    until,
    wait_for,
)
from tournament import Bot  # noqa: E402  (the tournament bench's bot clients)

SESSION = f"gbmj-duplicate-{os.getpid()}"  # a session of this run's own
PLAYERS = [f"dup{n}" for n in range(1, 8)]  # with the driven player, two tables
NAME = "Duplicate night"
DEALS = 2
OWN_WORDS = {
    "en": {
        "open": "registration open",
        "entered": "You are entered",
        "result": "Enter  Back to the table",  # the result's key bar, not the action line
        "sealed": "revealed later",
        "scale": "Duplicate: the score counts the steps reached",
        "history": "Matches 1-1 of 1",
        "closed": "still to be played at another table (duplicate): 2 of 2",
        "hand": r"round, hand \d",
        "step": "step 0 of",
        "face up": "face up",
    },
    "zh": {
        "open": "报名中",
        "entered": "报名成功",
        "result": "Enter  回到牌桌",
        "sealed": "牌墙稍后公开",
        "scale": "复式：得分为差额达到的档数",
        "history": "第 1-1 场，共 1 场",
        "closed": "还有别的桌要打的复式牌局：2 盘中的 2 盘",
        "hand": r"[东南西北]风[东南西北]局",
        "step": "第 0/",
        "face up": "明牌",
    },
}


def shows(words: str, screen: str) -> bool:
    """``words`` on the screen, whatever lines and box edges they wrap over."""
    return re.sub(r"[\s│|▌]+", "", words) in re.sub(r"[\s│|▌]+", "", screen)


class HeldBot(Bot):
    """A bench bot whose turns wait until the table to hold is known (``held``, once
    the seven are seated), and while its own table is the one held."""

    def __init__(self, reach: Reachable, name: str, held: set[int], go: threading.Event):
        super().__init__(reach, name)  # type: ignore[arg-type]  (Bot asks only .port, .up)
        self.held, self.go = held, go
        self.table_number = 0

    def heard(self, message: dict) -> None:
        if message["type"] == "tournament_seated":
            self.table_number = message["table_number"]

    async def before_answering(self) -> None:
        # No turn before the table to hold is known (a table opens at once and bots
        # answer at once: a deal could be over before it is).
        while not self.held or (self.table_number in self.held and not self.go.is_set()):
            await trio.sleep(0.1)


def play_both_tables(
    words: dict[str, str],
    check: Check,
    db: Path,
    tournament_id: int,
    entered: threading.Event,
    held: set[int],
    go: threading.Event,
) -> None:
    """The player's table plays both deals while the other holds (``held``) until
    ``go``; the results sealed and the history closed until the other table has
    played, open after."""
    screen = register("drv", PASSWORD, words["lobby"])
    check.expect(True, "the lobby after registering", screen)
    if not entered.wait(30):
        raise TimeoutError("the seven players did not enter")
    keys("t", pause=1.0)
    screen = wait_for(re.escape(NAME), 10)
    check.expect(words["open"] in screen, "the tournament listed, registration open", screen)
    screen = wait_for(re.escape(words["scale"]), 10)
    check.expect(True, "it says it is duplicate and how it scores", screen)
    keys("e", pause=1.0)
    screen = wait_for(words["entered"], 10)
    check.expect("drv" in screen, "entered: the player among the entrants", screen)
    said = host(db, "close", str(tournament_id)) + host(db, "start", str(tournament_id))
    check.expect(True, "the host closes registration and starts it", said)
    screen = wait_for(HAND, 90)
    check.expect(NAME in screen.split("\n")[0], "taken to the table", screen)
    holds = until(lambda: held, 20)
    check.expect(holds, "the other table holds", f"held: {sorted(held)}")
    keys("a", pause=1.0)
    screen = capture()
    check.expect(words["auto"] in screen, "the seat on auto-play", screen)
    sealed = 0
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:  # each deal's result, sealed, then standings
        screen = capture()
        if words["standings"] in screen:
            break
        if re.search(words["result"], screen):
            sealed += 1
            if not shows(words["sealed"], screen):  # a small terminal: below, scrolled to
                keys("End", pause=0.8)
                screen = capture()
            check.expect(
                shows(words["sealed"], screen),
                f"result {sealed}: sealed, the walls revealed later",
                screen,
            )
            keys("Enter", pause=1.0)
        else:
            time.sleep(0.5)
    check.expect(sealed == DEALS, f"{DEALS} results, then the standings", screen)
    keys("Enter", pause=1.0)
    leave_seat(words["lobby"])
    screen = wait_for(words["lobby"], 10)
    keys("h", pause=1.0)
    screen = wait_for(re.escape(words["history"]), 10)
    keys("Enter", pause=1.5)
    screen = capture()  # the match, its hands left out

    def closed() -> bool:
        nonlocal screen
        screen = capture()
        return shows(words["closed"], screen)

    until(closed, 10, every=0.3)
    check.expect(
        shows(words["closed"], screen) and re.search(words["hand"], screen) is None,
        "the history keeps the hands closed while the other table plays, and says so",
        screen,
    )
    keys("Escape", "Escape", pause=0.8)
    screen = wait_for(words["lobby"], 10)
    go.set()  # the other table plays the same two deals
    rows, table = counted(db, tournament_id, 1, 600, every=2.0)
    check.expect(len(rows) == 8, "the session ends: eight in the host's standings", table)
    keys("h", pause=1.0)
    screen = wait_for(re.escape(words["history"]), 10)
    keys("Enter", pause=1.5)
    screen = wait_for(words["hand"], 10)
    hands = len(re.findall(words["hand"], screen))
    check.expect(hands == DEALS, "after the session the match's hands are open", screen)
    keys("Enter", pause=1.5)
    screen = wait_for(re.escape(words["step"]), 10)
    check.expect(True, "a hand of the session replays", screen)
    keys("f", pause=0.8)
    screen = wait_for(words["face up"], 5)
    check.expect(not re.search(HAND, screen), "its walls open: every hand face up", screen)


def main() -> int:
    args = arguments(__doc__).parse_args()
    words = {**WORDS[args.lang], **OWN_WORDS[args.lang]}
    check = Check(captures_folder(args.captures, "gbmj-duplicate-"))
    # Eight accounts from one address: loopback trusted, as a club's own test would.
    config = 'bot_delay = 0.2\nhand_pause = 10.0\n[limits]\ntrusted = ["127.0.0.1"]\n'
    terminal = size(args.size)
    with served(
        check, SESSION, terminal, args.lang, "gbmj-duplicate-", config, insecure=True
    ) as server:
        # One session of two deals; a turn of ten minutes, so the held table waits.
        short = ("--sessions", "1", "--hands", str(DEALS), "--minutes", "30", "--turn", "600")
        said = host(server.db, "create", NAME, "--duplicate", "--scale", "steps", *short)
        created = re.match(r"tournament (\d+) created", said)
        check.expect(created is not None, "the host creates a duplicate session", said)
        tournament_id = int(created.group(1)) if created else 1
        reach = Reachable(server.port)
        held: set[int] = set()  # the table that holds its turns, once the seven are seated
        go = threading.Event()  # ... until this

        def made() -> list[HeldBot]:
            return [HeldBot(reach, name, held, go) for name in PLAYERS]

        def tick(bots: list[HeldBot]) -> None:
            numbers = [b.table_number for b in bots]
            if not held and all(numbers):  # seated: the table with no human is held
                held.update(n for n in set(numbers) if numbers.count(n) == 4)

        with bots_playing(made, tournament_id, tick) as entered:
            play_both_tables(words, check, server.db, tournament_id, entered, held, go)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
