"""``gbmj-fan``: the fan calculator on the command line.

    gbmj-fan "123m 456p 789s EEE 1s" --win 1s --self-drawn --seat S --round E --flowers 2
    gbmj-fan "123m 456p 789s EEE 1s" --win 1s --json
    gbmj-fan --jsonl tests/fixtures/fan-sample.jsonl      (or - for standard input)

The hand is the compact notation of ``Hand.parse`` (melds in brackets, e.g.
``[555p<2]``), written without the winning tile; when ``--win`` is left out, the last
concealed tile written is the winning tile. ``--jsonl`` reads records in the format of
tests/fixtures/README.md and writes one JSON line per record, going on after bad ones.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

from protocol.tiles import Tile

from .errors import HandError
from .hand import Hand, parse_tiles
from .records import invalid_result, score_json, score_record
from .scoring import Score, WinContext, score_hand

_WINDS = ("E", "S", "W", "N")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gbmj-fan",
        description="Score a Chinese Official Mahjong (国标麻将) winning hand.",
    )
    p.add_argument("hand", nargs="?", help='the hand before the winning tile, e.g. "123m 456p EE"')
    p.add_argument("--win", metavar="TILE", help="the winning tile (default: the last one written)")
    p.add_argument("--self-drawn", action="store_true", help="won by own draw (自摸)")
    p.add_argument("--fourth-tile", action="store_true", help="the last copy of the tile (和绝张)")
    p.add_argument(
        "--kong", action="store_true", help="杠上开花 when self-drawn, 抢杠和 on a discard"
    )
    p.add_argument(
        "--last-tile", action="store_true", help="妙手回春 when self-drawn, 海底捞月 on a discard"
    )
    p.add_argument("--seat", choices=_WINDS, default="E", help="seat wind (门风), default E")
    p.add_argument("--round", choices=_WINDS, default="E", help="prevailing wind (圈风), default E")
    p.add_argument("--flowers", type=int, choices=range(9), default=0, metavar="0-8")
    p.add_argument("--json", action="store_true", help="print the score as JSON")
    p.add_argument("--jsonl", metavar="FILE", help="score every record of a JSONL file (- = stdin)")
    return p


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def format_table(score: Score) -> str:
    """The fans as a readable table, totals last."""
    rows = [("番种", "Fan", "points", "count", "subtotal")]
    rows += [
        (fc.fan.name_zh, fc.fan.name_en, str(fc.fan.points), str(fc.count), str(fc.subtotal))
        for fc in score.fans
    ]
    widths = [max(_width(r[i]) for r in rows) for i in range(5)]
    lines = []
    for n, row in enumerate(rows):
        cells = [_pad(row[0], widths[0]), _pad(row[1], widths[1])]
        cells += [row[i].rjust(widths[i]) for i in (2, 3, 4)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("-" * _width(lines[0]))
    lines.append("-" * _width(lines[0]))
    lines.append(f"total {score.total}  (without flowers {score.total_without_flowers})")
    lines.append("meets 8 fan: " + ("yes" if score.meets_8 else "no"))
    return "\n".join(lines)


def _hand_and_context(args: argparse.Namespace) -> tuple[Hand, WinContext]:
    hand = Hand.parse(args.hand)
    if args.win is not None:
        tiles = parse_tiles(args.win)
        if len(tiles) != 1:
            raise HandError("unknown_tile", f"--win takes one tile, not {args.win!r}")
        win = tiles[0]
    else:
        written = parse_tiles(_without_melds(args.hand))
        if not written:
            raise HandError("wrong_tile_count", "no winning tile: give --win")
        win = written[-1]
        rest = list(hand.concealed)
        rest.remove(win)
        hand = Hand(tuple(rest), hand.melds)
    context = WinContext(
        win_tile=win,
        self_drawn=args.self_drawn,
        fourth_tile=args.fourth_tile,
        kong_related=args.kong,
        last_tile=args.last_tile,
        seat_wind=Tile.parse(args.seat),
        prevailing_wind=Tile.parse(args.round),
        flowers=args.flowers,
    )
    return hand, context


def _without_melds(text: str) -> str:
    out, depth = [], 0
    for c in text:
        depth += c == "["
        if not depth:
            out.append(c)
        depth -= c == "]"
    return "".join(out)


def score_lines(lines: Iterable[str]) -> Iterable[dict[str, object]]:
    """One result per non-blank JSONL line; a line that is not JSON is a bad record."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            yield invalid_result(None, "bad_json", f"line {n}: {e}")
            continue
        if not isinstance(record, dict):
            yield invalid_result(None, "bad_record", f"line {n} is not a JSON object")
            continue
        yield score_record(record)


def run_jsonl(
    source: str, out: TextIO, answers: Callable[[Iterable[str]], Iterable[dict[str, object]]]
) -> int:
    """Write ``answers`` of each line of ``source`` (a file, or ``-`` for stdin) as JSONL."""
    try:
        if source == "-":
            for r in answers(sys.stdin):
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
            return 0
        with open(source, encoding="utf-8") as f:
            for r in answers(f):
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
    except BrokenPipeError:  # the reader stopped early (| head)
        return 0
    except OSError as e:
        print(f"gbmj-fan: cannot read {source}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    return run(p, p.parse_args(argv))


def run(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Score what ``args`` (parsed by ``p``, or a parser built on ``parser()``) asks."""
    if args.jsonl is not None:
        if args.hand is not None:
            p.error("give a hand or --jsonl, not both")
        return run_jsonl(args.jsonl, sys.stdout, score_lines)
    if args.hand is None:
        p.error("a hand is required (or --jsonl FILE)")
    try:
        hand, context = _hand_and_context(args)
        score = score_hand(hand, context)
    except HandError as e:
        if args.json:
            print(
                json.dumps({"valid": False, "error": e.code, "message": str(e)}, ensure_ascii=False)
            )
        else:
            print(f"gbmj-fan: {e.code}: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"valid": True, "error": None, **score_json(score)}, ensure_ascii=False))
    else:
        print(f"{hand}  +  {Tile(context.win_tile)}")
        print(format_table(score))
    return 0


if __name__ == "__main__":
    sys.exit(main())
