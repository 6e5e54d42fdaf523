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

import argparse
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
    Check,
    capture,
    captures_folder,
    client,
    keys,
    register,
    server,
    size,
    start,
    stop_server,
    wait_for,
)
from drive_kit import stop as stop_session  # noqa: E402
from tmux_tournament import Reachable, host, standings_rows  # noqa: E402
from tournament import Bot  # noqa: E402  (the tournament bench's bot clients)

SESSION = f"gbmj-duplicate-{os.getpid()}"  # a session of this run's own
PLAYERS = [f"dup{n}" for n in range(1, 8)]  # with the driven player, two tables
NAME = "Duplicate night"
DEALS = 2
WORDS = {
    "en": {
        "lobby": "New table",
        "open": "registration open",
        "entered": "You are entered",
        "result": "Enter  Back to the table",  # the result's key bar, not the action line
        "sealed": "revealed later",
        "standings": "Final standings",
        "auto": "auto-play",
        "scale": "Duplicate: the score counts the steps reached",
        "history": "Matches 1-1 of 1",
        "closed": "still to be played at another table (duplicate): 2 of 2",
        "hand": r"round, hand \d",
        "step": "step 0 of",
        "face up": "face up",
    },
    "zh": {
        "lobby": "新建牌桌",
        "open": "报名中",
        "entered": "报名成功",
        "result": "Enter  回到牌桌",
        "sealed": "牌墙稍后公开",
        "standings": "终局排名",
        "auto": "托管",
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


def run_bots(port: int, tournament_id: int, state: dict[str, object], stop: threading.Event):
    """The seven other players, in their own thread: register, enter, then play; the
    table of four of them (the other table) holds its turns until ``state["go"]``."""
    entered, go = state["entered"], state["go"]
    assert isinstance(entered, threading.Event) and isinstance(go, threading.Event)
    held: set[int] = set()

    async def main() -> None:
        bots = [HeldBot(Reachable(port), name, held, go) for name in PLAYERS]
        for bot in bots:
            await bot.connect()
            assert bot.client is not None
            await bot.client.ok("enter_tournament", tournament_id=tournament_id)
        entered.set()
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.play, done)
            while not stop.is_set():
                numbers = [b.table_number for b in bots]
                if not held and all(numbers):  # seated: the table with no human is held
                    held.update(n for n in set(numbers) if numbers.count(n) == 4)
                    state["held"] = sorted(held)
                await trio.sleep(0.2)
            done.set()
            nursery.cancel_scope.cancel()

    trio.run(main)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", choices=("zh", "en"), default="en")
    parser.add_argument("--size", default="100x32")
    parser.add_argument("--captures", type=Path)
    args = parser.parse_args()
    words = WORDS[args.lang]
    check = Check(captures_folder(args.captures, "gbmj-duplicate-"))
    # Eight accounts from one address: loopback trusted, as a club's own test would.
    config = 'bot_delay = 0.2\nhand_pause = 10.0\n[limits]\ntrusted = ["127.0.0.1"]\n'
    proc, port, where = server("gbmj-duplicate-", config)
    db = where / "gbmj.db"
    start(SESSION, size(args.size), client(port, args.lang, where, insecure=True))
    state: dict[str, object] = {"entered": threading.Event(), "go": threading.Event()}
    stop = threading.Event()
    bots: threading.Thread | None = None
    try:
        # One session of two deals; a turn of ten minutes, so the held table waits.
        short = ("--sessions", "1", "--hands", str(DEALS), "--minutes", "30", "--turn", "600")
        said = host(db, "create", NAME, "--duplicate", "--scale", "steps", *short)
        created = re.match(r"tournament (\d+) created", said)
        check.expect(created is not None, "the host creates a duplicate session", said)
        tournament_id = int(created.group(1)) if created else 1
        bots = threading.Thread(target=run_bots, args=(port, tournament_id, state, stop))
        bots.start()
        register("drv", "pw-of-drv")
        screen = wait_for(words["lobby"], 20)
        check.expect(True, "the lobby after registering", screen)
        entered = state["entered"]
        assert isinstance(entered, threading.Event)
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
        deadline = time.monotonic() + 20
        while "held" not in state and time.monotonic() < deadline:
            time.sleep(0.2)
        check.expect(state.get("held") is not None, "the other table holds", str(state))
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
        keys("Escape", "Escape", pause=0.8)  # leaving the seat asks: twice
        screen = capture()
        if words["lobby"] not in screen:
            keys("Escape", pause=0.8)
        screen = wait_for(words["lobby"], 10)
        keys("h", pause=1.0)
        screen = wait_for(re.escape(words["history"]), 10)
        keys("Enter", pause=1.5)
        screen = capture()  # the match, its hands left out
        deadline = time.monotonic() + 10
        while not shows(words["closed"], screen) and time.monotonic() < deadline:
            time.sleep(0.3)
            screen = capture()
        check.expect(
            shows(words["closed"], screen) and re.search(words["hand"], screen) is None,
            "the history keeps the hands closed while the other table plays, and says so",
            screen,
        )
        keys("Escape", "Escape", pause=0.8)
        screen = wait_for(words["lobby"], 10)
        go = state["go"]
        assert isinstance(go, threading.Event)
        go.set()  # the other table plays the same two deals
        deadline = time.monotonic() + 600
        rows: list[list[str]] = []
        while time.monotonic() < deadline:
            table = host(db, "standings", str(tournament_id))
            rows = standings_rows(table)
            if len(rows) == 8 and all(row[9] == "1" for row in rows):
                break
            time.sleep(2.0)
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
    except (TimeoutError, RuntimeError) as exc:
        check.timed_out(exc, capture())
    finally:
        stop.set()
        if bots is not None:
            bots.join(10)
        stop_session()
        stop_server(proc)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
