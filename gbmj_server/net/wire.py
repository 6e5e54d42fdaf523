"""Frames on the wire: a 4-byte big-endian length, then one msgpack map (SPEC §4).

Interim codec for the server until ``protocol.framing`` lands: it applies the same
limits (64 KiB a frame, checked before buffering; no extension types; string map keys)
and hands the server plain dicts. Swap ``FrameDecoder``/``encode`` for the protocol's
own when it exists; nothing else in ``gbmj_server.net`` touches bytes.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack

MAX_FRAME = 64 * 1024
_HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """A frame or message the server cannot accept; ``code`` goes into the error reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _no_ext(code: int, data: bytes) -> Any:
    raise ProtocolError("bad_frame", f"msgpack extension type {code} is not allowed")


def decode_body(body: bytes) -> dict[str, Any]:
    """One frame body to a message dict with a string ``type``."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_no_ext,
        )
    except ProtocolError:
        raise
    except Exception as exc:  # msgpack raises many types for hostile input
        raise ProtocolError("bad_frame", f"frame is not valid msgpack: {exc}") from None
    if not isinstance(value, dict):
        raise ProtocolError("bad_message", "a frame must hold one map")
    kind = value.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "field 'type' is missing or not a string")
    return value


class FrameDecoder:
    """Feed bytes in pieces of any size; get whole messages (or a ProtocolError)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any] | ProtocolError]:
        """Messages completed by ``data``. A bad body yields its error in place (the
        stream stays in sync); a bad length raises, since the stream is then lost."""
        self._buffer += data
        out: list[dict[str, Any] | ProtocolError] = []
        while len(self._buffer) >= 4:
            (length,) = _HEADER.unpack_from(self._buffer)
            if length > MAX_FRAME:
                raise ProtocolError("frame_too_large", f"frame of {length} bytes > {MAX_FRAME}")
            if len(self._buffer) < 4 + length:
                break
            body = bytes(self._buffer[4 : 4 + length])
            del self._buffer[: 4 + length]
            try:
                out.append(decode_body(body))
            except ProtocolError as exc:
                out.append(exc)
        return out


def encode(message: dict[str, Any]) -> bytes:
    """One message dict as a frame."""
    body = msgpack.packb(message, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ValueError(f"message {message.get('type')!r} encodes to {len(body)} bytes")
    return _HEADER.pack(len(body)) + body
