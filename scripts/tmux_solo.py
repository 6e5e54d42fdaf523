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

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive_kit import (
    HAND,
    WORDS,
    Check,
    arguments,
    capture,
    captures_folder,
    deal,
    driving,
    keys,
    size,
    solo,
    text,
    wait_for,
)

SESSION = "gbmj-solo-check"


def main() -> int:
    parser = arguments(__doc__, lang=False)
    parser.add_argument("--ascii", action="store_true")
    args = parser.parse_args()
    width, height = size(args.size)
    check = Check(captures_folder(args.captures, "gbmj-tmux-"))
    en = args.ascii
    words = WORDS["en" if en else "zh"]
    turn_re, result_re = words["turn"], words["result"]
    # the language follows the locale unless said: the checks below read Chinese, or
    # English with --ascii
    with driving(check, SESSION, (width, height), solo("--ascii --lang en" if en else "--lang zh")):
        screen = deal(words)
        check.save("deal", screen)
        lines = screen.splitlines()
        check.expect(len(lines) <= height, "the screen fits the terminal", screen)
        check.expect(
            # 东风东局: the round's wind, then the dealer's seat wind for the hand
            re.search("round, hand" if en else "风.局", lines[0]) is not None,
            "round and hand on top",
            screen,
        )
        counts = re.findall(HAND, screen)
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
        keys("c", pause=0.0)
        time.sleep(0.4)
        text("hi all", pause=0.0)
        keys("Enter", pause=0.0)
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
                check.expect(words["discarded"] in bar, "the claim bar names the discard", bar)
                key = next((k for k in ("p", "1") if f"[{k}]" in bar and not claimed), "space")
                check.save(f"claim-{key}", screen)
                claimed += key != "space"
                keys(" " if key == "space" else key, pause=0.0)
                time.sleep(0.6)
                continue
            if re.search(turn_re, screen):
                if discards == 0:
                    # select the first tile by its number key, then move back to the
                    # drawn tile with End and discard it with Enter
                    keys("1", pause=0.0)
                    time.sleep(0.3)
                    check.save("selected-1", capture())
                    keys("End", pause=0.0)
                    time.sleep(0.3)
                keys("Enter", pause=0.0)
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
        print(f"discards: {discards}, claims made: {claimed}")
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
