"""Message values derived from the catalog's own field specs: random ones for hypothesis,
and the largest valid one of each type (to check every valid message fits in a frame)."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
from hypothesis import strategies as st

from protocol.fans import FAN_BY_ID
from protocol.messages import EVENT_KINDS, MESSAGE_TYPES, EventBody, Message
from protocol.schema import (
    Base64,
    Bool,
    Choice,
    FanId,
    Hex,
    Int,
    ListOf,
    Optional,
    Record,
    Spec,
    Str,
    Struct,
    Tagged,
    TileCode,
    Tuple,
)
from protocol.tiles import Tile

# Printable text from all of Unicode, minus control, surrogate and line/paragraph separators.
_TEXT = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))  # Cf left to the filter
_SHORT = 4  # random lists are kept short; the largest ones are built by ``largest``


def for_spec(spec: Spec) -> st.SearchStrategy[Any]:
    """A strategy of valid Python values for ``spec``."""
    if isinstance(spec, Int):
        return st.integers(spec.lo, spec.hi)
    if isinstance(spec, Bool):
        return st.booleans()
    if isinstance(spec, Str):
        return st.text(_TEXT, min_size=spec.min_len, max_size=min(spec.max_len, 30)).filter(
            lambda s: spec.min_len <= len(s) and _valid(spec, s)
        )
    if isinstance(spec, Hex):
        return st.text("0123456789abcdef", min_size=spec.min_len, max_size=spec.max_len)
    if isinstance(spec, Base64):
        return st.binary(min_size=1, max_size=spec.max_len // 4 * 3).map(
            lambda b: base64.b64encode(b).decode("ascii")
        )
    if isinstance(spec, Choice):
        return st.sampled_from(spec.values)
    if isinstance(spec, TileCode):
        return st.integers(spec.lo, spec.hi).map(Tile)
    if isinstance(spec, FanId):
        return st.sampled_from(sorted(FAN_BY_ID))
    if isinstance(spec, ListOf):
        top = min(spec.max_len, max(spec.min_len, _SHORT))
        return st.lists(for_spec(spec.item), min_size=spec.min_len, max_size=top).map(tuple)
    if isinstance(spec, Tuple):
        return st.tuples(*(for_spec(s) for s in spec.items))
    if isinstance(spec, Optional):
        return st.none() | for_spec(spec.inner)
    if isinstance(spec, Struct):
        return records(spec.cls)
    if isinstance(spec, Tagged):
        return st.sampled_from(sorted(spec.base._REGISTRY)).flatmap(
            lambda tag: records(spec.base._REGISTRY[tag])
        )
    raise TypeError(f"no strategy for {spec!r}")


def _valid(spec: Spec, value: Any) -> bool:
    try:
        msgspec.convert(value, spec.type())
    except msgspec.ValidationError:
        return False
    return True


@st.composite
def records(draw: st.DrawFn, cls: type[Record]) -> Record:
    """A valid ``cls``: random fields, then the cross-field rules made to hold."""
    values = {name: draw(for_spec(spec)) for name, spec in cls._SCHEMA.items()}
    for rule in cls._RULES:
        if values[rule.field] in rule.values:
            for name in rule.forbid:
                values[name] = None
            for name in rule.require:
                if values[name] is None:
                    values[name] = draw(for_spec(cls._SCHEMA[name].inner))
    return cls(**values)


def messages() -> st.SearchStrategy[Message]:
    """Any valid message of any type."""
    return st.sampled_from(sorted(MESSAGE_TYPES)).flatmap(lambda t: records(MESSAGE_TYPES[t]))


# -- the largest valid values -----------------------------------------------------------
_WIDE = "😀"  # four bytes of UTF-8: the most bytes a character can take


def largest(spec: Spec) -> Any:
    """The valid value of ``spec`` that takes the most bytes on the wire."""
    if isinstance(spec, Int):
        return spec.lo if abs(spec.lo) > abs(spec.hi) else spec.hi
    if isinstance(spec, Bool):
        return False
    if isinstance(spec, Str):
        return _WIDE * spec.max_len
    if isinstance(spec, Hex):
        return "f" * spec.max_len
    if isinstance(spec, Base64):
        return "A" * (spec.max_len // 4 * 4)
    if isinstance(spec, Choice):
        return max(spec.values, key=lambda v: len(str(v)) if isinstance(v, str) else abs(v))
    if isinstance(spec, TileCode):
        return Tile(spec.hi)
    if isinstance(spec, FanId):
        return max(FAN_BY_ID)
    if isinstance(spec, ListOf):
        return (largest(spec.item),) * spec.max_len
    if isinstance(spec, Tuple):
        return tuple(largest(s) for s in spec.items)
    if isinstance(spec, Optional):
        return largest(spec.inner)
    if isinstance(spec, Struct):
        return largest_record(spec.cls)
    if isinstance(spec, Tagged):
        return max(
            (largest_record(c) for c in spec.base._REGISTRY.values()),
            key=lambda r: len(repr(r)),
        )
    raise TypeError(f"no largest value for {spec!r}")


def largest_record(cls: type[Record]) -> Record:
    values = {name: largest(spec) for name, spec in cls._SCHEMA.items()}
    for rule in cls._RULES:
        if values[rule.field] in rule.values:
            for name in rule.forbid:
                values[name] = None
    return cls(**values)


__all__ = ["EVENT_KINDS", "EventBody", "for_spec", "largest_record", "messages", "records"]
