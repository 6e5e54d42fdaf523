"""Drive the client in tmux against a real server as a new player and a new host would,
and fail if the screen is wrong at any step.

    uv run python scripts/tmux_table.py [--lang zh|en] [--size 80x24] [--captures DIR]

Starts ``gbmj-server`` on a free port with a fresh database (serving TLS, its
certificate made beside it) and the client in a detached tmux session of the given
size, then: registers on the connect screen, the first connection saying it pinned the
server's certificate; creates
a table (``n``, Enter) and checks the owner is named on it; opens the seats (``b``),
fills them with bots (``f``); goes back to the lobby (Esc twice: a seat) and joins the table again
(``j``): the seats dialog still offers the owner's keys and the status line names the
owner; gets ready (``r``): the deal; discards by keys and passes claims until the
action line has shown a few actions; closes the connection from the server's side
(``ss -K``, which needs root): the reconnect banner shows and the client comes back to
its seat with its hand; plays on to the hand's result, which says the wall is verified
and stays until Enter, the next hand waiting for it (a countdown); Enter deals it; the
replay of the hand just played (``v``) from its result. Then puts the seat on auto-play
(``a``) and closes each hand's result until the match's standings come, after the last
hand's; leaves for the lobby (Esc twice), opens the history
(``h``): the match, its hands (Enter), a hand replayed (Enter): stepped with the arrows,
turned face up (``f``), its end (End) with the result over the board, written to a file
(``x``). Every capture is saved in DIR. Needs tmux and ss. Exit status 0 when everything
was on screen.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive_kit import (
    HAND,
    PASSWORD,
    WORDS,
    Check,
    arguments,
    capture,
    captures_folder,
    deal,
    fill_with_bots,
    finish_match,
    flat,
    keys,
    new_table,
    play_until,
    register,
    served,
    size,
    toasts,
    until,
    wait_for,
)

SESSION = "gbmj-table-check"
OWN_WORDS = {
    "en": {
        "banner": "Connection lost: reconnecting",
        "waiting": "Waiting: four seated",
        "countdown": "once everyone has closed this",
        "hand 2": "East round, hand 2",
        "pinned": "is now pinned in",
        "new server": "New server",
        "wall": "Wall verified",
        "step": "step {n} of",
        "mine": "as you saw it",
        "face up": "face up",
        "replay end": "Back to the replay",
        "history": "Matches 1-1 of 1",
        "hand 1": "East round, hand 1",
        "written": "The hand was written to",
    },
    "zh": {
        "banner": "连接断开: 正在重连",
        "waiting": "等待开局: 坐满四人",
        "countdown": "所有人都关闭结果后",
        "hand 2": "东风南局",
        "pinned": "已记在",
        "new server": "新的服务器",
        "wall": "牌墙已验证",
        "step": "第 {n}/",
        "mine": "你的视角",
        "face up": "明牌",
        "replay end": "回到回放",
        "history": "第 1-1 场，共 1 场",
        "hand 1": "东风东局",
        "written": "这一盘已写入",
    },
}


def history(words: dict[str, str], check: Check, where: Path) -> None:
    """Leave the table for the lobby; the history, the match, a hand replayed, exported."""
    keys("Escape", "Escape", pause=0.5)  # leaving the seat asks: twice
    screen = wait_for(words["lobby"], 15)
    keys("h", pause=1.0)
    screen = wait_for(re.escape(words["history"]), 10)
    check.expect("drv" in screen, "the history lists the match with its players", screen)
    keys("Enter", pause=1.0)
    screen = wait_for(words["hand 1"], 10)
    check.expect(True, "the match's hands", screen)
    keys("Enter", pause=1.5)
    screen = wait_for(re.escape(words["step"].format(n=0)), 10)
    check.expect(True, "a hand replayed from the history", screen)
    keys("Right", "Right", "Right", pause=0.3)
    screen = wait_for(re.escape(words["step"].format(n=3)), 5)
    check.expect(True, "three steps on", screen)
    keys("f", pause=0.5)
    screen = wait_for(words["face up"], 5)
    check.expect(not re.search(HAND, screen), "every hand face up", screen)
    keys("End", pause=1.0)
    screen = wait_for(words["replay end"], 5)
    check.expect(True, "the hand's end: the result over the board", screen)
    keys("Escape", "x", pause=1.0)
    screen = wait_for(words["written"], 10)
    written = list(where.glob("gbmj-hand-*.json"))
    check.expect(len(written) == 1, "the hand written to a replay file", screen)
    keys("Escape", "Escape", "Escape", pause=0.5)
    screen = wait_for(words["lobby"], 10)
    check.expect(True, "back in the lobby", screen)


def main() -> int:
    args = arguments(__doc__).parse_args()
    words = {**WORDS[args.lang], **OWN_WORDS[args.lang]}
    check = Check(captures_folder(args.captures, "gbmj-tmux-"))
    config = "bot_delay = 0.2\nhand_pause = 30.0\n"
    with served(
        check, SESSION, size(args.size), args.lang, "gbmj-table-", config, tls=True, cd=True
    ) as server:
        screen = register("drv", PASSWORD, words["lobby"])
        check.expect(True, "the lobby after registering", screen)

        def pinned() -> bool:  # said in the lobby's chat or in a toast
            nonlocal screen
            screen = capture()
            return words["pinned"] in flat(screen) or words["pinned"] in toasts(screen)

        said = until(pinned, 10)  # the lobby draws before its chat and the toast
        check.expect(said, "the certificate pinned, and said", screen)
        until(lambda: words["new server"] in capture(), 5)  # its toast may come after
        # a person reads the notice; its toast goes by itself
        until(lambda: words["new server"] not in capture(), 30, every=0.5)
        screen = new_table(words)
        check.expect(True, "the table names its owner", screen)
        fill_with_bots(words)
        keys("Escape")
        screen = wait_for(words["waiting"], 5)
        check.expect(screen.count("bot-") >= 3, "three bots seated", screen)
        keys("Escape", "Escape", pause=1.0)  # to the lobby (a seat: asked, so twice)
        screen = wait_for(words["lobby"], 10)
        kept = re.search(r"^\s*1\s+my table|^\s*1\s+我的牌桌", screen, re.M) is not None
        check.expect(kept, "the table stays while its owner is in the lobby", screen)
        keys("j" if kept else "n", pause=1.0)
        if not kept:
            keys("Enter", pause=1.0)
        screen = wait_for(words["owner"], 10)
        keys("b")
        screen = wait_for("Seat|座位", 5)
        check.expect(words["fill"] in screen, "the owner's keys after the trip", screen)
        keys("Escape")
        if "bot-" not in capture():
            keys("b", "f", "Escape")
        # choose the seat if the trip to the lobby stood the owner up, then ready
        keys("b", "Enter", "Escape", "r", pause=0.6)
        screen = deal(words)
        check.expect(True, "the deal", screen)
        screen = play_until(words, words["discarded"], 120)
        check.expect(words["discarded"] in screen, "the action line names a discard", screen)
        # the connection closed from the server's side
        for side in ("sport", "dport"):  # the server's end of the socket, then the client's
            subprocess.run(
                ["ss", "-K", "-t", "state", "established", side, "=", str(server.port)],
                capture_output=True,
                check=False,
            )
        try:
            screen = wait_for(words["banner"], 10)
            check.expect(True, "the reconnect banner", screen)
        except TimeoutError:
            check.save("no-banner", capture())  # it may come back before a capture

        def back() -> bool:
            nonlocal screen
            screen = capture()
            return words["banner"] not in screen

        back_at_seat = until(back, 40, every=0.3) and re.search(HAND, screen)
        check.expect(bool(back_at_seat), "back at the seat after the reset", screen)
        screen = play_until(words, words["result"], 900)
        check.expect(True, "the hand's result", screen)
        if words["wall"] not in flat(screen):  # a small terminal: below, as its edge says
            keys("End", pause=0.8)
            screen = capture()
            keys("Home", pause=0.8)  # back to the top, where the countdown is
        check.expect(words["wall"] in flat(screen), "the result says the wall is verified", screen)
        time.sleep(5)
        screen = capture()
        check.expect(
            re.search(words["result"], screen) is not None, "the result waits for a key", screen
        )
        held = words["countdown"] in flat(screen) and words["hand 2"] not in screen
        check.expect(held, "the next hand waits for the result, counting down", screen)
        keys("v", pause=1.0)  # the replay of the hand just played
        screen = wait_for(re.escape(words["step"].format(n=0)), 10)
        check.expect(words["mine"] in screen, "the replay starts from the player's view", screen)
        keys("Escape", pause=1.0)
        screen = capture()
        check.expect(re.search(words["result"], screen) is not None, "back at the result", screen)
        keys("Enter", pause=1.0)
        screen = capture()
        check.expect(re.search(words["result"], screen) is None, "Enter closes it", screen)
        screen = wait_for(words["hand 2"], 10)  # its reader done, the next hand is dealt
        check.expect(True, "closing the result deals the next hand", screen)
        # The rest of the match on auto-play (托管): every hand's result waits for a key,
        # the last one before the match's standings.
        keys("a", pause=1.0)
        screen = capture()
        check.expect(words["auto"] in screen, "the seat says it is on auto-play", screen)
        results, screen = finish_match(words, 900)
        names = all(name in screen for name in ("drv", "bot-"))
        check.expect(results >= 1 and names, "the last result, then the standings", screen)
        keys("Enter", pause=1.0)
        history(words, check, server.where)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
