"""The table's event frames: the engine's events packed as they are, the same bytes as
the protocol's own encoding of the message they stand for."""

from __future__ import annotations

import pytest

from gbmj.game.events import Draw, Win
from gbmj_server.tables import wire
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode
from protocol.tiles import Tile


def test_an_event_frame_is_the_protocols_encoding_of_its_message() -> None:
    for event in (
        Draw(2, None, True),  # another seat's draw: no tile at all
        Draw(2, Tile.M5, False),
        Win(1, None, Tile.C, ((39, 1), (79, 1)), 9, (-17, 51, -17, -17)),  # self-drawn
    ):
        frame = wire.event_frame(7, 42, event)
        decoder = FrameDecoder()
        decoder.receive_data(frame)
        message = decoder.next_message()
        assert message is not None and encode(message) == frame


def test_a_bad_event_is_refused_when_outgoing_frames_are_checked(monkeypatch) -> None:
    monkeypatch.setattr(wire, "CHECK_OUTGOING", True)
    with pytest.raises(ProtocolError):
        wire.event_frame(7, 42, Draw(9, None, True))  # no seat 9
