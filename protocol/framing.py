"""The sans-IO codec: bytes in, messages out; messages in, bytes out (docs/protocol.md).

A frame is a 4-byte big-endian body length, then the body: one msgpack map. The decoder
checks the length against the frame limit *before* buffering the body, decodes each body
on its own with ``msgpack.unpackb`` (never the streaming ``Unpacker``, which has had
memory-safety bugs on hostile input), enforces the string, list, map and nesting limits,
and validates the message against the catalog. Nothing but ``ProtocolError`` escapes.

Every error leaves the stream in step: a bad body has been consumed whole, and the body
of an over-long frame is skipped as it arrives without being kept, so the server can
answer ``error`` and read on (and close after repeated abuse; that policy is the
server's).

Typical use on a connection::

    decoder = FrameDecoder()
    decoder.receive_data(chunk)
    while True:
        try:
            msg = decoder.next_message()
        except ProtocolError as err:
            send(encode(Error(code=err.code, message=str(err))))
            continue
        if msg is None:
            break  # need more bytes
        handle(msg)

``feed(chunk)`` does the same in one call for peers that treat any error as fatal.
"""

from __future__ import annotations

from typing import Any

import msgpack

from .errors import ErrorCode, ProtocolError
from .messages import REQUEST_ID_MAX, Message

HEADER_SIZE = 4
MAX_FRAME = 64 * 1024  # body bytes
MAX_STRING = 2048  # bytes of one string (chat lines are at most 500 characters)
MAX_LIST = 1024  # items in one list (the wall is 144; table lists are at most 500)
MAX_MAP = 32  # entries in one map (the widest message, hand_result, has 17 keys)
MAX_DEPTH = 8  # maps and lists nested in one another (a snapshot's melds are at 6)

__all__ = [
    "HEADER_SIZE",
    "MAX_DEPTH",
    "MAX_FRAME",
    "MAX_LIST",
    "MAX_MAP",
    "MAX_STRING",
    "FrameDecoder",
    "decode_body",
    "encode",
    "encode_map",
]


def _no_ext(code: int, data: bytes) -> Any:
    raise ProtocolError(ErrorCode.BAD_MSGPACK, f"msgpack extension type {code} is not allowed")


def _pairs_to_map(pairs: Any) -> dict[Any, Any]:
    # A map that names a key twice is ambiguous (which value wins?): refuse it.
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ProtocolError(ErrorCode.BAD_MSGPACK, "a map repeats a key")
    return out


def _check_depth(obj: Any) -> None:
    """Refuse containers nested deeper than ``MAX_DEPTH`` (iteratively: no recursion)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, tuple):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise ProtocolError(ErrorCode.LIMIT_EXCEEDED, f"nesting deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def _parse_error(err: Exception) -> ProtocolError:
    """A readable ``ProtocolError`` for whatever msgpack raised."""
    text = str(err)
    if isinstance(err, msgpack.ExtraData):
        return ProtocolError(ErrorCode.BAD_MSGPACK, "trailing bytes after the message")
    if isinstance(err, msgpack.StackError):
        return ProtocolError(ErrorCode.LIMIT_EXCEEDED, f"nesting deeper than {MAX_DEPTH} levels")
    if isinstance(err, msgpack.FormatError):
        return ProtocolError(ErrorCode.BAD_MSGPACK, "a reserved msgpack format byte (0xc1)")
    if isinstance(err, UnicodeDecodeError):
        return ProtocolError(ErrorCode.BAD_MSGPACK, "a string is not valid UTF-8")
    if "max_ext_len" in text:
        return ProtocolError(ErrorCode.BAD_MSGPACK, "msgpack extension types are not allowed")
    if "exceeds max_" in text:
        return ProtocolError(ErrorCode.LIMIT_EXCEEDED, f"size limit: {text}")
    if "map key" in text:
        return ProtocolError(ErrorCode.BAD_MSGPACK, "a map key is not a string")
    if "incomplete input" in text:
        return ProtocolError(ErrorCode.BAD_MSGPACK, "the frame ends inside a msgpack value")
    return ProtocolError(
        ErrorCode.BAD_MSGPACK, f"not valid msgpack ({type(err).__name__}: {text[:80]})"
    )


def decode_body(body: bytes) -> Message:
    """The message in one frame body; ``ProtocolError`` for anything else."""
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=False,
            ext_hook=_no_ext,
            object_pairs_hook=_pairs_to_map,
            max_str_len=MAX_STRING,
            max_bin_len=MAX_STRING,
            max_array_len=MAX_LIST,
            max_map_len=MAX_MAP,
            max_ext_len=0,
        )
    except ProtocolError:
        raise
    except Exception as err:  # hostile bytes: any failure of the parser is a bad frame
        raise _parse_error(err) from None
    try:
        return Message.from_wire(obj)
    except ProtocolError as err:
        # A message the catalog accepts nests no deeper than the limit (msgspec checks
        # in C and stops at the first value of the wrong shape), so the nesting is
        # measured only for a refused one: it says why when it is the reason.
        _check_depth(obj)
        err.request_id = _request_id(obj)
        raise


def _request_id(obj: Any) -> int | None:
    """The ``id`` of a refused map, if it has a valid one (the error reply echoes it)."""
    if isinstance(obj, dict):
        value = obj.get("id")
        if type(value) is int and 0 <= value <= REQUEST_ID_MAX:
            return value
    return None


def encode(message: Message, *, check: bool = True) -> bytes:
    """One frame for ``message``, checked against the catalog and the frame limit.

    Raises ``ProtocolError`` for a message that is not valid: a bug on the sending side
    never reaches the wire. ``check=False`` skips the catalog's checks (not the frame
    limit): for a sender's hot path whose messages the tests check.
    """
    if not isinstance(message, Message) or message.TAG is None:
        raise ProtocolError(
            ErrorCode.WRONG_TYPE, f"not a protocol message: {type(message).__name__}"
        )
    return _frame(message.wire_body(check=check), message.TAG)


def encode_map(wire: dict[str, Any], what: str = "message") -> bytes:
    """One frame for a wire map as it is (built by a trusted sender; no catalog check)."""
    body: bytes = msgpack.packb(wire, use_bin_type=True)
    return _frame(body, what)


def _frame(body: bytes, what: str | None) -> bytes:
    if len(body) > MAX_FRAME:
        raise ProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"{what} message of {len(body)} bytes is over the limit of {MAX_FRAME}",
        )
    return len(body).to_bytes(HEADER_SIZE, "big") + body


class FrameDecoder:
    """Turns a byte stream, fed in pieces of any size, into messages.

    Holds at most one frame's worth of bytes beyond what the caller feeds at once.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._skip = 0  # body bytes of an over-long frame still to throw away

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes from the peer (any amount, possibly none)."""
        data = memoryview(data)
        if self._skip:
            n = min(self._skip, len(data))
            self._skip -= n
            data = data[n:]
        self._buffer += data

    def next_message(self) -> Message | None:
        """The next whole message, ``None`` if more bytes are needed.

        Raises ``ProtocolError`` for a bad frame, which is consumed: call again for the
        frames after it.
        """
        buf = self._buffer
        if len(buf) < HEADER_SIZE:
            return None
        size = int.from_bytes(buf[:HEADER_SIZE], "big")
        if size > MAX_FRAME:
            del buf[:HEADER_SIZE]
            dropped = min(size, len(buf))
            del buf[:dropped]
            self._skip = size - dropped
            raise ProtocolError(
                ErrorCode.FRAME_TOO_LARGE,
                f"frame of {size} bytes is over the limit of {MAX_FRAME}",
            )
        end = HEADER_SIZE + size
        if len(buf) < end:
            return None
        body = bytes(buf[HEADER_SIZE:end])
        del buf[:end]
        return decode_body(body)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Message]:
        """Add bytes and return every whole message they complete.

        Raises ``ProtocolError`` at the first bad frame (the messages before it in this
        call are lost to the caller, so use ``next_message`` to recover from errors); the
        frames after it stay buffered for the next call.
        """
        self.receive_data(data)
        out: list[Message] = []
        while (msg := self.next_message()) is not None:
            out.append(msg)
        return out

    @property
    def buffered(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buffer)

    @property
    def in_frame(self) -> bool:
        """A frame has begun and not ended (held, or an over-long one being skipped)."""
        return bool(self._buffer or self._skip)
