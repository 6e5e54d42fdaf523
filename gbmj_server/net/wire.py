"""The server's side of ``protocol``: frames to plain message maps and back.

The server's handlers work on the wire form of a message (a dict with ``type`` and its
fields), already validated by the protocol's catalog on the way in; on the way out every
dict is checked against the catalog again (``Message.from_wire``) before ``encode``, so a
server bug never puts a bad frame on the wire.
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import HEADER_SIZE, MAX_FRAME, FrameDecoder
from protocol.messages import Message

__all__ = ["ErrorCode", "ProtocolError", "WireDecoder", "encode"]


def _strip(value: Any) -> Any:
    """The same data without ``None`` entries in maps (absent optional fields)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_strip(v) for v in value]
    return value


def encode(message: dict[str, Any]) -> bytes:
    """One checked frame for a message map (``ProtocolError`` if it breaks the catalog).

    The map is validated by the catalog once (``Message.from_wire``) and then packed as it
    is: the same bytes as ``protocol.framing.encode`` of the message, half the work."""
    clean = _strip(message)
    Message.from_wire(clean)
    body = msgpack.packb(clean, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ProtocolError(
            ErrorCode.FRAME_TOO_LARGE, f"{message.get('type')} message of {len(body)} bytes"
        )
    return len(body).to_bytes(HEADER_SIZE, "big") + body


class WireDecoder:
    """Bytes in, validated message maps out; a bad frame yields its ``ProtocolError`` in
    place and the stream stays in step (the protocol's decoder consumes bad frames)."""

    def __init__(self) -> None:
        self._decoder = FrameDecoder()

    def feed(self, data: bytes) -> list[dict[str, Any] | ProtocolError]:
        self._decoder.receive_data(data)
        out: list[dict[str, Any] | ProtocolError] = []
        while True:
            try:
                message = self._decoder.next_message()
            except ProtocolError as exc:
                out.append(exc)
                continue
            if message is None:
                return out
            out.append(message.to_wire())
