"""Random legal play: hundreds of hands with every invariant checked after every step.

The policy chooses uniformly among the legal actions (a win nine times in ten), times a
seat out one step in ten and sometimes escapes; ``check_step`` asserts the invariants
(144 tiles, tiles held, legal lists, points, no leaked tile in any view or event form)
and each hand replays from its plain form to the same state. bench/simulate.py runs
thousands.
"""

import random

from gbmj_server.game.invariants import play_random_hand


def test_random_hands_keep_every_invariant():
    rng = random.Random(2026)
    outcomes = {"win": 0, "exhaustive_draw": 0, "escape": 0}
    for i in range(300):
        state = play_random_hand(f"sim-{i}".encode(), rng, escape_rate=0.05)
        outcomes[state.result.outcome] += 1
    assert sum(outcomes.values()) == 300
    assert outcomes["exhaustive_draw"] > 0 and outcomes["escape"] > 0
