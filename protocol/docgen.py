"""The generated part of ``docs/protocol.md``: every message, record, event kind, error
code and limit, rendered from the classes themselves and ``protocol.examples``.

``render()`` returns the markdown; ``python -m protocol.docgen`` writes it into
``docs/protocol.md`` between the markers. A test fails when the file is out of date.
"""

from __future__ import annotations

import json
from typing import Any

from . import framing
from . import messages as m
from .errors import DESCRIPTIONS, ErrorCode
from .examples import EVENT_EXAMPLES, MESSAGE_EXAMPLES
from .schema import ListOf, ListOfLengths, Optional, Record, Spec, Struct, Tagged, Tuple

BEGIN = "<!-- BEGIN GENERATED: python -m protocol.docgen -->"
END = "<!-- END GENERATED -->"

# The catalog in reading order; every message type is in exactly one section.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Connection", ("hello", "welcome", "error", "notice", "ok", "ping", "pong")),
    (
        "Accounts, levels and leaderboard",
        (
            "register",
            "login",
            "guest",
            "resume",
            "redeem_ticket",
            "logout",
            "change_password",
            "session",
            "profile",
            "get_levels",
            "levels",
            "get_leaderboard",
            "leaderboard",
        ),
    ),
    (
        "Lobby and tables",
        (
            "list_tables",
            "watch_lobby",
            "table_list",
            "lobby_update",
            "table_update",
            "create_table",
            "configure_table",
            "join_table",
            "spectate",
            "redirect",
            "sit",
            "stand",
            "ready",
            "add_bot",
            "remove_bot",
            "kick",
            "leave_table",
            "table_left",
            "auto_play",
        ),
    ),
    (
        "The game",
        (
            "snapshot",
            "event",
            "prompt",
            "action",
            "hand_result",
            "result_closed",
            "match_result",
            "presence",
            "timed_out",
            "timer_extended",
            "stood_up",
        ),
    ),
    (
        "Items",
        (
            "get_inventory",
            "inventory",
            "get_shop",
            "shop",
            "buy",
            "item_awarded",
            "move_item",
            "use_item",
            "lay_tablecloth",
            "arm_timer_extension",
            "use_tile_counter",
            "tile_counts",
        ),
    ),
    (
        "History",
        (
            "list_matches",
            "match_list",
            "get_match",
            "match_detail",
            "get_hand",
            "hand_log",
            "save_hand",
            "list_saved_hands",
            "saved_hands",
        ),
    ),
    ("SSH keys", ("list_ssh_keys", "add_ssh_key", "remove_ssh_key", "ssh_keys")),
    ("Chat and moderation", ("chat_send", "chat", "mute")),
    (
        "Tournaments",
        (
            "list_tournaments",
            "tournament_list",
            "enter_tournament",
            "withdraw_tournament",
            "get_tournament",
            "tournament_detail",
            "tournament_seated",
            "create_tournament",
            "manage_tournament",
        ),
    ),
)

SENDERS = {"client": "client → server", "server": "server → client", "both": "either way"}


def _anchor(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-").replace(",", "")


def _type_text(spec: Spec) -> str:
    """A spec described, with links to the records it names."""
    if isinstance(spec, Struct):
        return f"map [`{spec.cls.__name__}`](#{_anchor(spec.cls.__name__)})"
    if isinstance(spec, Tagged):
        return f"map [event](#{_anchor('Events')}), told apart by `kind`"
    if isinstance(spec, Optional):
        return _type_text(spec.inner) + ", optional"
    if isinstance(spec, ListOfLengths):
        return f"list of {' or '.join(map(str, spec.lengths))} × ({_type_text(spec.item)})"
    if isinstance(spec, ListOf):
        n = f"{spec.min_len}" if spec.min_len == spec.max_len else f"{spec.min_len}..{spec.max_len}"
        return f"list of {n} × ({_type_text(spec.item)})"
    if isinstance(spec, Tuple):
        return "[" + ", ".join(_type_text(s) for s in spec.items) + "]"
    return spec.describe()


def _fields_table(cls: type[Record], skip_id: bool = True) -> list[str]:
    rows = [(name, spec, doc) for name, spec, doc in cls.fields() if not (skip_id and name == "id")]
    if not rows:
        return ["No fields" + (" besides `type` and `id`." if skip_id else ".")]
    out = ["| field | wire type | meaning |", "| --- | --- | --- |"]
    for name, spec, doc in rows:
        out.append(f"| `{name}` | {_type_text(spec)} | {doc} |".replace("  ", " "))
    for rule in cls._RULES:
        out.append("")
        out.append(f"Rule: {rule.describe()}.")
    return out


def _doc(cls: type) -> str:
    """A class docstring as one markdown paragraph."""
    doc = cls.__doc__ or ""
    if doc.startswith(cls.__name__ + "("):  # the signature dataclass puts there
        return ""
    return " ".join(doc.split()).replace("``", "`")


def _json(value: Any, indent: int = 0) -> str:
    """Compact JSON: one map entry per line, lists of plain values on one line."""
    pad = "  " * indent
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if len(flat) + 2 * indent <= 96 or not isinstance(value, dict | list):
        return flat
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = ",\n".join(
            f"{pad}  {json.dumps(k, ensure_ascii=False)}: {_json(v, indent + 1)}"
            for k, v in value.items()
        )
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        if all(isinstance(v, list) and not any(isinstance(x, dict) for x in v) for v in value):
            return "[" + ", ".join(_json(v) for v in value) + "]"
        inner = ",\n".join(f"{pad}  {_json(v, indent + 1)}" for v in value)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def _records() -> list[type[Record]]:
    """Every non-message record the catalog uses, in order of first use."""
    seen: list[type[Record]] = []

    def visit(spec: Spec) -> None:
        if isinstance(spec, Optional):
            visit(spec.inner)
        elif isinstance(spec, ListOf):
            visit(spec.item)
        elif isinstance(spec, Tuple):
            for s in spec.items:
                visit(s)
        elif isinstance(spec, Struct) and spec.cls not in seen:
            seen.append(spec.cls)
            for _, s, _ in spec.cls.fields():
                visit(s)

    for _, types in SECTIONS:
        for t in types:
            for _, spec, _ in m.MESSAGE_TYPES[t].fields():
                visit(spec)
    for cls in m.EVENT_KINDS.values():
        for _, spec, _ in cls.fields():
            visit(spec)
    return seen


def render() -> str:
    """The generated reference, between the markers."""
    examples = {x.TAG: x for x in MESSAGE_EXAMPLES}
    lines = [BEGIN, "", "## Messages", ""]
    lines.append(
        "Every message also has `type` (its name below) and may have `id` (int "
        "0..4294967295): a request's `id` is echoed by its reply. Fields marked optional "
        "may be left out (or sent as nil)."
    )
    lines.append("")
    for title, types in SECTIONS:
        lines += [f"### {title}", ""]
        for t in types:
            cls = m.MESSAGE_TYPES[t]
            lines += [f"#### `{t}`", ""]
            meta = SENDERS[cls.SENDER]
            if cls.REPLY:
                meta += f"; answered by `{cls.REPLY}` (or `error`)"
            lines += [f"*{meta}.* {_doc(cls)}".rstrip(), ""]
            lines += _fields_table(cls)
            lines += ["", "```json", _json(examples[t].to_wire()), "```", ""]
    lines += ["## Events", ""]
    lines.append(
        "The `event` field of an `event` message is a map told apart by `kind` "
        "(docs/vocabulary.md). A tile the viewer may not see is left out."
    )
    lines.append("")
    event_examples: dict[str, list[Any]] = {}
    for ex in EVENT_EXAMPLES:
        event_examples.setdefault(ex.TAG or "", []).append(ex)
    for kind, body in m.EVENT_KINDS.items():
        lines += [f"#### `{kind}`", ""]
        if _doc(body) and body.__doc__ != m.EventBody.__doc__:
            lines += [_doc(body), ""]
        lines += _fields_table(body, skip_id=False)
        for ex in event_examples[kind]:
            lines += ["", "```json", _json(ex.to_wire()), "```"]
        lines.append("")
    lines += ["## Records", ""]
    lines.append("Maps nested in messages.")
    lines.append("")
    for nested in _records():
        lines += [f"### `{nested.__name__}`", ""]
        if _doc(nested):
            lines += [_doc(nested), ""]
        lines += _fields_table(nested, skip_id=False)
        lines.append("")
    lines += ["## Error codes", "", "| code | meaning |", "| --- | --- |"]
    for code in ErrorCode:
        lines.append(f"| `{code.value}` | {DESCRIPTIONS[code]} |")
    lines += ["", "## Limits", "", "| limit | value |", "| --- | --- |"]
    lines += [
        f"| frame body | {framing.MAX_FRAME} bytes |",
        f"| one string | {framing.MAX_STRING} bytes (and each field's own length in characters) |",
        f"| one list | {framing.MAX_LIST} items (and each field's own length) |",
        f"| one map | {framing.MAX_MAP} entries |",
        f"| nesting of maps and lists | {framing.MAX_DEPTH} levels (the message map is level 1) |",
        f"| tables in one `table_list` | {m.TABLE_PAGE} |",
    ]
    lines += ["", END]
    return "\n".join(lines)


def update(text: str) -> str:
    """``text`` (the whole of docs/protocol.md) with its generated part replaced."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


if __name__ == "__main__":
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
    path.write_text(update(path.read_text("utf-8")), "utf-8")
    print(f"wrote {path}")
