"""The coach's hints: discards, waits with their fan, plans and claims, from a view."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable

import pytest

from gbmj.bots import make_bot
from gbmj.coach import claim_hints, claim_meld, hints, sight, sight_of
from gbmj.coach.hints import Sight, Useful, WaitHint
from gbmj.game.hand_state import HandState
from gbmj.game.views import make_view
from gbmj.game.wall import Wall
from gbmj.rules.errors import HandError
from gbmj.rules.hand import Hand, parse_tiles
from gbmj.rules.scoring import LAST_TILE, WinContext, score_hand
from gbmj.rules.shanten import shanten
from protocol.tiles import Tile
from protocol.vocabulary import MeldKind


def see(text: str, visible: str = "", flowers: int = 0, seat: str = "E") -> Sight:
    hand = Hand.parse(text)
    return sight(
        hand.concealed,
        hand.melds,
        flowers=flowers,
        seat_wind=Tile.parse(seat),
        prevailing_wind=Tile.E,
        visible=parse_tiles(visible),
    )


def names(tiles: Iterable[Useful | WaitHint]) -> list[str]:
    return [Tile(u.tile).notation for u in tiles]


def test_ready_hand_lists_each_wait_with_its_fan_and_warns_under_8() -> None:
    # A hand a new player held: ready, but neither wait reaches 8 fan.
    h = hints(see("3m 444m 5m 66m [888m<2] [456s<1]"))
    assert h.size == 13 and h.shanten == 0
    assert names(h.waits) == ["4m", "6m"]
    hand = Hand.parse("3m 444m 5m 66m [888m<2] [456s<1]")
    for w in h.waits:
        for self_drawn, total in ((False, w.discard_total), (True, w.self_drawn_total)):
            score = score_hand(hand, WinContext(Tile(w.tile), self_drawn=self_drawn))
            assert total == score.total
        assert not w.discard_meets_8 and not w.self_drawn_meets_8
    assert h.no_wait_reaches_8


def test_a_wait_that_reaches_8_and_its_unseen_copies() -> None:
    h = hints(see("456m 23456p 678s FF", visible="7p 7p 1p"))
    by_tile = {Tile(w.tile).notation: w for w in h.waits}
    assert set(by_tile) == {"1p", "4p", "7p"}
    assert by_tile["7p"].discard_meets_8 and by_tile["7p"].self_drawn_meets_8  # 三色三步高
    assert not by_tile["1p"].discard_meets_8
    assert by_tile["7p"].unseen == 2 and by_tile["1p"].unseen == 3 and by_tile["4p"].unseen == 3
    assert not h.no_wait_reaches_8


def test_flowers_count_in_the_totals_not_in_the_8() -> None:
    plain = hints(see("3m 444m 5m 66m [888m<2] [456s<1]")).waits[0]
    flowered = hints(see("3m 444m 5m 66m [888m<2] [456s<1]", flowers=3)).waits[0]
    assert flowered.discard_total == plain.discard_total + 3
    assert not flowered.discard_meets_8


def test_the_last_copy_counts_as_fourth_tile_when_three_are_on_the_table() -> None:
    # Three of 5p in the pools and melds, none in the hand: the fourth is 和绝张.
    h = hints(see("123m 46p 789s EEE 11s", visible="5p 5p 5p"))
    five = next(x for x in h.waits if x.tile == Tile.P5)
    assert five.fourth_tile and five.unseen == 1
    for score in (five.discard, five.self_drawn):
        assert score is not None and any(fc.fan.id == LAST_TILE for fc in score.fans)
    # Two on the table: not yet.
    two = hints(see("123m 46p 789s EEE 11s", visible="5p 5p")).waits
    assert not next(x for x in two if x.tile == Tile.P5).fourth_tile
    # The hand holds a copy of its wait: never 和绝张.
    held = hints(see("123m 456p 789s EEE 5p", visible="5p 5p")).waits[0]
    assert held.tile == Tile.P5 and not held.fourth_tile


def test_discards_best_first_with_useful_tiles_by_kind_and_unseen_count() -> None:
    h = hints(see("123m 456p 789s EEE 1s 5p"))
    assert h.size == 14 and h.shanten == 0 and not h.waits
    first = h.discards[0]
    assert first.shanten == 0 and first.tile in (Tile.S1, Tile.P5)
    assert [d.shanten for d in h.discards] == sorted(d.shanten for d in h.discards)
    # Each discard's shanten is the rules' shanten of the 13 tiles left.
    hand = Hand.parse("123m 456p 789s EEE 1s 5p")
    for d in h.discards:
        rest = list(hand.concealed)
        rest.remove(Tile(d.tile))
        assert d.shanten == shanten(Hand(tuple(rest)))
    # Seen copies are not counted: two 1s on the table leave one of the 1s wait.
    seen = hints(see("123m 456p 789s EEE 1s 5p", visible="1s 1s"))
    keep_1s = next(d for d in seen.discards if d.tile == Tile.P5)
    assert keep_1s.useful_kinds == 1 and keep_1s.useful_tiles == 1
    assert seen.discards[0].tile == Tile.S1  # the 5p wait has more copies left


def test_a_ready_discard_whose_waits_reach_8_comes_first() -> None:
    # Discard 9p: ready on 7p (三色三步高, 8 fan); discard 1p/4p-side tiles keep weaker waits.
    h = hints(see("456m 23456p 678s FF 9p"))
    assert h.discards[0].tile == Tile.P9
    assert h.discards[0].winning_8 == 4


def test_thirteen_tile_hand_not_ready_lists_its_useful_tiles() -> None:
    h = hints(see("19m 19p 19s ESWNCF 5m"))
    assert h.shanten == 1 and not h.waits and not h.discards
    assert "P" in names(h.useful)


def test_plans_nearest_first_with_the_tiles_that_move_them() -> None:
    h = hints(see("13m 4m 67m 9m EE CC 5p 8s 2s 2m"))
    by_name = {p.plan.name: p for p in h.plans}
    assert "混一色万" in by_name
    half = by_name["混一色万"]
    assert half.discard is not None and half.discard in (Tile.P5, Tile.S8, Tile.S2)
    assert all(u.tile < 9 or u.tile >= 27 for u in half.moves)
    assert [p.distance for p in h.plans] == sorted(p.distance for p in h.plans)


def test_claims_change_the_shanten_and_the_plans() -> None:
    s = see("55m 99m EE 123p 45p 7s C")
    pung = claim_hints(s, claim_meld(MeldKind.PUNG, Tile.E, Tile.E, 2))
    assert pung.shanten_after <= pung.shanten_before
    chow = claim_hints(s, claim_meld(MeldKind.CHOW, Tile.P4, Tile.P6, 1))
    assert chow.meld.kind is MeldKind.CHOW
    with pytest.raises(HandError):
        claim_hints(s, claim_meld(MeldKind.PUNG, Tile.C, Tile.C, 2))  # only one C held
    pungs = claim_hints(
        see("55m 99m EE CC 1p 4p 7s 2s 6s"), claim_meld(MeldKind.PUNG, Tile.C, Tile.C, 2)
    )
    before = {p.plan.name: p.distance for p in pungs.plans_before}
    after = {p.plan.name: p.distance for p in pungs.plans_after}
    assert after["碰碰和"] < before["碰碰和"]


def test_wrong_sizes_are_refused() -> None:
    with pytest.raises(HandError):
        hints(see("123m 456p"))


def _hidden_shuffled(state: HandState, viewer: int, rng: random.Random) -> HandState:
    """A copy of ``state`` whose tiles hidden from ``viewer`` (the other seats' concealed
    tiles and the undrawn wall, flowers left where they are) are dealt anew."""
    other = copy.deepcopy(state)
    seats = [s for s in range(4) if s != viewer]
    pool = [t for s in seats for t in range(34) for _ in range(other._counts[s][t])]
    wall = other._seqs[0]  # the shared wall
    walls = [p for p in range(other._front[0], other._back[0]) if wall[p] < 34]
    pool += [wall[p] for p in walls]
    rng.shuffle(pool)
    seq = list(wall)
    for s in seats:
        n = sum(other._counts[s])
        other._counts[s] = [0] * 34
        for t in pool[:n]:
            other._counts[s][t] += 1
        del pool[:n]
        other._memo.rev[s] += 1  # its tiles changed behind the engine's back
    for p, t in zip(walls, pool, strict=True):
        seq[p] = t
    other._seqs = (tuple(seq),)
    return other  # a new object: the views keep no cache of it yet


def test_hints_never_use_a_tile_the_player_cannot_see() -> None:
    bots = [make_bot("hard", s) for s in range(4)]
    rng = random.Random(7)
    checked = 0
    for seed in (b"coach-1", b"coach-2", b"coach-3"):
        state = HandState(Wall.from_seed(seed))
        while not state.ended:
            seat = state.to_act[0]
            view = make_view(state, seat)
            me = view.game.seats[seat]
            if rng.random() < 0.3 and len(me.concealed or ()) + 3 * len(me.melds) in (13, 14):
                before = hints(sight_of(view))
                other = _hidden_shuffled(state, seat, rng)
                hidden = [other.seat_data(s).concealed for s in range(4) if s != seat]
                assert hidden != [state.seat_data(s).concealed for s in range(4) if s != seat]
                assert make_view(other, seat) == view
                assert hints(sight_of(make_view(other, seat))) == before
                checked += 1
            state.apply(seat, bots[seat].choose(view, view.legal_actions))
    assert checked >= 20
