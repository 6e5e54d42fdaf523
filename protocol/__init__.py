"""The wire vocabulary shared by the server and the client.

Sans-IO: this package turns bytes into messages and messages into bytes and owns the
small tables both sides need (tile codes, fan ids). It imports nothing from the rest of
gbmj and does no I/O.

- ``protocol.tiles``, ``protocol.fans``: tile codes and the fan table;
- ``protocol.errors``: ``ProtocolError`` (the only exception the codec raises) and the
  error codes of ``error`` messages;
- ``protocol.schema``: the field-schema mechanism the messages are declared with;
- ``protocol.messages``: the message catalog (``MESSAGE_TYPES``, ``EVENT_KINDS``);
- ``protocol.framing``: ``FrameDecoder`` and ``encode`` (msgpack frames with limits).

The names below are re-exported lazily, so that the pure layers, which import
``protocol.tiles``, do not load msgpack or the catalog.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ErrorCode": "errors",
    "ProtocolError": "errors",
    "FrameDecoder": "framing",
    "decode_body": "framing",
    "encode": "framing",
    "MAX_FRAME": "framing",
    "Message": "messages",
    "MESSAGE_TYPES": "messages",
    "EVENT_KINDS": "messages",
    "PROTOCOL_VERSION": "messages",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'protocol' has no attribute {name!r}")
    return getattr(importlib.import_module(f"protocol.{module}"), name)
