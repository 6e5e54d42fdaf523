"""The protocol codec's speed: frames encoded and decoded per second, for the frames a
match sends most (an event, a prompt, an action) and the largest common one (a seated
player's snapshot).

    uv run python bench/codec.py [--seconds 0.5]

Each frame is one of ``protocol.examples``; each figure is the best of three timed
rounds of ``--seconds`` each, so one run takes a few seconds. Prints one figure a line:

    <frame> bytes: the frame's size
    <frame> encode checked /s: ``framing.encode(message)`` (what a client's requests take)
    <frame> encode trusted /s: ``framing.encode(message, check=False)`` (the server's hot path)
    <frame> decode /s: ``framing.decode_body(body)``: msgpack, the catalog's checks, the record
    mixed encode+decode /s: one of each of the four frames, encoded (trusted) and decoded
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from protocol import examples, framing
from protocol import messages as m


def _frames() -> dict[str, m.Message]:
    wanted = {"event": m.Event, "prompt": m.Prompt, "action": m.Action, "snapshot": m.Snapshot}
    found: dict[str, m.Message] = {}
    for message in examples.MESSAGE_EXAMPLES:
        for name, cls in wanted.items():
            if type(message) is cls and name not in found:
                found[name] = message
    return found


def _rate(work: Callable[[], object], seconds: float) -> float:
    """Calls of ``work`` per second: the best of three rounds of ``seconds``."""
    best = 0.0
    for _ in range(3):
        calls = 0
        start = time.perf_counter()
        end = start + seconds
        while (now := time.perf_counter()) < end:
            for _ in range(100):
                work()
            calls += 100
        best = max(best, calls / (now - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="length of a timed round")
    args = parser.parse_args()
    frames = _frames()
    bodies = {name: framing.encode(msg)[framing.HEADER_SIZE :] for name, msg in frames.items()}
    for name, msg in frames.items():
        body = bodies[name]
        checked = _rate(lambda msg=msg: framing.encode(msg), args.seconds)
        trusted = _rate(lambda msg=msg: framing.encode(msg, check=False), args.seconds)
        decoded = _rate(lambda body=body: framing.decode_body(body), args.seconds)
        print(f"{name} bytes: {len(body)}")
        print(f"{name} encode checked /s: {checked:.0f}")
        print(f"{name} encode trusted /s: {trusted:.0f}")
        print(f"{name} decode /s: {decoded:.0f}")

    def mixed() -> None:
        for name, msg in frames.items():
            framing.encode(msg, check=False)
            framing.decode_body(bodies[name])

    print(f"mixed encode+decode /s: {_rate(mixed, args.seconds) * len(frames):.0f}")


if __name__ == "__main__":
    main()
