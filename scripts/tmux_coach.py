"""Drive ``gbmj solo`` in tmux with the hint panel open, and fail if the screen is wrong.

    uv run python scripts/tmux_coach.py [--zh] [--size 120x40] [--captures DIR]

Starts the client in a detached tmux session (English and ASCII unless ``--zh``), waits
for the deal, keeps the hints open (``I``), opens the fan reference (``f``), searches it
and closes it, then plays the hand to its result: on each turn it checks the panel shows
the discards ranked with their useful tiles, and discards the drawn tile; at a claim bar
it checks the panel says what the claim does, then passes. Every capture is saved to DIR.
Needs tmux. Exit status 0 when everything was on screen.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive_kit import (
    WORDS,
    Check,
    arguments,
    capture,
    captures_folder,
    deal,
    driving,
    pane_dead,
    size,
    solo,
    text,
    until,
    wait_for,
)
from drive_kit import keys as keys_paced

SESSION = "gbmj-coach-check"


def keys(*names: str) -> None:
    keys_paced(*names, pause=0.0)


def main() -> int:
    parser = arguments(__doc__, size="120x40", lang=False)
    parser.add_argument("--zh", action="store_true", help="Chinese and Chinese tiles")
    args = parser.parse_args()
    check = Check(captures_folder(args.captures, "gbmj-tmux-coach-"))
    en = not args.zh
    w = {
        **WORDS["en" if en else "zh"],
        "hints": "Hints" if en else "提示",
        # the full form, or the short one beside a small board (E → 6/17)
        "discard": (r"discard \S+ → \d+ kinds" if en else r"打\S+ → \d+种") + r"|\S+ → \d+/\d+",
        "plans": "Plans toward 8 fan" if en else "凑8番的方向",
        "claim": "If you claim" if en else "如果鸣牌",
    }
    command = solo("--ascii --lang en" if en else "--lang zh")
    turns = claims = 0
    # a crash stays on screen (keep_dead)
    with driving(check, SESSION, size(args.size), command, keep_dead=True):
        screen = deal(w)
        check.save("deal", screen)
        # the fan reference: search by the English name (the list is in the screen's
        # language; either language finds), then close
        keys("f")
        wait_for("Excludes:" if en else "不计:", 10)
        time.sleep(0.3)
        text("half flush", pause=0.0)
        screen = wait_for("Half Flush  6 fan" if en else "混一色  Half Flush", 10)
        check.save("fans", screen)
        check.expect("Example:" in screen or "例:" in screen, "the fan shows an example", screen)
        # the list is filtered as each letter comes: the last one's may still be drawing
        first = "Big Four Winds" if en else "大四喜"

        def filtered() -> bool:
            nonlocal screen
            screen = capture()
            return first not in screen

        check.expect(first not in screen or until(filtered, 5), "the search filters", screen)
        keys("Escape")
        time.sleep(0.5)
        keys("I")  # keep the hints open
        screen = wait_for(w["hints"], 10)
        check.save("hints-open", screen)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            screen = capture()
            if re.search(w["result"], screen):
                break
            if pane_dead() or "Traceback" in screen:
                raise TimeoutError("the client stopped\n" + screen)
            if "[Space]" in screen:  # a claim bar
                time.sleep(0.4)  # the panel follows the prompt
                screen = capture()
                if w["claim"] in screen:
                    claims += 1
                    check.save("claim", screen)
                keys("Space")
                time.sleep(0.6)
                continue
            if re.search(w["turn"], screen):
                time.sleep(0.4)
                screen = capture()
                turns += 1
                found = re.search(w["discard"], screen)
                check.expect(found is not None, "the panel ranks the discards", screen)
                check.expect(w["plans"] in screen or "→" in screen, "the panel shows", screen)
                if turns <= 3:
                    check.save(f"turn-{turns}", screen)
                keys("Enter")  # the drawn tile, selected by default
                time.sleep(0.6)
                continue
            time.sleep(0.3)
        screen = wait_for(w["result"], 5)
        check.save("result", screen)
        check.expect(turns > 0, "played turns with the panel open", screen)
        print(f"turns with hints: {turns}, claim hints: {claims}")
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
