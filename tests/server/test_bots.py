"""The table's bots: every level a client may choose plays whole hands legally."""

from __future__ import annotations

import pytest

from gbmj.game.hand_state import HandState
from gbmj.game.wall import Wall
from gbmj_server.net.bots import make_bot
from protocol.vocabulary import BotLevel


def test_table_bots_of_every_level_play_whole_hands_legally() -> None:
    table = [make_bot(level) for level in (*BotLevel, BotLevel.NORMAL)]
    outcomes = []
    for n in range(12):
        state = HandState(Wall.from_seed(b"bot-%d" % n, dealer=n % 4))
        steps = 0
        while not state.ended:
            seat = state.to_act[0]
            legal = state.legal_actions(seat)
            action = table[seat].choose(state.view(seat), legal)
            assert action in legal
            state.apply(seat, action)
            steps += 1
            assert steps < 1000
        outcomes.append(state.result.outcome.value)
    assert set(outcomes) <= {"win", "exhaustive_draw"}
    assert "win" in outcomes  # real bots, not a passing policy


def test_a_level_the_protocol_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")
