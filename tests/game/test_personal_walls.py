"""The hand of duplicate play: each seat deals and draws from a wall of its own
(docs/rules.md §1.6). Scripted walls, one named test per ruling."""

import random

from gbmj.game.actions import PASS, WIN, parse_action
from gbmj.game.hand_state import HandState
from gbmj.game.invariants import check_replay, check_step
from gbmj.game.personal_walls import PERSONAL_SET, PersonalWalls, verify_personal_commitment
from gbmj.rules.hand import parse_tiles
from protocol.messages import ActionChoice, Draw
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, Outcome, Phase

# The dealer waits on 5p with a pure straight (一气化龙); its wall ends with a 5p, the
# others' walls run out one draw later.
DEALER_WAITS = ["123m 456m 789m 123p 5p N", "", "", ""]


def _fill(hands: list[str], draws: tuple[str, ...]) -> list[str]:
    """Hands of 13 (the dealer 14) made up from the tiles the scripted hands and draws
    leave."""
    used = [parse_tiles(h) for h in hands]
    pool = list(PERSONAL_SET)
    for t in [t for h in used for t in h] + [t for d in draws for t in parse_tiles(d)]:
        pool.remove(t)
    rng = random.Random(0)
    rng.shuffle(pool)
    out = []
    for s, h in enumerate(used):
        need = (14 if s == 0 else 13) - len(h)
        out.append(
            " ".join(t.notation for t in h)
            + " "
            + " ".join(pool.pop().notation for _ in range(need))
        )
    return out


def deal(draws=("", "", "", ""), hands=DEALER_WAITS) -> HandState:
    return HandState(PersonalWalls.scripted(_fill(list(hands), draws), draws=draws))


def act(state: HandState, seat: int, action: ActionChoice) -> None:
    check_step(state, state.apply(seat, action))


def play_out(state: HandState, *, stop=lambda state: False) -> None:
    """Every seat discards what it drew (the dealer its 14th tile first) and every claim
    is passed, until ``stop`` says so or the hand ends."""
    while not state.ended and not stop(state):
        if state.phase is Phase.CLAIM:
            for seat in state.to_act:
                act(state, seat, PASS)
            continue
        seat = state.turn_seat
        drawn = state.last_drawn(seat)
        tile = drawn if drawn is not None and drawn in state.concealed(seat) else Tile.N
        act(state, seat, parse_action(f"discard {tile.notation}"))


def drawn_by(state: HandState, seat: int) -> list[Tile]:
    return [e.tile for e in state.events if isinstance(e, Draw) and e.seat == seat]


def dealer_last_draw(draw_before_5p: str) -> tuple[str, str, str, str]:
    # 20 draws for the dealer (the 20th a 5p), 21 for each other seat.
    return (draw_before_5p + " 5p", "", "", "")


def test_each_seat_is_dealt_the_front_of_its_own_wall():
    walls = PersonalWalls.from_seed(b"deal one", dealer=2)
    state = HandState(walls)
    for seat in range(4):
        size = 14 if seat == 2 else 13
        assert sorted(state.concealed(seat)) == sorted(walls.walls[seat][:size])
    assert state.wall_remaining == 136 - 53
    assert state.turn_seat == 2 and state.phase is Phase.TURN
    assert not any(state.flowers(s) for s in range(4))  # the 136 tiles have no flowers


def test_the_same_deal_gives_each_seat_the_same_draws_whatever_the_calls():
    """Two tables on one deal, one claiming all it may, one passing everything: each
    seat's draws at one table are the start of its draws at the other."""
    walls = PersonalWalls.from_seed(b"same deal", dealer=1)
    eager, quiet = HandState(walls), HandState(walls)
    rng = random.Random(5)
    claims = 0
    while not eager.ended:
        seat = eager.to_act[0]
        legal = eager.legal_actions(seat)
        calls = [a for a in legal if a.kind in (ActionKind.PUNG, ActionKind.CHOW)]
        wins = [a for a in legal if a.kind is ActionKind.WIN]
        action = (wins or calls or [rng.choice([a for a in legal if a != PASS] or legal)])[0]
        claims += action in calls
        act(eager, seat, action)
    play_out(quiet)
    assert claims > 0
    for seat in range(4):
        a, b = drawn_by(eager, seat), drawn_by(quiet, seat)
        shorter, longer = sorted((a, b), key=len)
        assert longer[: len(shorter)] == shorter
        assert shorter == list(walls.walls[seat][walls.deal_size(seat) :][: len(shorter)])


def test_a_kong_replacement_comes_from_the_front_of_the_seats_own_wall():
    state = deal(draws=("7s 8s", "", "", ""), hands=["1111m 456m 789m 123p", "", "", ""])
    act(state, 0, parse_action("concealed_kong 1m"))
    assert drawn_by(state, 0) == [Tile.S7]  # the front, where the shared wall uses its back
    act(state, 0, parse_action("discard 7s"))
    play_out(state, stop=lambda st: st.phase is Phase.TURN and st.turn_seat == 0)
    assert drawn_by(state, 0) == [Tile.S7, Tile.S8]


def test_a_self_drawn_win_on_the_last_tile_of_ones_own_wall_is_the_last_tile_draw():
    """妙手回春 per wall: the dealer's wall is empty while the others still hold a tile."""
    state = deal(draws=dealer_last_draw("SSS WWW FFF PPP CCC 999s 8s"))
    play_out(state, stop=lambda st: st.phase is Phase.TURN and WIN in st.legal_actions(0))
    assert state.wall_empty(0) and state.wall_remaining == 3
    act(state, 0, WIN)
    names = {fc.fan.name_zh for fc in state.result.score.fans}
    assert "妙手回春" in names and state.result.winner == 0
    check_replay(state)


def test_the_hand_is_drawn_when_the_seat_due_to_draw_has_an_empty_wall():
    state = deal(draws=dealer_last_draw("SSS WWW FFF PPP CCC 999s 8s"))
    play_out(state)
    assert state.result.outcome is Outcome.EXHAUSTIVE_DRAW
    # the dealer's wall ran out first; each other seat drew its last tile before
    assert state.wall_remaining == 0
    assert [len(drawn_by(state, s)) for s in range(4)] == [20, 21, 21, 21]
    check_replay(state)


def test_the_discard_before_an_empty_wall_is_the_last_discard_and_only_a_win_takes_it():
    """海底捞月 per wall: the dealer's kong emptied its wall a round early, so the
    discard before its draw is the last discard while the others still hold a tile
    each; only a win may claim it, and the dealer wins on it."""
    draws = (
        "S S S W W W F F F P P P C C C 9s 9s 9s 8s 8s",
        "",
        "",
        "6s 6s 6s 7s 7s 7s 1p 1p 1p 2p 2p 2p 3p 3p 3p 4p 4p 4p 9s 5p 4s",
    )
    state = deal(draws=draws, hands=["EEEE 123m 456m 789m 5p", "", "", ""])
    act(state, 0, parse_action("concealed_kong E"))
    play_out(
        state, stop=lambda st: st.phase is Phase.CLAIM and st.offer[0] == 3 and st.wall_empty(0)
    )
    assert state.offer[1] == Tile.P5 and state.wall_remaining == 3
    for seat in state.to_act:
        assert {a.kind for a in state.legal_actions(seat)} <= {ActionKind.WIN, ActionKind.PASS}
    assert WIN in state.legal_actions(0)
    act(state, 0, WIN)
    assert state.result.winner == 0 and state.result.from_seat == 3
    assert "海底捞月" in {fc.fan.name_zh for fc in state.result.score.fans}


def test_walls_round_trip_and_their_commitment_checks():
    walls = PersonalWalls.from_seed(b"verify me", dealer=3)
    assert PersonalWalls.from_dict(walls.to_dict()) == walls
    codes = [int(t) for t in walls.order]
    assert verify_personal_commitment(walls.commitment, codes, walls.salt)
    swapped = codes[:]
    swapped[0], swapped[40] = swapped[40], swapped[0]
    assert codes[0] == codes[40] or not verify_personal_commitment(
        walls.commitment, swapped, walls.salt
    )
    assert not verify_personal_commitment(walls.commitment, [*codes[:-1], 34], walls.salt)
    placed = PersonalWalls.from_seed(b"verify me", dealer=3, match_id=7, number=2)
    assert placed.walls == walls.walls and placed.commitment != walls.commitment
    assert verify_personal_commitment(placed.commitment, codes, walls.salt, 7, 2)
    assert not verify_personal_commitment(placed.commitment, codes, walls.salt, 7, 3)
    assert PersonalWalls.from_dict(placed.to_dict()) == placed
    state = HandState(placed)
    play_out(state)
    check_replay(state)  # the hand's plain form carries the four walls and their place
