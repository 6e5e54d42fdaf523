"""Simulated play: hundreds of hands with every invariant checked after every step.

``check_step`` asserts the invariants (144 tiles accounted for, tiles held per seat,
non-empty legal lists, points summing to zero, no tile leaked in any view or event form)
and every hand replays from its plain form to the same state. Half the hands use the
uniform random policy, half a claim-happy one that makes kongs and wins frequent.
bench/simulate.py runs thousands.
"""

import random
from collections import Counter

from gbmj_server.game.invariants import play_random_hand


def test_random_hands_keep_every_invariant():
    rng = random.Random(2026)
    outcomes: Counter[str] = Counter()
    for i in range(150):
        state = play_random_hand(f"sim-{i}".encode(), rng, escape_rate=0.05)
        outcomes[state.result.outcome.value] += 1
    assert outcomes["exhaustive_draw"] > 0 and outcomes["escape"] > 0


def test_claim_happy_hands_keep_every_invariant():
    rng = random.Random(7)
    outcomes: Counter[str] = Counter()
    kongs = 0
    for i in range(150):
        state = play_random_hand(f"greedy-{i}".encode(), rng, greedy=True)
        outcomes[state.result.outcome.value] += 1
        kongs += sum(m.is_kong for s in range(4) for m in state.melds(s))
    assert outcomes["win"] >= 10 and kongs >= 20
