"""Fan calculator speed: ``uv run python bench/fan_speed.py FILE``.

Reads the records of a JSONL file (tests/fixtures format), converts the valid ones to
(Hand, WinContext) first, then times only ``score_hand`` over them and prints
``hands/s: N``. Each pass scores every hand once; the best of several passes is kept
(the machine is shared). The calculator's memo of single waits (which serves a hand
scored with several winning tiles, as the coach and the bots do) is emptied before each
pass, so every pass scores hands it has not seen.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gbmj.rules import scoring
from gbmj.rules.errors import HandError
from gbmj.rules.records import record_input
from gbmj.rules.scoring import score_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--seconds", type=float, default=3.0, help="time to spend (default 3)")
    args = parser.parse_args()

    inputs = []
    for line in args.file.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            hand, context = record_input(json.loads(line))
            score_hand(hand, context)
        except HandError:
            continue
        inputs.append((hand, context))
    if not inputs:
        raise SystemExit("no valid records")

    best = 0.0
    passes = 0
    deadline = time.perf_counter() + args.seconds
    while passes < 3 or time.perf_counter() < deadline:
        scoring._ONE_WAIT.clear()
        start = time.perf_counter()
        for hand, context in inputs:
            score_hand(hand, context)
        elapsed = time.perf_counter() - start
        best = max(best, len(inputs) / elapsed)
        passes += 1
    print(f"hands: {len(inputs)}  passes: {passes}")
    print(f"hands/s: {best:.0f}")


if __name__ == "__main__":
    main()
