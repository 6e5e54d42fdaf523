"""Property tests: random valid messages round-trip, random bytes and random splits never
get anything but ``ProtocolError`` out of the decoder, and every valid message fits."""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_strategies import largest_record, messages, records

from protocol.errors import ProtocolError
from protocol.examples import MESSAGE_EXAMPLES
from protocol.framing import MAX_DEPTH, MAX_FRAME, FrameDecoder, decode_body, encode
from protocol.messages import MESSAGE_TYPES, Message

SLOW_OK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _is_bad(body: bytes) -> bool:
    try:
        decode_body(body)
    except ProtocolError:
        return True
    return False


def decode_all(chunks: list[bytes]) -> list[Message]:
    decoder = FrameDecoder()
    out: list[Message] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    assert decoder.buffered == 0
    return out


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@pytest.mark.slow
@pytest.mark.parametrize("type_", sorted(MESSAGE_TYPES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_message_type_round_trips(type_: str, data: st.DataObject) -> None:
    msg = data.draw(records(MESSAGE_TYPES[type_]))
    assert decode_body(encode(msg)[4:]) == msg


@pytest.mark.parametrize("type_", sorted(MESSAGE_TYPES))
def test_the_largest_valid_message_of_each_type_fits_in_a_frame(type_: str) -> None:
    msg = largest_record(MESSAGE_TYPES[type_])
    frame = encode(msg)
    assert len(frame) - 4 <= MAX_FRAME
    assert decode_body(frame[4:]) == msg  # within every decoder limit too
    # The decoder measures the nesting of refused messages only: no valid one is deeper.
    assert _depth(msgpack.unpackb(frame[4:])) <= MAX_DEPTH


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.slow
@SLOW_OK
@given(msgs=st.lists(messages(), min_size=1, max_size=6), cuts=st.lists(st.integers(0, 10**6)))
def test_a_valid_stream_decodes_the_same_however_it_is_split(
    msgs: list[Message], cuts: list[int]
) -> None:
    stream = b"".join(encode(m) for m in msgs)
    assert decode_all(split(stream, cuts)) == msgs


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300), cuts=st.lists(st.integers(0, 400), max_size=5))
def test_random_bytes_give_only_protocol_errors(data: bytes, cuts: list[int]) -> None:
    decoder = FrameDecoder()
    for chunk in split(data, cuts):
        with contextlib.suppress(ProtocolError):
            decoder.feed(chunk)


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=300))
def test_random_frame_bodies_give_only_protocol_errors(body: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_body(body)


# Any msgpack value at all, framed: exercises the message checks past the msgpack layer.
_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
_ANY = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.text(max_size=12) | st.sampled_from(["type", "kind", "seat", "tile"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(
    type_=st.sampled_from(sorted(MESSAGE_TYPES)),
    fields=st.dictionaries(st.text(max_size=12), _ANY, max_size=6),
)
@pytest.mark.slow
def test_random_maps_of_a_known_type_give_only_protocol_errors(type_: str, fields: dict) -> None:
    body = msgpack.packb({**fields, "type": type_}, use_bin_type=True)
    with contextlib.suppress(ProtocolError):
        decode_body(body)


@settings(max_examples=200, deadline=None)
@given(base=st.sampled_from(MESSAGE_EXAMPLES), data=st.data())
def test_mutated_valid_messages_give_a_message_or_a_protocol_error(
    base: Message, data: st.DataObject
) -> None:
    wire = base.to_wire()
    key = data.draw(st.sampled_from(sorted(wire)))
    wire[key] = data.draw(_ANY)
    body = msgpack.packb(wire, use_bin_type=True)
    try:
        msg = decode_body(body)
    except ProtocolError:
        return
    assert decode_body(encode(msg)[4:]) == msg  # whatever is accepted re-encodes


@SLOW_OK
@given(
    items=st.lists(messages() | st.binary(max_size=60).filter(_is_bad), min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 10**6)),
)
@pytest.mark.slow
def test_bad_frames_among_good_ones_spoil_only_themselves(
    items: list[Message | bytes], cuts: list[int]
) -> None:
    """Framed garbage between valid messages: each bad frame is one error, the good ones
    all arrive, whatever the cuts."""
    stream = b"".join(
        len(x).to_bytes(4, "big") + x if isinstance(x, bytes) else encode(x) for x in items
    )
    decoder = FrameDecoder()
    got: list[Message] = []
    for chunk in split(stream, cuts):
        decoder.receive_data(chunk)
        while True:
            try:
                msg = decoder.next_message()
            except ProtocolError:
                continue
            if msg is None:
                break
            got.append(msg)
    assert got == [x for x in items if not isinstance(x, bytes)]
