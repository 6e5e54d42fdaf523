"""The table's frames: the engine's events packed as they are, the same bytes as the
protocol's own encoding of the message they stand for; the engine's views as the
protocol's game views."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from gbmj.game.events import SPECTATOR
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from gbmj.game.wall import Wall
from gbmj_server.tables import wire
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode
from protocol.messages import Draw, GameView, Win
from protocol.tiles import Tile


def test_an_event_frame_is_the_protocols_encoding_of_its_message() -> None:
    for event in (
        Draw(seat=2, tile=None, replacement=True),  # another seat's draw: no tile at all
        Draw(seat=2, tile=Tile.M5, replacement=False),
        Win(  # self-drawn
            seat=1, win_tile=Tile.C, fans=((39, 1), (79, 1)), total=9, points=(-17, 51, -17, -17)
        ),
    ):
        frame = wire.event_frame(7, 42, event)
        decoder = FrameDecoder()
        decoder.receive_data(frame)
        message = decoder.next_message()
        assert message is not None and encode(message) == frame


def test_a_bad_event_is_refused_when_outgoing_frames_are_checked(monkeypatch) -> None:
    monkeypatch.setattr(wire, "CHECK_OUTGOING", True)
    with pytest.raises(ProtocolError):
        wire.event_frame(7, 42, Draw(seat=9, tile=None, replacement=True))  # no seat 9


def test_a_game_view_is_the_engines_record_with_the_time_left_on_its_timer() -> None:
    state = HandState(Wall.from_seed(b"clock", dealer=1))
    for viewer in (1, SPECTATOR):
        record = make_view(state, viewer).game
        assert isinstance(record, GameView) and record.ms_left is None
        timed = wire.game_view(state, viewer, 4200)
        assert timed.ms_left == 4200 and replace(timed, ms_left=None) == record
        assert wire.game_view(state, viewer, None) == record
    state.escape(2)  # the hand is over: no timer, so no time left on one
    assert state.timer is None and wire.game_view(state, 0, 4200).ms_left is None


def test_every_view_of_a_hand_is_a_game_view_and_every_choice_a_prompt() -> None:
    """Each seat's and a spectator's view at every step of seeded hands passes the
    protocol's checks as a ``game_view``, and each seat's legal actions as a prompt."""
    rnd = random.Random(5)
    for seed in range(6):
        state = HandState(Wall.from_seed(seed.to_bytes(8, "big"), dealer=seed % 4))
        while not state.ended:
            for viewer in (0, 1, 2, 3, SPECTATOR):
                wire.game_view(state, viewer, 5000).to_wire()
            seat = state.to_act[0]
            actions = state.legal_actions(seat)
            frame = wire.prompt_frame(1, 1, actions, state.timer or "turn", 5000)
            decoder = FrameDecoder()
            decoder.receive_data(frame)
            prompt = decoder.next_message()
            assert prompt is not None and encode(prompt) == frame
            eager = [a for a in actions if a.kind.value != "pass"]
            state.apply(seat, rnd.choice(eager or actions))
