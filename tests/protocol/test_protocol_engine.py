"""The game engine's events and views fit the protocol's catalog as they are.

Plays seeded hands with the engine (choosing claims and kongs when offered, to see every
event kind) and decodes every event, as each viewer gets it, and every view through the
protocol's schemas. A field renamed on either side fails here.
"""

from __future__ import annotations

import random

import pytest

from gbmj.bots import make_bot
from gbmj.game import events, hand_state, wall
from gbmj.game.views import make_view
from protocol.messages import EVENT_KINDS, EventBody, GameView, Prompt
from protocol.vocabulary import BotLevel, EventKind

VIEWERS = (0, 1, 2, 3, events.SPECTATOR)
# Keys of the engine's HandView that travel elsewhere: legal actions in the prompt, the
# result, wall order and salt in hand_result; ``viewer`` is implied by the connection.
NOT_IN_GAME_VIEW = ("viewer", "legal_actions", "result", "wall_order", "salt")
EAGER = ("win", "pung", "chow", "exposed_kong", "concealed_kong", "added_kong")


def play(seed: int) -> object:
    rnd = random.Random(seed)
    state = hand_state.HandState(wall.Wall.from_seed(seed.to_bytes(8, "big"), dealer=seed % 4))
    views = []
    for _ in range(1000):
        if state.ended:
            break
        seat = state.to_act[0]
        actions = state.legal_actions(seat)
        views.append(make_view(state, seat))
        eager = [a for a in actions if a.kind.value in EAGER]
        state.apply(seat, rnd.choice(eager or actions))
    assert state.ended
    views.append(make_view(state, events.SPECTATOR))
    return state, views


@pytest.mark.slow
def test_every_event_as_every_viewer_gets_it_decodes() -> None:
    kinds = set()
    for seed in range(40):
        state, _ = play(seed)
        for event in state.events:
            for viewer in VIEWERS:
                body = EventBody.from_wire(event.for_viewer(viewer).to_dict())
                kinds.add(body.TAG)
                assert body.to_wire() is not None  # and encodes back
    # the plays reach every kind the engine emits in normal play
    assert kinds >= set(EVENT_KINDS) - {"escape", "exhaustive_draw", "win", "concealed_kong"}


def test_views_decode_as_game_views_and_legal_actions_as_prompt_choices() -> None:
    for seed in range(10):
        _, views = play(seed)
        for view in views:
            data = view.to_dict()
            for key in NOT_IN_GAME_VIEW:
                data.pop(key)
            GameView.from_wire(data)
            choices = view.legal_actions  # the protocol's ActionChoice already
            if choices:
                Prompt(table_id=1, seq=1, actions=choices, timer="turn").to_wire()


def test_every_event_kind_of_the_vocabulary_is_a_protocol_event() -> None:
    assert set(EVENT_KINDS) == set(EventKind)


def test_every_bot_level_a_client_may_ask_for_has_a_bot() -> None:
    for level in BotLevel:
        assert make_bot(level, seed=1).level == level
