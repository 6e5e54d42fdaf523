"""``gbmj-fan``: the fan calculator (``gbmj.rules.cli``) and, with ``--hint``, the coach.

    gbmj-fan --hint "3m 444m 5m 66m [888m<2] [456s<1]"      (13 tiles: its waits)
    gbmj-fan --hint "123m 456p 789s EEE 1s 5p" --seat S      (14 tiles: each discard)
    gbmj-fan --hint "..." --seen "5p 5p E"                   (tiles seen on the table)
    gbmj-fan --hint --jsonl FILE                              (or - for standard input)

``--hint --jsonl`` reads records as the scoring records are written (``concealed``,
``melds``, ``flowers``, ``seat_wind``, ``prevailing_wind``; no ``win_tile``) and writes one
JSON line per record: ``{"shanten", "waits", "discards"}`` (or ``{"error", "message"}``).
The coach sees the hand's own tiles and ``--seen``, nothing else; totals include flowers,
as the scoring records' ``total`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence

from protocol.fans import FAN_BY_ID
from protocol.tiles import Tile

from ..rules import cli as fan_cli
from ..rules.errors import HandError
from ..rules.hand import Hand, parse_tiles
from ..rules.records import record_hand, record_seat
from .hints import Hints, PlanHint, Useful, WaitHint, hints, sight


def hint_json(h: Hints) -> dict[str, object]:
    """The hints as the JSON line of ``--hint --jsonl``."""
    return {
        "shanten": h.shanten,
        "waits": [
            {
                "tile": Tile(w.tile).notation,
                "discard_total": w.discard_total,
                "self_drawn_total": w.self_drawn_total,
                "discard_meets_8": w.discard_meets_8,
                "self_drawn_meets_8": w.self_drawn_meets_8,
            }
            for w in h.waits
        ],
        "discards": [
            {
                "tile": Tile(d.tile).notation,
                "shanten": d.shanten,
                "useful_kinds": d.useful_kinds,
                "useful_tiles": d.useful_tiles,
            }
            for d in h.discards
        ],
    }


def _hints_of(hand: Hand, seat_wind: Tile, prevailing_wind: Tile, flowers: int, seen: str) -> Hints:
    if not 0 <= flowers <= 8:
        raise HandError("bad_context", "there are 0 to 8 flowers")
    return hints(
        sight(
            hand.concealed,
            hand.melds,
            flowers=flowers,
            seat_wind=seat_wind,
            prevailing_wind=prevailing_wind,
            visible=parse_tiles(seen),
        )
    )


def hint_record(record: Mapping[str, object]) -> dict[str, object]:
    """The ``--hint --jsonl`` line of one record."""
    try:
        seat_wind, prevailing_wind, flowers = record_seat(record)
        h = _hints_of(record_hand(record), seat_wind, prevailing_wind, flowers, "")
    except HandError as e:
        return {"error": e.code, "message": str(e)}
    except (TypeError, ValueError, AttributeError) as e:  # not even a record
        return {"error": "bad_record", "message": str(e)}
    return hint_json(h)


def hint_lines(lines: Iterable[str]) -> Iterable[dict[str, object]]:
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            yield {"error": "bad_json", "message": f"line {n}: {e}"}
            continue
        if not isinstance(record, dict):
            yield {"error": "bad_record", "message": f"line {n} is not a JSON object"}
            continue
        yield hint_record(record)


def _tiles(useful: Sequence[Useful]) -> str:
    return " ".join(f"{Tile(u.tile).notation}({u.unseen})" for u in useful) or "-"


def _wait_line(w: WaitHint) -> str:
    def one(total: int, meets: bool, possible: bool) -> str:
        if not possible:
            return "cannot win".ljust(17)
        return f"{total:>3} fan {'8+' if meets else 'under 8'}".ljust(17)

    fourth = "  (the last copy: 和绝张 Last Tile)" if w.fourth_tile else ""
    return (
        f"  {Tile(w.tile).notation:<4}"
        f"{one(w.discard_total, w.discard_meets_8, w.discard is not None)}"
        f"{one(w.self_drawn_total, w.self_drawn_meets_8, w.self_drawn is not None)}"
        f"{w.unseen} unseen{fourth}"
    )


def _plan_line(p: PlanHint) -> str:
    fans = " + ".join(FAN_BY_ID[f].name_en for f in p.plan.fans)
    where = "ready" if p.distance == 0 else "complete" if p.distance < 0 else f"{p.distance} away"
    keep = f", discard {Tile(p.discard).notation}" if p.discard is not None else ""
    return f"  {p.plan.name} ({fans}, {p.plan.fan} fan): {where}{keep}; moved by {_tiles(p.moves)}"


def format_hints(h: Hints) -> str:
    """The hints as readable lines (English, with the fans' Chinese names)."""
    lines = []
    if h.shanten < 0:
        lines.append("complete: the hand can win now")
    elif h.shanten == 0:
        lines.append("ready" if h.size == 13 else "ready after the best discard")
    else:
        lines.append(f"{h.shanten} from ready (shanten {h.shanten})")
    if h.waits:
        lines.append("  wait on a discard       self-drawn          copies")
        lines += [_wait_line(w) for w in h.waits]
        if h.no_wait_reaches_8:
            lines.append("warning: ready, but no wait reaches 8 fan: this hand cannot win as it is")
    if h.useful:
        n = sum(u.unseen for u in h.useful)
        lines.append(f"useful: {len(h.useful)} kinds, {n} tiles: {_tiles(h.useful)}")
    for d in h.discards:
        head = (
            f"discard {Tile(d.tile).notation} → {d.useful_kinds} kinds, {d.useful_tiles} tiles"
            f" (shanten {d.shanten}): {_tiles(d.useful)}"
        )
        if d.waits:
            head += f"; winning tiles reaching 8 fan: {d.winning_8}"
        lines.append(head)
    if h.plans:
        lines.append("nearest plans:")
        lines += [_plan_line(p) for p in h.plans]
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = fan_cli.parser()
    p.add_argument(
        "--hint",
        action="store_true",
        help="the coach: waits with their fan (13 tiles) or each discard (14 tiles)",
    )
    p.add_argument(
        "--seen", default="", metavar="TILES", help="with --hint: tiles seen on the table"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not args.hint:
        return fan_cli.run(p, args)
    if args.jsonl is not None:
        if args.hand is not None:
            p.error("give a hand or --jsonl, not both")
        return fan_cli.run_jsonl(args.jsonl, sys.stdout, hint_lines)
    if args.hand is None:
        p.error("a hand is required (or --jsonl FILE)")
    try:
        h = _hints_of(
            Hand.parse(args.hand),
            Tile.parse(args.seat),
            Tile.parse(args.round),
            args.flowers,
            args.seen,
        )
    except HandError as e:
        if args.json:
            print(json.dumps({"error": e.code, "message": str(e)}, ensure_ascii=False))
        else:
            print(f"gbmj-fan: {e.code}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(hint_json(h), ensure_ascii=False) if args.json else format_hints(h))
    return 0


if __name__ == "__main__":
    sys.exit(main())
