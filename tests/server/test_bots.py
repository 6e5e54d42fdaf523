"""The table's bots: legal on every decision of real hands, and sensible in their choices."""

from __future__ import annotations

import random
from collections import Counter

from gbmj_server.game.actions import ActionKind
from gbmj_server.game.hand_state import HandState
from gbmj_server.game.wall import Wall
from gbmj_server.net.bots import SimpleBot, _usefulness, make_bot


def test_simple_bots_play_whole_hands_legally() -> None:
    bots = [make_bot(level) for level in ("easy", "normal", "hard", "unknown")]
    assert isinstance(bots[3], SimpleBot) and not isinstance(bots[1], SimpleBot)
    outcomes = []
    for n in range(12):
        state = HandState(Wall.from_seed(b"bot-%d" % n, dealer=n % 4))
        steps = 0
        while not state.ended:
            seat = state.to_act[0]
            legal = state.legal_actions(seat)
            action = bots[seat].choose(state.view(seat), legal)
            assert action in legal
            state.apply(seat, action)
            steps += 1
            assert steps < 1000
        outcomes.append(state.result.outcome.value)
    assert set(outcomes) <= {"win", "exhaustive_draw"}


def test_the_bot_takes_a_win_and_keeps_connected_tiles() -> None:
    c = Counter({0: 1, 1: 1, 27: 1})  # 1m 2m and a lone East
    assert _usefulness(27, c) < _usefulness(0, c) < _usefulness(1, c)
    # In real hands: whenever a win is legal, the bot declares it.
    rng = random.Random(5)
    bot = SimpleBot()
    wins_offered = wins_taken = 0
    for n in range(40):
        state = HandState(Wall.from_seed(b"win-%d" % n))
        while not state.ended:
            seat = state.to_act[0]
            legal = state.legal_actions(seat)
            if any(a.kind is ActionKind.WIN for a in legal):
                wins_offered += 1
                choice = bot.choose(state.view(seat), legal)
                wins_taken += choice.kind is ActionKind.WIN
                state.apply(seat, choice)
            else:
                state.apply(seat, rng.choice(legal))
    assert wins_offered == wins_taken > 0
