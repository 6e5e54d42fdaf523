"""The host's settings file read by msgspec: a struct declares the keys one part of the
server reads, each with its type, its bounds and, as its description, the words a
refusal uses (``ssh_port must be an integer 0-65535``). Keys of the other parts are left
to them; the file's loader (``gbmj_server.config``) refuses the keys nobody reads."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, TypeVar

import msgspec
import msgspec.inspect as mi
from msgspec import Meta

S = TypeVar("S", bound=msgspec.Struct)

# Value types several parts read.
Port = Annotated[int, Meta(ge=0, le=65535, description="an integer 0-65535")]
Sessions = Annotated[int, Meta(ge=1, le=10_000, description="an integer 1-10000")]
ClientMemory = Annotated[int, Meta(ge=64, le=65536, description="an integer 64-65536")]
IdleSeconds = Annotated[float, Meta(ge=1, description="a number of seconds, at least 1")]
Text = Annotated[str, Meta(description="a string")]
Flag = Annotated[bool, Meta(description="true or false")]


@cache
def _words(cls: type[msgspec.Struct]) -> dict[str, str]:
    """Each key's description: what its value must be."""
    words: dict[str, str] = {}
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    for f in info.fields:
        kinds = f.type.types if isinstance(f.type, mi.UnionType) else (f.type,)
        for kind in kinds:
            if isinstance(kind, mi.Metadata) and kind.extra_json_schema:
                words[f.name] = str(kind.extra_json_schema.get("description", ""))
    return words


def refusal(err: msgspec.ValidationError, cls: type[msgspec.Struct], within: str = "") -> str:
    """The reason for msgspec's refusal in the host's words: the key, what it must be."""
    text, _, where = str(err).partition(" - at `$.")
    key = where.rstrip("`").split("[")[0].split(".")[0]
    if not key:  # a key the struct does not know (``forbid_unknown_fields``)
        name = text.removeprefix("Object contains unknown field `").removesuffix("`")
        return f"{within}unknown key {name!r} (known: {', '.join(cls.__struct_fields__)})"
    words = _words(cls).get(key)
    return f"{within}{key} must be {words}" if words else f"{within}{key}: {text}"


def read_settings(data: Mapping[str, Any], cls: type[S]) -> S:
    """The keys of ``cls`` in ``data``, checked; ``ValueError`` naming the first bad key
    and what it must be."""
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as err:
        raise ValueError(refusal(err, cls)) from None


def given(settings: msgspec.Struct, prefix: str = "") -> dict[str, Any]:
    """The keys the file gave (absent ones are None), by the name of the setting they
    change: the key without ``prefix``."""
    return {
        name.removeprefix(prefix): value
        for name in settings.__struct_fields__
        if (value := getattr(settings, name)) is not None
    }


def keys(cls: type[msgspec.Struct]) -> frozenset[str]:
    """The keys ``cls`` reads."""
    return frozenset(cls.__struct_fields__)
