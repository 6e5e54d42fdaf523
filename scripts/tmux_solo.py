"""Drive ``gbmj solo`` in tmux as a person would, and fail if the screen is wrong.

    uv run python scripts/tmux_solo.py [--ascii] [--size 100x32] [--captures DIR]

Starts the client in a detached tmux session of the given size, waits for the deal,
says a line in the table chat, discards by keys (a number key to select, Enter to
discard), answers a claim when one is offered (the first chow/pung listed, else Space to
pass), plays the hand to its result screen, and checks what a player must see at each
step: the status line, three other seats with hidden-tile counts, every seat and the
player's own pool labelled by wind, the hand row with its key labels, the chat panel,
the prompt bar, the result's fan table or draw. Every capture is saved to DIR for a
person to look at. Needs tmux. Exit status 0 when everything was on screen.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SESSION = "gbmj-solo-check"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def capture() -> str:
    return tmux("capture-pane", "-t", SESSION, "-p")


class Check:
    def __init__(self, captures: Path) -> None:
        self.captures = captures
        self.failures: list[str] = []
        self.count = 0

    def save(self, label: str, screen: str) -> None:
        self.count += 1
        (self.captures / f"{self.count:03d}-{label}.txt").write_text(screen, "utf-8")

    def expect(self, ok: bool, what: str, screen: str) -> None:
        if not ok:
            self.failures.append(what)
            self.save("FAIL", screen)
            print(f"FAIL: {what}", file=sys.stderr)


def wait_for(pattern: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if re.search(pattern, screen):
            return screen
        time.sleep(0.2)
    raise TimeoutError(f"not on screen after {timeout}s: {pattern!r}\n{screen}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ascii", action="store_true")
    parser.add_argument("--size", default="100x32")
    parser.add_argument("--captures", type=Path)
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    captures = args.captures or Path(tempfile.mkdtemp(prefix="gbmj-tmux-"))
    captures.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp(prefix="gbmj-solo-")) / "solo.db"
    en = args.ascii
    turn_re = "Your turn" if en else "轮到你出牌"
    result_re = r"Total|Draw \(wall|escaped" if en else r"合计|荒庄|逃跑"
    # the language follows the locale unless said: the checks below read Chinese, or
    # English with --ascii
    flags = "--ascii --lang en" if args.ascii else "--lang zh"
    command = f"uv run python -m gbmj_tui solo {flags} --timers relaxed --db {shlex.quote(str(db))}"
    tmux("kill-session", "-t", SESSION)
    tmux("new-session", "-d", "-s", SESSION, "-x", str(width), "-y", str(height), command)
    check = Check(captures)
    try:
        screen = wait_for(turn_re + "|" + re.escape("[Space]"), 60)
        check.save("deal", screen)
        lines = screen.splitlines()
        check.expect(len(lines) <= height, "the screen fits the terminal", screen)
        check.expect(
            ("round, hand" if en else "风圈 第") in lines[0], "round and hand on top", screen
        )
        counts = re.findall(r"(?:####|〓〓)x1[0-4]", screen)
        check.expect(len(counts) >= 3, "three other seats show hidden-tile counts", screen)
        check.expect(
            re.search(r"^\s*<?1>?\s+<?2>?\s+<?3>?\s+<?4>?", screen, re.M) is not None,
            "the hand row has key labels under the tiles",
            screen,
        )
        labels = re.findall(r"\[(?:东|南|西|北|E|S|W|N)\] ", screen)
        # the three other seats, the player's own pool and own seat
        check.expect(len(labels) >= 5, "every seat and the player's pool labelled by wind", screen)
        # a line of table chat shows in the chat panel
        tmux("send-keys", "-t", SESSION, "c")
        time.sleep(0.4)
        tmux("send-keys", "-t", SESSION, "-l", "hi all")
        tmux("send-keys", "-t", SESSION, "Enter")
        time.sleep(0.5)  # the chat line's input closes; the panel may wrap after the name
        try:
            check.save("chat", wait_for(r"hi all", 5))
        except TimeoutError:
            check.failures.append("the table chat shows the line sent")
        claimed = discards = 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            screen = capture()
            if re.search(result_re, screen):
                break
            if "[Space]" in screen:  # a claim bar
                bar = next(line for line in screen.splitlines() if "[Space]" in line)
                check.expect(
                    ("discarded" if en else "打出") in bar, "the claim bar names the discard", bar
                )
                key = next((k for k in ("p", "1") if f"[{k}]" in bar and not claimed), "space")
                check.save(f"claim-{key}", screen)
                claimed += key != "space"
                tmux("send-keys", "-t", SESSION, " " if key == "space" else key)
                time.sleep(0.6)
                continue
            if re.search(turn_re, screen):
                if discards == 0:
                    # select the first tile by its number key, then move back to the
                    # drawn tile with End and discard it with Enter
                    tmux("send-keys", "-t", SESSION, "1")
                    time.sleep(0.3)
                    check.save("selected-1", capture())
                    tmux("send-keys", "-t", SESSION, "End")
                    time.sleep(0.3)
                tmux("send-keys", "-t", SESSION, "Enter")
                discards += 1
                time.sleep(0.6)
                continue
            time.sleep(0.3)
        screen = wait_for(result_re, 5)
        check.save("result", screen)
        check.expect(discards > 0, "discarded at least once by keys", screen)
        if not re.search(r"Draw|荒庄", screen):
            check.expect(
                ("8-fan minimum" if en else "起和8番") in screen, "the 8-fan check shows", screen
            )
        print(f"discards: {discards}, claims made: {claimed}, captures: {captures}")
    except TimeoutError as exc:
        check.failures.append(str(exc).splitlines()[0])
        check.save("TIMEOUT", capture())
    finally:
        tmux("kill-session", "-t", SESSION)
    for failure in check.failures:
        print("FAILED:", failure, file=sys.stderr)
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
