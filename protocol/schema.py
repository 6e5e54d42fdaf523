"""The field-schema mechanism: each message declares its fields once, here they are checked.

A *record* is a frozen dataclass whose fields carry a ``Spec`` (``field(Int(0, 3))``).
From those specs one generic routine decodes a wire map into the record (checking every
field: missing, extra, wrong type, out of range) and encodes a record back into a wire
map (checking the same, so a bug on the sending side never reaches the wire). Cross-field
rules are declared as data too (``When``). Specs also describe themselves for the
protocol reference (``docs/protocol.md``).

Wire values are plain msgpack values: ints, bools, strings, lists, maps with string keys.
Decoded lists are tuples, tiles are ``Tile``, nested maps are records.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

from .errors import ErrorCode, ProtocolError
from .fans import FAN_BY_ID
from .tiles import NOTATION, Tile

__all__ = [
    "Base64",
    "Bool",
    "Choice",
    "FanId",
    "Hex",
    "Int",
    "ListOf",
    "Optional",
    "Record",
    "Spec",
    "Str",
    "Struct",
    "Tagged",
    "TileCode",
    "Tuple",
    "When",
    "field",
    "record",
]


def _fail(code: ErrorCode, path: str, what: str) -> ProtocolError:
    return ProtocolError(code, f"{path}: {what}", path)


def _kind(value: object) -> str:
    """The wire kind of a decoded value, for error messages."""
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        bytes: "binary data",
        tuple: "a list",
        list: "a list",
        dict: "a map",
        type(None): "nil",
    }.get(type(value), type(value).__name__)


# -- specs ------------------------------------------------------------------------------
class Spec:
    """How one field travels: ``decode`` checks a wire value, ``encode`` a Python value."""

    optional: ClassVar[bool] = False

    def decode(self, value: Any, path: str) -> Any:
        raise NotImplementedError

    def encode(self, value: Any, path: str) -> Any:
        # Most specs accept the same values on both sides; encoding also canonicalises
        # (Tile -> int, tuple -> list, record -> map).
        return self.decode(value, path)

    def describe(self) -> str:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, slots=True)
class Int(Spec):
    lo: int
    hi: int

    def decode(self, value: Any, path: str) -> int:
        # bool is an int in Python but not on the wire; Tile (an IntEnum) is allowed for
        # encoding and leaves as a plain int.
        if type(value) is bool or not isinstance(value, int):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected an integer, got {_kind(value)}")
        if not self.lo <= value <= self.hi:
            raise _fail(
                ErrorCode.OUT_OF_RANGE, path, f"{value} is out of range {self.lo}..{self.hi}"
            )
        return int(value)

    def describe(self) -> str:
        return f"int {self.lo}..{self.hi}"


@dataclasses.dataclass(frozen=True, slots=True)
class Bool(Spec):
    def decode(self, value: Any, path: str) -> bool:
        if type(value) is not bool:
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a boolean, got {_kind(value)}")
        return value

    def describe(self) -> str:
        return "bool"


# Control characters (C0, C1, line separators) and bidirectional overrides in names and
# chat could repaint or garble another player's terminal.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@dataclasses.dataclass(frozen=True, slots=True)
class Str(Spec):
    """One line of ``min_len``..``max_len`` characters, without control characters."""

    max_len: int
    min_len: int = 1

    def decode(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a string, got {_kind(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise _fail(
                ErrorCode.OUT_OF_RANGE,
                path,
                f"length {len(value)} is out of range {self.min_len}..{self.max_len}",
            )
        bad = _CONTROL.search(value)
        if bad:
            raise _fail(
                ErrorCode.OUT_OF_RANGE, path, f"control character {bad.group()!r} not allowed"
            )
        return str(value)

    def describe(self) -> str:
        return f"str {self.min_len}..{self.max_len} chars"


_HEX = re.compile(r"[0-9a-f]*")


@dataclasses.dataclass(frozen=True, slots=True)
class Hex(Spec):
    """Lowercase hexadecimal text (hashes, salts)."""

    min_len: int
    max_len: int

    def decode(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a string, got {_kind(value)}")
        if not self.min_len <= len(value) <= self.max_len or not _HEX.fullmatch(value):
            raise _fail(
                ErrorCode.OUT_OF_RANGE,
                path,
                f"expected {self.min_len}..{self.max_len} lowercase hex digits",
            )
        return str(value)

    def describe(self) -> str:
        n = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
        return f"hex str of {n} digits"


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


@dataclasses.dataclass(frozen=True, slots=True)
class Base64(Spec):
    """Base64 text (RFC 4648, with padding): bytes that travel as ASCII, one byte a
    character (certificates, signatures)."""

    max_len: int

    def decode(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a string, got {_kind(value)}")
        if not 4 <= len(value) <= self.max_len or len(value) % 4 or not _BASE64.fullmatch(value):
            raise _fail(
                ErrorCode.OUT_OF_RANGE, path, f"expected base64 of 4..{self.max_len} characters"
            )
        return str(value)

    def describe(self) -> str:
        return f"base64 str of 4..{self.max_len} chars"


class Choice(Spec):
    """One of a closed list: the members of a ``StrEnum`` of ``protocol.vocabulary``
    (decoded to the member), or a fixed tuple of integers (stakes)."""

    __slots__ = ("_by_value", "values")

    def __init__(self, values: type[StrEnum] | tuple[int, ...] | tuple[str, ...]) -> None:
        self.values: tuple[Any, ...] = tuple(values)
        self._by_value: dict[Any, Any] = {v: v for v in self.values}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Choice) and other.values == self.values

    def __hash__(self) -> int:
        return hash(self.values)

    def __repr__(self) -> str:
        return f"Choice({self.values!r})"

    def decode(self, value: Any, path: str) -> Any:
        want = str if isinstance(self.values[0], str) else int
        if not isinstance(value, want) or type(value) is bool:
            what = "a string" if want is str else "an integer"
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected {what}, got {_kind(value)}")
        member = self._by_value.get(value)
        if member is None:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
            raise _fail(
                ErrorCode.OUT_OF_RANGE,
                path,
                f"{shown} is not one of {', '.join(map(str, self.values))}",
            )
        return member

    def encode(self, value: Any, path: str) -> Any:
        member = self.decode(value, path)
        return str(member) if isinstance(member, str) else int(member)

    def describe(self) -> str:
        return "one of " + ", ".join(f"`{v}`" for v in self.values)


@dataclasses.dataclass(frozen=True, slots=True)
class TileCode(Spec):
    """A tile code (``protocol.tiles``) in ``lo``..``hi``; decodes to ``Tile``."""

    lo: int = 0
    hi: int = 41
    what: str = "tile"

    def decode(self, value: Any, path: str) -> Tile:
        if type(value) is bool or not isinstance(value, int):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a tile code, got {_kind(value)}")
        if not self.lo <= value <= self.hi:
            raise _fail(
                ErrorCode.OUT_OF_RANGE,
                path,
                f"{value} is not a {self.what} code ({self.lo}..{self.hi})",
            )
        return Tile(value)

    def encode(self, value: Any, path: str) -> int:
        return int(self.decode(value, path))

    def describe(self) -> str:
        return f"{self.what} code {self.lo}..{self.hi} ({NOTATION[self.lo]}..{NOTATION[self.hi]})"


@dataclasses.dataclass(frozen=True, slots=True)
class FanId(Spec):
    """A fan id of ``protocol/fans.json``."""

    def decode(self, value: Any, path: str) -> int:
        if type(value) is bool or not isinstance(value, int):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a fan id, got {_kind(value)}")
        if value not in FAN_BY_ID:
            raise _fail(ErrorCode.OUT_OF_RANGE, path, f"{value} is not a fan id")
        return int(value)

    def describe(self) -> str:
        return f"fan id {min(FAN_BY_ID)}..{max(FAN_BY_ID)} (protocol/fans.json)"


@dataclasses.dataclass(frozen=True, slots=True)
class ListOf(Spec):
    item: Spec
    max_len: int
    min_len: int = 0

    def _check(self, value: Any, path: str) -> None:
        if not isinstance(value, tuple | list):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a list, got {_kind(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            n = (
                f"{self.min_len}"
                if self.min_len == self.max_len
                else f"{self.min_len}..{self.max_len}"
            )
            raise _fail(ErrorCode.OUT_OF_RANGE, path, f"expected {n} items, got {len(value)}")

    def decode(self, value: Any, path: str) -> tuple[Any, ...]:
        self._check(value, path)
        return tuple(self.item.decode(v, f"{path}[{i}]") for i, v in enumerate(value))

    def encode(self, value: Any, path: str) -> list[Any]:
        self._check(value, path)
        return [self.item.encode(v, f"{path}[{i}]") for i, v in enumerate(value)]

    def describe(self) -> str:
        n = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
        return f"list of {n} × ({self.item.describe()})"


@dataclasses.dataclass(frozen=True, slots=True)
class ListOfLengths(ListOf):
    """A list of one of a few lengths (a wall order: 144 tiles, or 136 on personal walls)."""

    lengths: tuple[int, ...] = ()

    def _check(self, value: Any, path: str) -> None:
        if not isinstance(value, tuple | list):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a list, got {_kind(value)}")
        if len(value) not in self.lengths:
            n = " or ".join(map(str, self.lengths))
            raise _fail(ErrorCode.OUT_OF_RANGE, path, f"expected {n} items, got {len(value)}")

    def describe(self) -> str:
        return f"list of {' or '.join(map(str, self.lengths))} × ({self.item.describe()})"


@dataclasses.dataclass(frozen=True, slots=True)
class Tuple(Spec):
    """A fixed-length list whose positions have their own specs (e.g. ``[fan id, count]``)."""

    items: tuple[Spec, ...]

    def _check(self, value: Any, path: str) -> None:
        if not isinstance(value, tuple | list):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a list, got {_kind(value)}")
        if len(value) != len(self.items):
            raise _fail(
                ErrorCode.OUT_OF_RANGE,
                path,
                f"expected {len(self.items)} items, got {len(value)}",
            )

    def decode(self, value: Any, path: str) -> tuple[Any, ...]:
        self._check(value, path)
        return tuple(
            s.decode(v, f"{path}[{i}]")
            for i, (s, v) in enumerate(zip(self.items, value, strict=True))
        )

    def encode(self, value: Any, path: str) -> list[Any]:
        self._check(value, path)
        return [
            s.encode(v, f"{path}[{i}]")
            for i, (s, v) in enumerate(zip(self.items, value, strict=True))
        ]

    def describe(self) -> str:
        return "[" + ", ".join(s.describe() for s in self.items) + "]"


@dataclasses.dataclass(frozen=True, slots=True)
class Optional(Spec):
    """The field may be absent (or nil); absent is ``None``, and ``None`` is not sent."""

    inner: Spec
    optional: ClassVar[bool] = True

    def decode(self, value: Any, path: str) -> Any:
        return None if value is None else self.inner.decode(value, path)

    def encode(self, value: Any, path: str) -> Any:
        return None if value is None else self.inner.encode(value, path)

    def describe(self) -> str:
        return self.inner.describe() + ", optional"


@dataclasses.dataclass(frozen=True, slots=True)
class Struct(Spec):
    """A nested record, sent as a map."""

    cls: type[Record]

    def decode(self, value: Any, path: str) -> Record:
        return self.cls.from_wire(value, path)

    def encode(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, self.cls):
            raise _fail(
                ErrorCode.WRONG_TYPE,
                path,
                f"expected {self.cls.__name__}, got {type(value).__name__}",
            )
        return value.to_wire(path)

    def describe(self) -> str:
        return f"map `{self.cls.__name__}`"


@dataclasses.dataclass(frozen=True, slots=True)
class Tagged(Spec):
    """One of several records told apart by a tag field (an event by its ``kind``)."""

    base: type[Record]

    def decode(self, value: Any, path: str) -> Record:
        key = self.base._TAG_KEY
        if not isinstance(value, dict):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a map, got {_kind(value)}")
        if key not in value:
            raise _fail(ErrorCode.MISSING_FIELD, f"{path}.{key}", "missing")
        tag = Choice(tuple(self.base._REGISTRY)).decode(value[key], f"{path}.{key}")
        return self.base._REGISTRY[tag].from_wire(value, path)

    def encode(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, self.base) or type(value).__dict__.get("TAG") is None:
            raise _fail(
                ErrorCode.WRONG_TYPE,
                path,
                f"expected one of the {self.base.__name__} kinds, got {type(value).__name__}",
            )
        return value.to_wire(path)

    def describe(self) -> str:
        return f"map `{self.base.__name__}`, told apart by `{self.base._TAG_KEY}`"


# -- cross-field rules ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class When:
    """When ``field`` has one of ``values``, the ``require`` fields must be present and
    the ``forbid`` fields absent."""

    field: str
    values: tuple[Any, ...]
    require: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()

    def check(self, obj: Record, path: str) -> None:
        if getattr(obj, self.field) not in self.values:
            return
        for name in self.require:
            if getattr(obj, name) is None:
                raise _fail(
                    ErrorCode.MISSING_FIELD,
                    f"{path}.{name}",
                    f"required when {self.field} is {getattr(obj, self.field)!r}",
                )
        for name in self.forbid:
            if getattr(obj, name) is not None:
                raise _fail(
                    ErrorCode.EXTRA_FIELD,
                    f"{path}.{name}",
                    f"not allowed when {self.field} is {getattr(obj, self.field)!r}",
                )

    def describe(self) -> str:
        vals = ", ".join(f"`{v}`" for v in self.values)
        parts = []
        if self.require:
            parts.append("requires " + ", ".join(f"`{n}`" for n in self.require))
        if self.forbid:
            parts.append("forbids " + ", ".join(f"`{n}`" for n in self.forbid))
        return f"`{self.field}` in {vals} " + " and ".join(parts)


# -- records ----------------------------------------------------------------------------
_REQUIRED: Any = dataclasses.MISSING


def field(spec: Spec, doc: str = "", *, default: None = _REQUIRED) -> Any:
    """Declare a record field by its wire spec. An optional field says ``default=None``
    (so a type checker knows the field may be left out); only an optional one may."""
    if spec.optional != (default is None):
        raise TypeError(
            f"a field of spec {spec.describe()} needs default=None exactly when optional"
        )
    return dataclasses.field(default=default, metadata={"spec": spec, "doc": doc})


# The type checker reads every subclass as the keyword-only frozen dataclass that
# ``@record`` makes it at run time, with ``field`` declaring its fields.
@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Record:
    """Base of every wire record: a frozen dataclass with a field schema.

    Subclasses are made with ``@record`` (or ``message``/``event`` decorators built on
    it), which fills in ``_SCHEMA`` from the fields' specs.
    """

    __slots__ = ()
    _SCHEMA: ClassVar[dict[str, Spec]] = {}
    _RULES: ClassVar[tuple[When, ...]] = ()
    _TAG_KEY: ClassVar[str | None] = None  # the map key naming the subclass, if any
    _REGISTRY: ClassVar[dict[str, type[Record]]] = {}
    TAG: ClassVar[str | None] = None
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]  # set by ``@record``

    @classmethod
    def from_wire(cls, data: Any, path: str | None = None) -> Self:
        """Check a decoded wire map and build the record; ``ProtocolError`` otherwise."""
        path = path or cls._path_name()
        if not isinstance(data, dict):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a map, got {_kind(data)}")
        schema = cls._SCHEMA
        for key in data:
            if key not in schema and key != cls._TAG_KEY:
                shown = repr(key) if len(repr(key)) <= 40 else repr(key)[:40] + "…"
                raise _fail(ErrorCode.EXTRA_FIELD, f"{path}.{shown}", "unknown field")
        values: dict[str, Any] = {}
        for name, spec in schema.items():
            if name in data:
                values[name] = spec.decode(data[name], f"{path}.{name}")
            elif not spec.optional:
                raise _fail(ErrorCode.MISSING_FIELD, f"{path}.{name}", "missing")
        obj = cls(**values)
        for rule in cls._RULES:
            rule.check(obj, path)
        return obj

    def to_wire(self, path: str | None = None, *, check: bool = True) -> dict[str, Any]:
        """The wire map of this record, checked field by field.

        ``check=False`` builds the same map without the checks: for messages a trusted
        sender builds on its hot path (the server's events and prompts), whose shapes the
        tests check against the schema."""
        if not check:
            plain: dict[str, Any] = _plain(self)
            return plain
        path = path or self._path_name()
        out: dict[str, Any] = {}
        if self._TAG_KEY is not None:
            out[self._TAG_KEY] = self.TAG
        for name, spec in self._SCHEMA.items():
            value = getattr(self, name)
            if value is None:
                if not spec.optional:
                    raise _fail(ErrorCode.MISSING_FIELD, f"{path}.{name}", "missing")
                continue
            out[name] = spec.encode(value, f"{path}.{name}")
        for rule in self._RULES:
            rule.check(self, path)
        return out

    @classmethod
    def _path_name(cls) -> str:
        return cls.TAG or cls.__name__

    @classmethod
    def fields(cls) -> Iterator[tuple[str, Spec, str]]:
        """(name, spec, doc) of each field, in declaration order (for the reference)."""
        for f in dataclasses.fields(cls):
            yield f.name, f.metadata["spec"], f.metadata["doc"]


def _plain(value: Any) -> Any:
    """The wire form of a value without checking it: records become maps (absent
    optional fields left out, the tag added), lists and tuples lists; strings, integers
    (tiles, enum members) and booleans pass as they are (msgpack packs them as such)."""
    if isinstance(value, Record):
        out: dict[str, Any] = {}
        if value._TAG_KEY is not None:
            out[value._TAG_KEY] = value.TAG
        for name in value._SCHEMA:
            item = getattr(value, name)
            if item is not None:
                out[name] = _plain(item)
        return out
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


R = TypeVar("R", bound="Record")


def record(cls: type[R]) -> type[R]:
    """Make ``cls`` a frozen, slotted, keyword-only dataclass and compile its schema."""
    cls = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    cls._SCHEMA = {f.name: f.metadata["spec"] for f in dataclasses.fields(cls)}
    return cls


def tagged(tag: str) -> Callable[[type[R]], type[R]]:
    """``@record`` plus registration under ``tag`` in the nearest tagged base's registry."""

    def wrap(cls: type[R]) -> type[R]:
        if tag in cls._REGISTRY:
            raise ValueError(f"duplicate tag {tag!r}")
        cls = record(cls)
        cls.TAG = tag
        cls._REGISTRY[tag] = cls
        return cls

    return wrap
