"""Simulated play: hundreds of hands with every invariant checked after every step.

``check_step`` asserts the invariants (144 tiles accounted for, tiles held per seat,
non-empty legal lists, points summing to zero, no tile leaked in any view or event form)
and every hand replays from its plain form to the same state. Half the hands use the
uniform random policy, half a claim-happy one that makes kongs and wins frequent.
bench/simulate.py runs thousands.
"""

import random
from collections import Counter

import pytest

from gbmj.game.invariants import play_random_hand


@pytest.mark.slow
def test_random_hands_keep_every_invariant():
    rng = random.Random(2026)
    outcomes: Counter[str] = Counter()
    for i in range(150):
        state = play_random_hand(f"sim-{i}".encode(), rng, escape_rate=0.05)
        outcomes[state.result.outcome.value] += 1
    assert outcomes["exhaustive_draw"] > 0 and outcomes["escape"] > 0


@pytest.mark.slow
def test_claim_happy_hands_keep_every_invariant():
    rng = random.Random(7)
    outcomes: Counter[str] = Counter()
    kongs = 0
    for i in range(150):
        state = play_random_hand(f"greedy-{i}".encode(), rng, greedy=True)
        outcomes[state.result.outcome.value] += 1
        kongs += sum(m.is_kong for s in range(4) for m in state.melds(s))
    assert outcomes["win"] >= 10 and kongs >= 20


def test_a_win_is_offered_exactly_when_the_calculator_allows_it():
    """The engine's shortcuts (readiness bound, memos shared across hands, per-turn
    caches) never hide or invent a win: every decision is recomputed from scratch with
    ``shapes.is_complete`` and the calculator."""
    from gbmj.game.actions import WIN
    from gbmj.game.hand_state import HandState, TurnKind
    from gbmj.game.settlement import score_win
    from gbmj.game.wall import Wall
    from gbmj.rules.shapes import is_complete
    from protocol.vocabulary import Phase

    def fresh(state, seat, tile, self_drawn, kong, last):
        counts, melds = state._counts[seat], state._melds[seat]
        if not is_complete(counts, len(melds)):
            return None
        return score_win(counts, melds, state._context(seat, tile, self_drawn, kong, last))

    rng = random.Random(11)
    decisions = offered = 0
    for i in range(60):
        state = HandState(Wall.from_seed(f"wins-{i}".encode(), dealer=i % 4))
        while not state.ended:
            for seat in state.to_act:
                last = state.wall_remaining == 0
                if state.phase is Phase.TURN:
                    if state.turn_kind is TurnKind.CLAIM:
                        continue
                    kong = state.turn_kind is TurnKind.KONG
                    score = fresh(state, seat, state._last_drawn[seat], True, kong, last)
                else:
                    _, tile, rob = state.offer
                    state._counts[seat][tile] += 1
                    score = fresh(state, seat, tile, False, rob, last and not rob)
                    state._counts[seat][tile] -= 1
                listed = WIN in state.legal_actions(seat)
                assert listed == (score is not None), (i, seat, state.log[-3:])
                decisions += 1
                offered += listed
            seat = rng.choice(state.to_act)
            legal = state.legal_actions(seat)
            state.apply(seat, WIN if WIN in legal and rng.random() < 0.5 else rng.choice(legal))
    assert decisions > 5000 and offered > 0


@pytest.mark.slow
def test_personal_wall_hands_keep_every_invariant():
    """The hand of duplicate play (a wall of 34 tiles for each seat) keeps the same
    invariants: 136 tiles accounted for, nothing leaked, the replay the same state."""
    rng = random.Random(34)
    outcomes: Counter[str] = Counter()
    kongs = 0
    for i in range(150):
        state = play_random_hand(
            f"personal-{i}".encode(), rng, greedy=i % 2 == 0, escape_rate=0.05, personal_walls=True
        )
        outcomes[state.result.outcome.value] += 1
        kongs += sum(m.is_kong for s in range(4) for m in state.melds(s))
    assert outcomes["win"] >= 5 and outcomes["exhaustive_draw"] > 0 and kongs >= 10
