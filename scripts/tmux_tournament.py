"""Drive a club tournament (docs/rules.md §2.12, docs/hosting.md "A club evening") in
tmux against a real server, as its host and one of its players would, and fail if the
screen is wrong at any step.

    uv run python scripts/tmux_tournament.py [--lang zh|en] [--size 80x24] [--sessions 1|2]
                                             [--captures DIR]

Starts ``gbmj-server`` on a free port with a fresh database and the client in a
detached tmux session of the given size. The host creates a tournament of two sessions
(``--sessions 1``: one) of two hands with ``gbmj-server admin tournament create``;
seven players (the tournament bench's bot clients, over TCP) register and enter it; the
driven player registers on the connect screen, opens the tournaments (``t``), where the
tournament is shown, and enters it (``e``); the host closes registration and starts
it. The client must take the player to their table each session (the hand on screen, a
toast saying which table and place); the seat goes on auto-play (``a``) and each hand's
result is closed until the match's standings; back from the table, once both tables
have ended, the tournaments screen must show the session's standings (table points,
score, places) as ``admin tournament standings`` prints them, the seat the player was
told, and the tournament running, then finished after the last session. Every capture
is saved in DIR. Needs tmux. Exit status 0 when everything was on screen.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path

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
    finish_match,
    host,
    keys,
    leave_seat,
    register,
    served,
    size,
    toasts,
    wait_for,
)
from tournament import Bot  # noqa: E402  (the tournament bench's bot clients)

SESSION = f"gbmj-tournament-{os.getpid()}"  # a session of this run's own
PLAYERS = [f"club{n}" for n in range(1, 8)]  # with the driven player, two tables
NAME = "Club night"
OWN_WORDS = {
    "en": {
        "tournaments": "Tournaments",
        "open": "registration open",
        "entered": "You are entered",
        "seated": r"Tournament \d+, session {n}: table (\d)(?: is open)?, (\w+)",
        "finished": "finished",
        "points": "Table points",
        "sign up": "e  Sign up",
        "seat": "Your seat in session {n}: table {table}, {place}",
        "running": "running",
        "session 1": "Session 1",
    },
    "zh": {
        "tournaments": "比赛",
        "open": "报名中",
        "entered": "报名成功",
        "seated": r"比赛 \d+ 第 {n} 轮：第 (\d) 桌(?:已开)?，(\w+)",
        "finished": "已结束",
        "points": "桌分",
        "sign up": "e  报名",
        "seat": "你在第 {n} 轮的座位：第 {table} 桌，{place}",
        "running": "进行中",
        "session 1": "第 1 轮",
    },
}


def seated_then_dealt(
    words: dict[str, str], session: int, timeout: float
) -> tuple[re.Match[str] | None, str]:
    """Wait for the hand on screen, reading the toasts for the one that tells the
    player's table and place (it may show before the deal, or a moment after)."""
    deadline = time.monotonic() + timeout
    seated, dealt = None, ""
    while time.monotonic() < deadline:
        screen = capture()
        seated = seated or re.search(words["seated"].format(n=session), toasts(screen))
        if not dealt and re.search(HAND, screen):
            dealt, deadline = screen, min(deadline, time.monotonic() + 10)
        if dealt and seated:
            break
        time.sleep(0.2)
    if not dealt:
        raise TimeoutError(f"no hand on screen after {timeout}s\n{capture()}")
    return seated, dealt


def on_screen(row: list[str], screen: str) -> bool:
    """The standings line of ``row`` (rank, name, table points, score, 1st-4th) on the
    screen, its cells in order on one line."""
    cells = [*row[:4], *row[4:8]]
    pattern = r"\s+".join(re.escape(cell) for cell in cells)
    return re.search(pattern, screen) is not None


def play_session(words: dict[str, str], check: Check, session: int) -> str:
    """Taken to the session's table, told where; auto-play to the match's standings,
    then back from the table. The seat's line as the tournaments screen words it."""
    seated, screen = seated_then_dealt(words, session, 90)
    check.expect(NAME in screen.split("\n")[0], f"{session}: taken to the table", screen)
    check.expect(seated is not None, f"{session}: told the table and place", screen)
    table_number, place = seated.groups() if seated else ("?", "?")
    keys("a", pause=1.0)
    screen = capture()
    check.expect(words["auto"] in screen, f"{session}: the seat on auto-play", screen)
    results, screen = finish_match(words, 600)
    check.expect(results >= 1 and "drv" in screen, f"{session}: results, standings", screen)
    keys("Enter", pause=1.0)
    leave_seat(words["lobby"], words["tournaments"])
    return words["seat"].format(n=session, table=table_number, place=place)


def compare_standings(
    words: dict[str, str],
    check: Check,
    db: Path,
    tournament_id: int,
    session: int,
    seat: str,
    last: bool,
) -> None:
    """Once both tables of the session have ended (every player's sessions counted),
    the tournaments screen's standings are the host's, line for line."""
    rows, table = counted(db, tournament_id, session, 120)
    check.expect(len(rows) == 8, f"{session}: admin tournament standings, eight", table)
    screen = capture()
    if words["lobby"] in screen and words["points"] not in screen:
        keys("t", pause=1.0)  # from the lobby: the player's own tournament, shown at once
    title = re.escape(NAME) + r"[:：]\s*" + (words["finished"] if last else words["running"])
    missing = [row[1] for row in rows]
    deadline = time.monotonic() + 20
    while missing and time.monotonic() < deadline:
        keys("r", pause=1.5)  # refreshed (it also refreshes by itself, more slowly)
        screen = capture()
        missing = [row[1] for row in rows if not on_screen(row, screen)]
    check.expect(re.search(title, screen) is not None, f"{session}: the title's state", screen)
    check.expect(seat in screen, f"{session}: the seat shown is the one told", screen)
    check.expect(
        not missing,
        f"{session}: the screen's standings are the host's (not: {', '.join(missing)})",
        screen + "\n" + table,
    )
    points = sum(float(row[2]) for row in rows)
    check.expect(abs(points - 14.0 * session) < 0.05, f"{session}: 7 points a table", table)


def enter_and_play(
    words: dict[str, str],
    check: Check,
    db: Path,
    tournament_id: int,
    entered: threading.Event,
    sessions: int,
) -> None:
    """Registered, the player enters the tournament beside the seven; the host starts
    it; each session played and its standings compared."""
    screen = register("drv", PASSWORD, words["lobby"])
    check.expect(True, "the lobby after registering", screen)
    if not entered.wait(30):
        raise TimeoutError("the seven players did not enter")
    keys("t", pause=1.0)
    screen = wait_for(re.escape(NAME), 10)
    check.expect(words["open"] in screen, "the tournament listed, registration open", screen)
    check.expect(words["sign up"] in screen, "the key bar offers to sign up", screen)
    # shown below the list without a key: the only one, so the one to enter
    screen = wait_for(r"club\d", 10)
    check.expect(all(name in screen for name in PLAYERS), "the seven entrants listed", screen)
    keys("e", pause=1.0)
    screen = wait_for(words["entered"], 10)
    check.expect("drv" in screen, "entered: the player among the entrants", screen)
    said = host(db, "close", str(tournament_id)) + host(db, "start", str(tournament_id))
    check.expect(True, "the host closes registration and starts it", said)
    seats = []
    for session in range(1, sessions + 1):
        seats.append(play_session(words, check, session))
        last = session == sessions
        compare_standings(words, check, db, tournament_id, session, seats[-1], last)
    if len(seats) > 1:  # back a session with [: its tables, and where the player sat
        keys("[", pause=1.5)
        screen = wait_for(re.escape(seats[0]), 10)
        check.expect(words["session 1"] in screen, "[: the first session's tables", screen)


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--sessions", type=int, choices=(1, 2), default=2)
    args = parser.parse_args()
    words = {**WORDS[args.lang], **OWN_WORDS[args.lang]}
    check = Check(captures_folder(args.captures, "gbmj-tournament-"))
    # Eight accounts from one address: loopback trusted, as a club's own test would.
    config = 'bot_delay = 0.2\nhand_pause = 10.0\n[limits]\ntrusted = ["127.0.0.1"]\n'
    terminal = size(args.size)
    with served(
        check, SESSION, terminal, args.lang, "gbmj-tournament-", config, insecure=True
    ) as server:
        # Two hands a session; between two, time to read the standings.
        short = ("--hands", "2", "--minutes", "30", "--pause", "20")
        said = host(server.db, "create", NAME, "--sessions", str(args.sessions), *short)
        said += host(server.db, "list")
        created = re.match(r"tournament (\d+) created", said)
        check.expect(created is not None and NAME in said, "the host creates it", said)
        tournament_id = int(created.group(1)) if created else 1
        reach = Reachable(server.port)

        def made() -> list[Bot]:
            return [Bot(reach, name) for name in PLAYERS]  # Bot asks only .port, .up

        with bots_playing(made, tournament_id) as entered:
            enter_and_play(words, check, server.db, tournament_id, entered, args.sessions)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
