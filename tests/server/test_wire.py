"""The server's frames: the protocol's encoding, checked against the catalog."""

from __future__ import annotations

import pytest

from gbmj_server.net.wire import ProtocolError, encode
from protocol.framing import encode as protocol_encode
from protocol.messages import Message


def test_server_frames_are_the_protocols_own_encoding() -> None:
    """``wire.encode`` validates once and packs the map: the bytes match the codec's."""
    message = {
        "type": "event",
        "table_id": 3,
        "seq": 9,
        "event": {"kind": "draw", "seat": 2, "tile": None, "replacement": True},
    }
    assert encode(message) == protocol_encode(
        Message.from_wire({**message, "event": {"kind": "draw", "seat": 2, "replacement": True}})
    )
    with pytest.raises(ProtocolError):
        encode({"type": "event", "table_id": 3, "seq": 9, "event": {"kind": "draw", "seat": 7}})
