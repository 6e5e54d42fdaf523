"""docs/protocol.md documents every message, event, record, error code and limit, with
examples made from the real classes: it cannot drift from the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from protocol import docgen
from protocol.errors import ErrorCode
from protocol.messages import EVENT_KINDS, MESSAGE_TYPES, Message

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_the_generated_reference_is_up_to_date() -> None:
    text = DOC.read_text("utf-8")
    assert docgen.update(text) == text, "run: uv run python -m protocol.docgen"


def test_every_message_type_is_in_exactly_one_section() -> None:
    listed = [t for _, types in docgen.SECTIONS for t in types]
    assert sorted(listed) == sorted(MESSAGE_TYPES)


def test_every_message_event_and_error_code_has_a_heading_or_row() -> None:
    text = DOC.read_text("utf-8")
    headings = set(re.findall(r"^#### `([a-z_]+)`$", text, re.M))
    assert set(MESSAGE_TYPES) | set(EVENT_KINDS) <= headings
    for code in ErrorCode:
        assert f"| `{code.value}` |" in text


def test_every_json_example_in_the_reference_is_a_valid_message() -> None:
    """The examples decode as what they claim to be (JSON stands in for msgpack here)."""
    text = DOC.read_text("utf-8")
    generated = text[text.index(docgen.BEGIN) :]
    blocks = re.findall(r"^#### `([a-z_]+)`$|^```json\n(.*?)^```$", generated, re.M | re.S)
    checked = 0
    heading = ""
    for name, body in blocks:
        if name:
            heading = name
            continue
        value = json.loads(body)
        if heading in MESSAGE_TYPES:
            assert heading == Message.from_wire(_tuples(value)).TAG
        else:
            wrapped = {"type": "event", "table_id": 1, "seq": 1, "event": _tuples(value)}
            assert heading == Message.from_wire(wrapped).event.TAG
        checked += 1
    assert checked >= len(MESSAGE_TYPES) + len(EVENT_KINDS)


def _tuples(value: object) -> object:
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
