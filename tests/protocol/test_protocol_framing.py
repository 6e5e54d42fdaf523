"""The frame codec: framing, limits, hostile input, recovery after a bad frame."""

from __future__ import annotations

import struct
import subprocess
import sys

import msgpack
import pytest

from protocol.errors import ErrorCode, ProtocolError
from protocol.examples import EVENT_EXAMPLES, MESSAGE_EXAMPLES
from protocol.framing import (
    MAX_DEPTH,
    MAX_FRAME,
    MAX_LIST,
    MAX_MAP,
    MAX_STRING,
    FrameDecoder,
    decode_body,
    encode,
)
from protocol.messages import MAX_CHAT, MESSAGE_TYPES, Chat, Discard, Event, Hello, Ok, Ping


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def packed(obj: object) -> bytes:
    return frame(msgpack.packb(obj, use_bin_type=True))


def decode_error(data: bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        FrameDecoder().feed(data)
    return info.value


HELLO = Hello(version=1, client="test/1")


# -- framing ----------------------------------------------------------------------------
def test_a_frame_is_a_big_endian_length_then_one_msgpack_map() -> None:
    data = encode(HELLO)
    size = int.from_bytes(data[:4], "big")
    assert size == len(data) - 4
    assert msgpack.unpackb(data[4:]) == {"type": "hello", "version": 1, "client": "test/1"}


@pytest.mark.parametrize("msg", MESSAGE_EXAMPLES, ids=lambda m: m.TAG)
def test_every_example_message_round_trips(msg: object) -> None:
    assert FrameDecoder().feed(encode(msg)) == [msg]


@pytest.mark.parametrize("body", EVENT_EXAMPLES, ids=lambda e: f"{e.TAG}")
def test_every_example_event_round_trips(body: object) -> None:
    msg = Event(table_id=3, seq=12, event=body)
    assert FrameDecoder().feed(encode(msg)) == [msg]


def test_the_examples_cover_every_message_type() -> None:
    assert {m.TAG for m in MESSAGE_EXAMPLES} == set(MESSAGE_TYPES)


def test_messages_arrive_whole_however_the_bytes_are_cut() -> None:
    stream = b"".join(encode(m) for m in MESSAGE_EXAMPLES)
    decoder = FrameDecoder()
    got = []
    for i in range(len(stream)):  # one byte at a time
        got += decoder.feed(stream[i : i + 1])
    assert got == list(MESSAGE_EXAMPLES)
    assert decoder.buffered == 0


def test_a_partial_frame_waits_for_the_rest() -> None:
    data = encode(HELLO)
    decoder = FrameDecoder()
    assert decoder.feed(data[:2]) == []
    assert decoder.feed(data[2:-1]) == []
    assert decoder.buffered == len(data) - 1
    assert decoder.feed(data[-1:]) == [HELLO]


def test_decoded_values_are_typed() -> None:
    (msg,) = FrameDecoder().feed(encode(Event(table_id=1, seq=1, event=Discard(seat=2, tile=5))))
    assert isinstance(msg, Event) and isinstance(msg.event, Discard)
    assert repr(msg.event.tile) == "<Tile.M6: 5>"


# -- limits -----------------------------------------------------------------------------
def test_an_over_long_length_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError) as info:
        decoder.feed(struct.pack(">I", MAX_FRAME + 1))  # the header alone
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    assert str(MAX_FRAME + 1) in str(info.value)


def test_the_body_of_an_over_long_frame_is_skipped_not_kept() -> None:
    decoder = FrameDecoder()
    size = MAX_FRAME * 4
    with pytest.raises(ProtocolError):
        decoder.feed(struct.pack(">I", size) + b"x" * 1000)
    chunk = b"y" * 4096
    sent = 1000
    while sent + len(chunk) <= size:
        assert decoder.feed(chunk) == []
        assert decoder.buffered == 0  # nothing of the bad body is held
        sent += len(chunk)
    # the rest of the bad body, then a good frame: the stream is in step again
    assert decoder.feed(b"z" * (size - sent) + encode(HELLO)) == [HELLO]


def test_a_frame_of_exactly_the_limit_is_read() -> None:
    # a chat line padded with a string field up to exactly MAX_FRAME bytes is refused by
    # the string limit, not by the frame limit: build the body by hand
    body = msgpack.packb({"type": "ping", "id": 1})
    padding = MAX_FRAME - len(body)
    assert padding > 0
    decoder = FrameDecoder()
    size_ok = struct.pack(">I", MAX_FRAME)
    with pytest.raises(ProtocolError) as info:
        decoder.feed(size_ok + body + b"\xc0" * padding)  # valid msgpack, then trailing nils
    assert info.value.code is ErrorCode.BAD_MSGPACK  # trailing bytes, not frame_too_large


def test_string_longer_than_the_limit() -> None:
    err = decode_error(
        packed({"type": "chat_send", "channel": "lobby", "text": "a" * (MAX_STRING + 1)})
    )
    assert err.code is ErrorCode.LIMIT_EXCEEDED


def test_list_longer_than_the_limit() -> None:
    err = decode_error(packed({"type": "ping", "x": [0] * (MAX_LIST + 1)}))
    assert err.code is ErrorCode.LIMIT_EXCEEDED


def test_map_larger_than_the_limit() -> None:
    err = decode_error(packed({"type": "ping", **{f"k{i}": 0 for i in range(MAX_MAP)}}))
    assert err.code is ErrorCode.LIMIT_EXCEEDED


def test_nesting_deeper_than_the_limit() -> None:
    deep: object = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    err = decode_error(packed({"type": "ping", "x": deep}))
    assert err.code is ErrorCode.LIMIT_EXCEEDED
    assert "nesting" in str(err)


def test_nesting_at_the_limit_is_left_to_the_schema() -> None:
    deep: object = 0
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    err = decode_error(packed({"type": "ping", "x": deep}))
    assert err.code is ErrorCode.EXTRA_FIELD  # got past the limits to the message check


# -- hostile inputs: headers that claim more than the frame holds, deep nesting, ext types -----
HOSTILE = {
    "huge array header": frame(b"\xdd\xff\xff\xff\xff"),  # array32 claiming 4 billion items
    "huge map header": frame(b"\xdf\xff\xff\xff\xff"),
    "huge string header": frame(b"\xdb\xff\xff\xff\xff"),
    "deep nesting": frame(b"\x91" * 60_000 + b"\xc0"),
    "very deep nesting": frame(b"\x81\xa1a" * 20_000 + b"\xc0"),
    "integer map key": frame(b"\x81\x01\xa1x"),
    "nil map key": frame(b"\x81\xc0\xa1x"),
    "invalid utf-8": frame(b"\x81\xa4type\xa2\xff\xfe"),
    "invalid utf-8 key": frame(b"\x81\xa2\xff\xfe\xa1x"),
    "reserved byte 0xc1": frame(b"\xc1"),
    "reserved byte inside a map": frame(b"\x81\xa4type\xc1"),
    "empty body": frame(b""),
    "truncated body": frame(b"\x82\xa4type\xa4ping"),
    "trailing bytes": frame(msgpack.packb({"type": "ping"}) + b"\x00"),
    "two values in one frame": frame(msgpack.packb({"type": "ping"}) * 2),
    "extension type": frame(b"\xd4\x05\x00"),
    "timestamp extension": frame(b"\xd6\xff\x00\x00\x00\x01"),
    "extension inside a map": frame(b"\x81\xa4type\xd4\x01\x00"),
    "duplicate key": frame(b"\x82\xa4type\xa4ping\xa4type\xa4pong"),
    "not a map": packed([1, 2, 3]),
    "a bare string": packed("hello"),
    "map without type": packed({"version": 1}),
    "type not a string": packed({"type": 5}),
    "binary type": packed({"type": b"ping"}),
    "float where int": packed({"type": "hello", "version": 1.0, "client": "x"}),
    "bool where int": packed({"type": "hello", "version": True, "client": "x"}),
    "huge integer": packed({"type": "hello", "version": 2**64 - 1, "client": "x"}),
    "negative integer": packed({"type": "hello", "version": -(2**63), "client": "x"}),
    "length over the limit": struct.pack(">I", 0xFFFFFFFF),
}


@pytest.mark.parametrize("data", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_gets_a_protocol_error_with_a_reason(data: bytes) -> None:
    err = decode_error(data)
    assert isinstance(err.code, ErrorCode)
    assert str(err)  # says what was wrong


@pytest.mark.parametrize("data", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_split_into_one_byte_pieces(data: bytes) -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError):
        for i in range(len(data)):
            decoder.feed(data[i : i + 1])


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("huge array header", ErrorCode.LIMIT_EXCEEDED),
        ("huge map header", ErrorCode.LIMIT_EXCEEDED),
        ("huge string header", ErrorCode.BAD_MSGPACK),  # claims 4 GiB, holds 0 bytes
        ("integer map key", ErrorCode.BAD_MSGPACK),
        ("invalid utf-8", ErrorCode.BAD_MSGPACK),
        ("reserved byte 0xc1", ErrorCode.BAD_MSGPACK),
        ("trailing bytes", ErrorCode.BAD_MSGPACK),
        ("extension type", ErrorCode.BAD_MSGPACK),
        ("duplicate key", ErrorCode.BAD_MSGPACK),
        ("deep nesting", ErrorCode.LIMIT_EXCEEDED),
        ("timestamp extension", ErrorCode.BAD_MSGPACK),
        ("not a map", ErrorCode.NOT_A_MESSAGE),
        ("map without type", ErrorCode.NOT_A_MESSAGE),
        ("type not a string", ErrorCode.WRONG_TYPE),
        ("float where int", ErrorCode.WRONG_TYPE),
        ("bool where int", ErrorCode.WRONG_TYPE),
        ("huge integer", ErrorCode.OUT_OF_RANGE),
        ("length over the limit", ErrorCode.FRAME_TOO_LARGE),
    ],
)
def test_hostile_input_error_codes(name: str, code: ErrorCode) -> None:
    assert decode_error(HOSTILE[name]).code is code


def test_each_bad_frame_is_reported_and_the_next_ones_still_decode() -> None:
    bad = list(HOSTILE.items())
    stream = b"".join(encode(Ping(id=i)) + data for i, (_, data) in enumerate(bad[:-1]))
    stream += encode(Ok(id=999))
    decoder = FrameDecoder()
    decoder.receive_data(stream)
    got, errors = [], []
    while True:
        try:
            msg = decoder.next_message()
        except ProtocolError as err:
            errors.append(err)
            continue
        if msg is None:
            break
        got.append(msg)
    assert got == [Ping(id=i) for i in range(len(bad) - 1)] + [Ok(id=999)]
    assert len(errors) == len(bad) - 1


def test_decode_body_is_one_message_from_one_body() -> None:
    assert decode_body(encode(HELLO)[4:]) == HELLO


# -- encoding checks too ----------------------------------------------------------------
def test_encoding_refuses_an_invalid_message() -> None:
    with pytest.raises(ProtocolError) as info:
        encode(Event(table_id=1, seq=1, event=Discard(seat=7, tile=3)))
    assert info.value.field == "event.event.seat"


def test_encoding_refuses_what_is_not_a_message() -> None:
    with pytest.raises(ProtocolError):
        encode({"type": "ping"})


def test_text_limits_count_characters_and_the_widest_text_fits() -> None:
    assert len(encode(Chat(channel="lobby", text="😀" * MAX_CHAT))) < MAX_FRAME
    with pytest.raises(ProtocolError) as info:
        encode(Chat(channel="lobby", text="x" * (MAX_CHAT + 1)))
    assert info.value.code is ErrorCode.OUT_OF_RANGE
    assert info.value.field == "chat.text"


def test_the_tile_tables_load_without_msgpack_or_the_catalog() -> None:
    """The pure layers import ``protocol.tiles``; the package re-exports the codec lazily."""
    code = (
        "import sys, protocol.tiles, protocol.fans; "
        "assert 'msgpack' not in sys.modules and 'protocol.messages' not in sys.modules; "
        "from protocol import encode, MESSAGE_TYPES; assert 'msgpack' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_refused_request_names_its_id_so_the_error_can_echo_it() -> None:
    bad = msgpack.packb({"type": "sit", "id": 77, "table_id": 1, "seat": 9})
    decoder = FrameDecoder()
    decoder.receive_data(len(bad).to_bytes(4, "big") + bad)
    with pytest.raises(ProtocolError) as caught:
        decoder.next_message()
    assert caught.value.code == ErrorCode.OUT_OF_RANGE
    assert caught.value.request_id == 77


def test_a_refused_map_without_a_valid_id_names_none() -> None:
    for body in ({"type": "sit", "id": "x"}, {"type": "nope"}, [1, 2]):
        raw = msgpack.packb(body)
        decoder = FrameDecoder()
        decoder.receive_data(len(raw).to_bytes(4, "big") + raw)
        with pytest.raises(ProtocolError) as caught:
            decoder.next_message()
        assert caught.value.request_id is None


def test_unchecked_encoding_gives_the_same_bytes_as_the_checked_one() -> None:
    for message in MESSAGE_EXAMPLES:
        assert encode(message, check=False) == encode(message), message.TAG
