"""The field-schema mechanism: each message declares its fields once, msgspec checks them.

A *record* is a frozen ``msgspec.Struct`` whose fields carry a ``Spec``
(``field(Int(0, 3))``). Each spec gives the field's msgspec type (``Annotated`` with
``Meta`` constraints: ranges, lengths, patterns; enums, literals, nested records, tagged
unions), so msgspec's C decoder checks every field of a wire map (missing, extra, wrong
type, out of range) and builds the record, and its encoder writes a record back as a
map. The few rules msgspec's types cannot say (a tile code narrower than a ``Tile``, a
list of one of a few lengths, the cross-field ``When`` rules) run in ``__post_init__``
while a wire value is checked, never when the program builds a record. A refusal becomes
a ``ProtocolError`` with the protocol's own code, naming the field by its path. Specs also
describe themselves for the protocol reference (``docs/protocol.md``).

Wire values are plain msgpack values: ints, bools, strings, lists, maps with string keys.
Decoded lists are tuples, tiles are ``Tile``, nested maps are records. Records also keep
the dataclass field protocol (``dataclasses.replace``, ``dataclasses.fields``).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import re
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, Self, TypeVar, Union, dataclass_transform

import msgspec
from msgspec import Meta

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

# A check msgspec's types cannot say: the error text for a decoded value, or None.
Check = Callable[[Any], "str | None"]


def _fail(code: ErrorCode, path: str, what: str) -> ProtocolError:
    return ProtocolError(code, f"{path}: {what}", path)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


# -- specs ------------------------------------------------------------------------------
class Spec:
    """How one field travels: its msgspec ``type()``, a ``check`` msgspec cannot make
    (if any), and its description for the reference."""

    optional: ClassVar[bool] = False

    def type(self) -> Any:
        raise NotImplementedError

    def check(self) -> Check | None:
        return None

    def refusal(self, value: Any) -> str:
        """Why ``value`` (of the right wire kind) is not one of this spec's."""
        return f"{_shown(value)} is not {self.describe()}"

    def describe(self) -> str:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, slots=True)
class Int(Spec):
    lo: int
    hi: int

    def type(self) -> Any:
        return Annotated[int, Meta(ge=self.lo, le=self.hi)]

    def refusal(self, value: Any) -> str:
        return f"{value} is out of range {self.lo}..{self.hi}"

    def describe(self) -> str:
        return f"int {self.lo}..{self.hi}"


@dataclasses.dataclass(frozen=True, slots=True)
class Bool(Spec):
    def type(self) -> Any:
        return bool

    def describe(self) -> str:
        return "bool"


# Control characters (C0, C1, line separators) and bidirectional overrides in names and
# chat could repaint or garble another player's terminal.
_CONTROL = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_NO_CONTROL = rf"\A[^{_CONTROL}]*\Z"


@dataclasses.dataclass(frozen=True, slots=True)
class Str(Spec):
    """One line of ``min_len``..``max_len`` characters, without control characters."""

    max_len: int
    min_len: int = 1

    def type(self) -> Any:
        return Annotated[
            str, Meta(min_length=self.min_len, max_length=self.max_len, pattern=_NO_CONTROL)
        ]

    def refusal(self, value: Any) -> str:
        if not self.min_len <= len(value) <= self.max_len:
            return f"length {len(value)} is out of range {self.min_len}..{self.max_len}"
        bad = re.search(f"[{_CONTROL}]", value)
        return f"control character {bad.group() if bad else ''!r} not allowed"

    def describe(self) -> str:
        return f"str {self.min_len}..{self.max_len} chars"


@dataclasses.dataclass(frozen=True, slots=True)
class Hex(Spec):
    """Lowercase hexadecimal text (hashes, salts)."""

    min_len: int
    max_len: int

    def type(self) -> Any:
        return Annotated[
            str, Meta(min_length=self.min_len, max_length=self.max_len, pattern=r"\A[0-9a-f]*\Z")
        ]

    def refusal(self, value: Any) -> str:
        return f"expected {self.min_len}..{self.max_len} lowercase hex digits"

    def describe(self) -> str:
        n = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
        return f"hex str of {n} digits"


# Whole groups of four characters, the last one padded.
_BASE64 = r"\A(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)\Z"


@dataclasses.dataclass(frozen=True, slots=True)
class Base64(Spec):
    """Base64 text (RFC 4648, with padding): bytes that travel as ASCII, one byte a
    character (certificates, signatures)."""

    max_len: int

    def type(self) -> Any:
        return Annotated[str, Meta(min_length=4, max_length=self.max_len, pattern=_BASE64)]

    def refusal(self, value: Any) -> str:
        return f"expected base64 of 4..{self.max_len} characters"

    def describe(self) -> str:
        return f"base64 str of 4..{self.max_len} chars"


class Choice(Spec):
    """One of a closed list: the members of a ``StrEnum`` of ``protocol.vocabulary``
    (decoded to the member), or a fixed tuple of integers (stakes)."""

    __slots__ = ("_enum", "values")

    def __init__(self, values: type[StrEnum] | tuple[int, ...] | tuple[str, ...]) -> None:
        self._enum = values if isinstance(values, type) else None
        self.values: tuple[Any, ...] = tuple(values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Choice) and other.values == self.values

    def __hash__(self) -> int:
        return hash(self.values)

    def __repr__(self) -> str:
        return f"Choice({self.values!r})"

    def type(self) -> Any:
        return self._enum if self._enum is not None else Literal[self.values]

    def refusal(self, value: Any) -> str:
        return f"{_shown(value)} is not one of {', '.join(map(str, self.values))}"

    def describe(self) -> str:
        return "one of " + ", ".join(f"`{v}`" for v in self.values)


@dataclasses.dataclass(frozen=True, slots=True)
class TileCode(Spec):
    """A tile code (``protocol.tiles``) in ``lo``..``hi``; decodes to ``Tile``."""

    lo: int = 0
    hi: int = 41
    what: str = "tile"

    def type(self) -> Any:
        return Tile

    def check(self) -> Check | None:
        if (self.lo, self.hi) == (min(Tile), max(Tile)):
            return None  # every Tile is one
        lo, hi = self.lo, self.hi
        return lambda value: None if lo <= value <= hi else self.refusal(value)

    def refusal(self, value: Any) -> str:
        return f"{int(value)} is not a {self.what} code ({self.lo}..{self.hi})"

    def describe(self) -> str:
        return f"{self.what} code {self.lo}..{self.hi} ({NOTATION[self.lo]}..{NOTATION[self.hi]})"


@dataclasses.dataclass(frozen=True, slots=True)
class FanId(Spec):
    """A fan id of ``protocol/fans.json``."""

    def type(self) -> Any:
        return Literal[tuple(sorted(FAN_BY_ID))]

    def refusal(self, value: Any) -> str:
        return f"{value} is not a fan id"

    def describe(self) -> str:
        return f"fan id {min(FAN_BY_ID)}..{max(FAN_BY_ID)} (protocol/fans.json)"


def _each(item: Spec) -> Check | None:
    """A check of every item of a list, naming the item that fails."""
    check = item.check()
    if check is None:
        return None
    # Tiles (the lists that need a check are of tiles) first by their bounds, in C.
    lo, hi = (item.lo, item.hi) if isinstance(item, TileCode) else (None, None)

    def each(values: tuple[Any, ...]) -> str | None:
        if lo is not None and (not values or (lo <= min(values) and max(values) <= hi)):
            return None
        for i, value in enumerate(values):
            what = check(value)
            if what is not None:
                return f"[{i}]: {what}"
        return None

    return each


@dataclasses.dataclass(frozen=True, slots=True)
class ListOf(Spec):
    item: Spec
    max_len: int
    min_len: int = 0

    def type(self) -> Any:
        items = tuple.__class_getitem__((self.item.type(), ...))
        return Annotated[items, Meta(min_length=self.min_len, max_length=self.max_len)]

    def check(self) -> Check | None:
        return _each(self.item)

    def refusal(self, value: Any) -> str:
        n = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
        return f"expected {n} items, got {len(value)}"

    def describe(self) -> str:
        n = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
        return f"list of {n} × ({self.item.describe()})"


@dataclasses.dataclass(frozen=True, slots=True)
class ListOfLengths(ListOf):
    """A list of one of a few lengths (a wall order: 144 tiles, or 136 on personal walls)."""

    lengths: tuple[int, ...] = ()

    def check(self) -> Check | None:
        items = _each(self.item)
        lengths = self.lengths

        def length(values: tuple[Any, ...]) -> str | None:
            if len(values) not in lengths:
                return self.refusal(values)
            return None if items is None else items(values)

        return length

    def refusal(self, value: Any) -> str:
        return f"expected {' or '.join(map(str, self.lengths))} items, got {len(value)}"

    def describe(self) -> str:
        return f"list of {' or '.join(map(str, self.lengths))} × ({self.item.describe()})"


@dataclasses.dataclass(frozen=True, slots=True)
class Tuple(Spec):
    """A fixed-length list whose positions have their own specs (e.g. ``[fan id, count]``)."""

    items: tuple[Spec, ...]

    def type(self) -> Any:
        return tuple.__class_getitem__(tuple(s.type() for s in self.items))

    def check(self) -> Check | None:
        checks = [(i, c) for i, s in enumerate(self.items) if (c := s.check()) is not None]
        if not checks:
            return None

        def positions(values: tuple[Any, ...]) -> str | None:
            for i, check in checks:
                what = check(values[i])
                if what is not None:
                    return f"[{i}]: {what}"
            return None

        return positions

    def refusal(self, value: Any) -> str:
        return f"expected {len(self.items)} items, got {len(value)}"

    def describe(self) -> str:
        return "[" + ", ".join(s.describe() for s in self.items) + "]"


@dataclasses.dataclass(frozen=True, slots=True)
class Optional(Spec):
    """The field may be absent (or nil); absent is ``None``, and ``None`` is not sent."""

    inner: Spec
    optional: ClassVar[bool] = True

    def type(self) -> Any:
        return self.inner.type() | None

    def check(self) -> Check | None:
        inner = self.inner.check()
        if inner is None:
            return None
        return lambda value: None if value is None else inner(value)

    def describe(self) -> str:
        return self.inner.describe() + ", optional"


@dataclasses.dataclass(frozen=True, slots=True)
class Struct(Spec):
    """A nested record, sent as a map."""

    cls: type[Record]

    def type(self) -> Any:
        return self.cls

    def describe(self) -> str:
        return f"map `{self.cls.__name__}`"


@dataclasses.dataclass(frozen=True, slots=True)
class Tagged(Spec):
    """One of several records told apart by a tag field (an event by its ``kind``)."""

    base: type[Record]

    def type(self) -> Any:
        # The union of the kinds registered so far: a record that holds one is declared
        # after all of them.
        return Union[tuple(self.base._REGISTRY.values())]  # noqa: UP007

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

    def check(self, obj: Record) -> None:
        value = getattr(obj, self.field)
        if value not in self.values:
            return
        for name in self.require:
            if getattr(obj, name) is None:
                _refuse(ErrorCode.MISSING_FIELD, name, f"required when {self.field} is {value!r}")
        for name in self.forbid:
            if getattr(obj, name) is not None:
                _refuse(ErrorCode.EXTRA_FIELD, name, f"not allowed when {self.field} is {value!r}")

    def describe(self) -> str:
        vals = ", ".join(f"`{v}`" for v in self.values)
        parts = []
        if self.require:
            parts.append("requires " + ", ".join(f"`{n}`" for n in self.require))
        if self.forbid:
            parts.append("forbids " + ", ".join(f"`{n}`" for n in self.forbid))
        return f"`{self.field}` in {vals} " + " and ".join(parts)


# -- checking a wire value ------------------------------------------------------------------
# The post-decode checks run only while a wire value is checked: the program builds
# records freely (its hot paths build many), as a dataclass would let it. A context
# variable: a check in one thread or task says nothing about another's records.
_CHECKING: contextvars.ContextVar[bool] = contextvars.ContextVar("checking", default=False)
# A post-decode refusal travels through msgspec (which adds where it happened) as the
# text "<code>|<field>|<what>".
_MARK = "\x00"


def _refuse(code: ErrorCode, name: str, what: str) -> None:
    raise ValueError(f"{_MARK}{code.value}|{name}|{what}")


def _post_init(self: Record) -> None:
    if not _CHECKING.get():
        return
    for name, check in self._CHECKS:
        what = check(getattr(self, name))
        if what is not None:
            while what.startswith("["):  # an item of a list: its index is part of the path
                index, _, what = what.partition(": ")
                name += index
            _refuse(ErrorCode.OUT_OF_RANGE, name, what)
    for rule in self._RULES:
        rule.check(self)


_WIRE_KIND = {
    "int": "an integer",
    "bool": "a boolean",
    "float": "a float",
    "str": "a string",
    "bytes": "binary data",
    "array": "a list",
    "object": "a map",
    "null": "nil",
}
_AT = re.compile(r"(.*?)(?: - at `\$(.*)`)?", re.DOTALL)
_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def _spec_at(spec: Spec, data: Any, where: str) -> tuple[Spec, Any] | None:
    """The spec and the wire value at ``where`` (``.a[0].b``) under ``spec``, if any."""
    for name, index in _PART.findall(where):
        while isinstance(spec, Optional):
            spec = spec.inner
        if isinstance(spec, Tagged) and isinstance(data, dict):
            kind = spec.base._REGISTRY.get(str(data.get(spec.base._TAG_KEY)))
            if kind is None:
                return spec, data  # the tag itself is refused
            spec = Struct(kind)
        if name and isinstance(spec, Struct) and isinstance(data, dict):
            if name not in spec.cls._SCHEMA or name not in data:
                return None
            spec, data = spec.cls._SCHEMA[name], data[name]
        elif index and isinstance(spec, ListOf | Tuple) and isinstance(data, list | tuple):
            i = int(index)
            if i >= len(data):
                return None
            spec = spec.item if isinstance(spec, ListOf) else spec.items[i]
            data = data[i]
        else:
            return None
    while isinstance(spec, Optional):
        spec = spec.inner
    return spec, data


def protocol_error(err: Exception, root: Spec, path: str, data: Any) -> ProtocolError:
    """The protocol's refusal for msgspec's: its code, and the field named by its path
    from ``path`` (``snapshot.game.seats[2].melds[0].tile``)."""
    text, where = _AT.fullmatch(str(err)).groups()  # type: ignore[union-attr]
    where = where or ""
    if text.startswith(_MARK):
        code, name, what = text[1:].split("|", 2)
        return _fail(ErrorCode(code), f"{path}{where}.{name}", what)
    if m := re.fullmatch(r"Object missing required field `(.*)`", text):
        return _fail(ErrorCode.MISSING_FIELD, f"{path}{where}.{m[1]}", "missing")
    if m := re.fullmatch(r"Object contains unknown field `(.*)`", text, re.DOTALL):
        return _fail(ErrorCode.EXTRA_FIELD, f"{path}{where}.{_shown(m[1])}", "unknown field")
    if m := re.fullmatch(r"Expected `([^`]+)`, got `([^`]+)`", text):
        want, got = (" or ".join(_WIRE_KIND.get(k, k) for k in g.split(" | ")) for g in m.groups())
        return _fail(ErrorCode.WRONG_TYPE, f"{path}{where}", f"expected {want}, got {got}")
    found = _spec_at(root, data, where)
    what = text[0].lower() + text[1:]
    if found is not None:
        spec, value = found
        if isinstance(spec, Tagged):
            key = f".{spec.base._TAG_KEY}"
            return _fail(
                ErrorCode.OUT_OF_RANGE,
                f"{path}{where.removesuffix(key)}{key}",
                f"{_shown(value.get(spec.base._TAG_KEY))} is not one of "
                + ", ".join(spec.base._REGISTRY),
            )
        with contextlib.suppress(TypeError, ValueError):  # else msgspec's own words
            what = spec.refusal(value)
    return _fail(ErrorCode.OUT_OF_RANGE, f"{path}{where}", what)


def convert(data: Any, target: Any, root: Spec, path: str) -> Any:
    """``data`` (a decoded wire value) checked and built as ``target``."""
    token = _CHECKING.set(True)
    try:
        return msgspec.convert(data, target)
    except msgspec.ValidationError as err:
        raise protocol_error(err, root, path, data) from None
    finally:
        _CHECKING.reset(token)


# -- records ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class _Declared:
    spec: Spec
    doc: str


_REQUIRED: Any = dataclasses.MISSING


def field(spec: Spec, doc: str = "", *, default: None = _REQUIRED) -> Any:
    """Declare a record field by its wire spec. An optional field says ``default=None``
    (so a type checker knows the field may be left out); only an optional one may."""
    if spec.optional != (default is None):
        raise TypeError(
            f"a field of spec {spec.describe()} needs default=None exactly when optional"
        )
    return _Declared(spec, doc)


class _RecordMeta(msgspec.StructMeta):
    """Turns each ``field(spec)`` of a class body into a struct field of the spec's type."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kw: Any
    ) -> _RecordMeta:
        source = dict(ns, __annotations__=dict(ns.get("__annotations__", {})))
        # Class variables are plain class attributes to msgspec (whose resolving their
        # string annotations could meet a name the class body rebinds, such as ``type``).
        ns["__annotations__"] = annotations = {
            k: v
            for k, v in source["__annotations__"].items()
            if not (isinstance(v, str) and v.startswith("ClassVar"))
        }
        schema: dict[str, Spec] = {}
        docs: dict[str, str] = {}
        for base in reversed(bases):
            schema.update(getattr(base, "_SCHEMA", {}))
            docs.update(getattr(base, "_DOCS", {}))
        for key, value in list(ns.items()):
            if isinstance(value, _Declared):
                schema[key], docs[key] = value.spec, value.doc
                annotations[key] = value.spec.type()
                if value.spec.optional:
                    ns[key] = None
                else:
                    del ns[key]
        ns["_SCHEMA"], ns["_DOCS"], ns["_SOURCE"] = schema, docs, source
        checks = tuple((n, c) for n, s in schema.items() if (c := s.check()) is not None)
        ns["_CHECKS"] = checks
        rules = ns.get("_RULES") or next((b._RULES for b in bases if hasattr(b, "_RULES")), ())
        if checks or rules:
            ns["__post_init__"] = _post_init
        if "_TAG_KEY" in ns and ns["_TAG_KEY"] is not None:
            kw.setdefault("tag_field", ns["_TAG_KEY"])
        kw.setdefault("kw_only", True)
        cls: _RecordMeta = super().__new__(mcls, name, bases, ns, **kw)
        # The dataclass field protocol too, from a stand-in dataclass of the same fields:
        # ``dataclasses.replace`` and ``dataclasses.fields`` work on records as they did.
        stand_in = dataclasses.make_dataclass(
            name, [(n, Any, dataclasses.field(default=None)) for n in schema], kw_only=True
        )
        cls.__dataclass_fields__ = stand_in.__dataclass_fields__  # type: ignore[attr-defined]
        return cls


# The type checker reads every subclass as the keyword-only frozen dataclass that the
# metaclass makes it at run time, with ``field`` declaring its fields.
@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class Record(
    msgspec.Struct,
    metaclass=_RecordMeta,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Base of every wire record: a frozen msgspec struct with a field schema.

    Subclasses declare fields with ``field(spec, doc)``; ``@record`` marks them (and
    ``message``/``event`` decorators built on ``tagged`` give them their tag).
    """

    _SCHEMA: ClassVar[dict[str, Spec]] = {}
    _DOCS: ClassVar[dict[str, str]] = {}
    _SOURCE: ClassVar[dict[str, Any]] = {}
    _CHECKS: ClassVar[tuple[tuple[str, Check], ...]] = ()
    _RULES: ClassVar[tuple[When, ...]] = ()
    _TAG_KEY: ClassVar[str | None] = None  # the map key naming the subclass, if any
    _REGISTRY: ClassVar[dict[str, type[Record]]] = {}
    TAG: ClassVar[str | None] = None

    @classmethod
    def from_wire(cls, data: Any, path: str | None = None) -> Self:
        """Check a decoded wire map and build the record; ``ProtocolError`` otherwise."""
        path = path or cls._path_name()
        if not isinstance(data, dict):
            raise _fail(ErrorCode.WRONG_TYPE, path, f"expected a map, got {_kind(data)}")
        record: Self = convert(data, cls, Struct(cls), path)
        return record

    def to_wire(self, path: str | None = None, *, check: bool = True) -> dict[str, Any]:
        """The wire map of this record, checked field by field.

        ``check=False`` builds the same map without the checks: for messages a trusted
        sender builds on its hot path (the server's events and prompts), whose shapes the
        tests check against the schema."""
        body = self.wire_body(path, check=check)
        wire: dict[str, Any] = msgspec.msgpack.decode(body)
        return wire

    def wire_body(self, path: str | None = None, *, check: bool = True) -> bytes:
        """The msgpack body of this record; checked as ``to_wire`` checks it."""
        path = path or self._path_name()
        if check:
            for name, spec in self._SCHEMA.items():
                if getattr(self, name) is None and not spec.optional:
                    raise _fail(ErrorCode.MISSING_FIELD, f"{path}.{name}", "missing")
        try:
            body = _ENCODER.encode(self)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as err:
            raise _fail(ErrorCode.WRONG_TYPE, path, f"cannot be sent: {err}") from None
        if check:
            token = _CHECKING.set(True)
            try:
                msgspec.msgpack.decode(body, type=type(self))
            except msgspec.ValidationError as err:
                raise protocol_error(
                    err, Struct(type(self)), path, msgspec.msgpack.decode(body)
                ) from None
            finally:
                _CHECKING.reset(token)
        return body

    @classmethod
    def _path_name(cls) -> str:
        return cls.TAG or cls.__name__

    @classmethod
    def fields(cls) -> Iterator[tuple[str, Spec, str]]:
        """(name, spec, doc) of each field, in declaration order (for the reference)."""
        for name, spec in cls._SCHEMA.items():
            yield name, spec, cls._DOCS[name]


_ENCODER = msgspec.msgpack.Encoder()


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


R = TypeVar("R", bound="Record")


def record(cls: type[R]) -> type[R]:
    """Mark ``cls`` a record (its metaclass has compiled its schema already)."""
    return cls


def tagged(tag: str) -> Callable[[type[R]], type[R]]:
    """The record ``cls`` again with ``tag`` as its tag, registered under it in the
    nearest tagged base's registry (msgspec takes a tag only when a class is made)."""

    def wrap(cls: type[R]) -> type[R]:
        if tag in cls._REGISTRY:
            raise ValueError(f"duplicate tag {tag!r}")
        source = dict(cls._SOURCE)
        source["__annotations__"] = dict(source["__annotations__"])
        made: Any = _RecordMeta(cls.__name__, cls.__bases__, source, tag=tag)
        made.TAG = tag
        made._REGISTRY[tag] = made
        return made  # type: ignore[no-any-return]

    return wrap
