"""Duplicate play's deals (docs/rules.md §2.14): the same deal gives each seat the same
tiles in the same order at every table, whatever the calls; the match of a list of
deals, its seat rotation and its plain data."""

import random

import pytest

from gbmj.game.duplicate import (
    Deal,
    DuplicateMatch,
    deals_from_seed,
    duplicate_seed,
    match_of_seed,
    sealed_end,
    seating,
)
from gbmj.game.hand_state import HandState
from gbmj.game.personal_walls import PersonalWalls
from protocol import messages as m
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, Phase

CALLS = (ActionKind.EXPOSED_KONG, ActionKind.PUNG, ActionKind.CHOW, ActionKind.CONCEALED_KONG)


def play(hand: HandState, rng: random.Random, *, calls: bool) -> int:
    """Play ``hand`` to its end: with ``calls`` every call offered is made (a win never);
    without, every claim is passed and no kong made. Returns the number of calls."""
    made = 0
    while not hand.ended:
        seat = hand.to_act[0]
        legal = [a for a in hand.legal_actions(seat) if a.kind is not ActionKind.WIN]
        wanted = [a for a in legal if a.kind in CALLS]
        if calls and wanted:
            made += 1
            hand.apply(seat, rng.choice(wanted))
        elif hand.phase is Phase.CLAIM:
            hand.apply(seat, next(a for a in legal if a.kind is ActionKind.PASS))
        else:
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            hand.apply(seat, rng.choice(discards))
    return made


def tiles_by_seat(hand: HandState) -> tuple[list[tuple[Tile, ...]], list[list[Tile]]]:
    dealt: list[tuple[Tile, ...]] = [() for _ in range(4)]
    drawn: list[list[Tile]] = [[] for _ in range(4)]
    for ev in hand.events:
        if isinstance(ev, m.Deal) and ev.tiles is not None:
            dealt[ev.seat] = ev.tiles
        elif isinstance(ev, m.Draw) and ev.tile is not None:
            drawn[ev.seat].append(ev.tile)
    return dealt, drawn


def test_the_same_deal_gives_each_seat_the_same_tiles_whatever_the_calls() -> None:
    tables_with_calls = 0
    for k, deal in enumerate(deals_from_seed(b"two tables", 12)):
        quiet = HandState(deal.walls(), prevailing_wind=deal.prevailing_wind)
        busy = HandState(deal.walls(), prevailing_wind=deal.prevailing_wind)
        play(quiet, random.Random(k), calls=False)
        calls = play(busy, random.Random(1000 + k), calls=True)
        tables_with_calls += calls > 0
        dealt_a, drawn_a = tiles_by_seat(quiet)
        dealt_b, drawn_b = tiles_by_seat(busy)
        assert dealt_a == dealt_b
        assert len(dealt_a[deal.dealer]) == 14
        for seat in range(4):
            # Calls change only how far down its own wall a seat gets.
            n = min(len(drawn_a[seat]), len(drawn_b[seat]))
            assert drawn_a[seat][:n] == drawn_b[seat][:n]
            wall = deal.walls().walls[seat]
            start = deal.walls().deal_size(seat)
            assert drawn_b[seat] == list(wall[start : start + len(drawn_b[seat])])
    # The calls did happen: the test compares tables that played differently.
    assert tables_with_calls >= 6


def test_a_deal_is_its_seed_dealer_and_wind() -> None:
    deals = deals_from_seed(b"s", 8)
    assert [d.dealer for d in deals] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert [d.prevailing_wind for d in deals] == [Tile.E] * 4 + [Tile.S] * 4
    assert len({d.seed for d in deals}) == 8
    assert deals == deals_from_seed(b"s", 8)
    assert deals[0].walls(7, 1) == PersonalWalls.from_seed(deals[0].seed, 0, 7, 1)
    assert Deal.from_dict(deals[3].to_dict()) == deals[3]
    with pytest.raises(ValueError):
        deals_from_seed(b"s", 17)
    with pytest.raises(ValueError):
        Deal(b"x", 4, Tile.E)


def test_seat_rotation_gives_everyone_every_seat_and_each_table_a_different_one() -> None:
    # Over four deals at one table, each player holds each seat once.
    for table in range(4):
        for player in range(4):
            assert sorted(seating(k, table).index(player) for k in range(4)) == [0, 1, 2, 3]
    # At four tables, the players at one place hold the four seats of a deal.
    for k in range(8):
        for place in range(4):
            assert sorted(seating(k, t).index(place) for t in range(4)) == [0, 1, 2, 3]


def test_a_duplicate_match_plays_its_deals_in_order_and_replays_from_plain_data() -> None:
    deals = deals_from_seed(b"match", 5)
    match = DuplicateMatch(deals, table=2, match_id=41)
    rng = random.Random(5)
    while not match.finished:
        hand = match.start_hand()
        assert hand.personal_walls
        assert hand.dealer == deals[match.index].dealer
        assert hand.wall == deals[match.index].walls(41, match.number)
        play(hand, rng, calls=True)
        record = match.finish_hand()
        assert record.players == seating(len(match.history) - 1, 2)
        assert sum(record.points) == 0 or record.escaper is not None
    assert len(match.history) == 5
    assert sum(match.standings) == 0
    again = DuplicateMatch.from_dict(match.to_dict())
    assert again.history == match.history
    assert again.standings == match.standings
    assert again.finished


def test_a_duplicate_matchs_record_seed_rebuilds_it() -> None:
    seed = duplicate_seed(b"deals", 6, 2)
    match = match_of_seed(seed, 4, 9)
    assert isinstance(match, DuplicateMatch)
    assert (match.deals, match.table, match.match_id, match.seed) == (
        deals_from_seed(b"deals", 6),
        2,
        9,
        seed,
    )
    plain = match_of_seed(b"an ordinary seed", 2, 9)
    assert not isinstance(plain, DuplicateMatch) and plain.rounds == 2


def test_a_sealed_hand_end_shows_only_the_seats_asked_and_no_wall() -> None:
    """docs/rules.md §2.14: while a deal is still to be played elsewhere, a hand's end
    shows the viewer's own tiles and the winner's, other concealed kongs face down."""
    for k, deal in enumerate(deals_from_seed(b"sealed", 8)):
        hand = HandState(deal.walls(), prevailing_wind=deal.prevailing_wind)
        play(hand, random.Random(k), calls=True)
        end = hand.events[-1]
        assert isinstance(end, m.HandEnd) and end.wall_order is not None
        sealed = sealed_end(end, {1, 3})
        assert sealed.wall_order is None and sealed.salt is None
        assert sealed.commitment == end.commitment and sealed.points == end.points
        for s in range(4):
            if s in (1, 3):
                assert sealed.concealed[s] == end.concealed[s]
                assert sealed.melds[s] == end.melds[s]
            else:
                assert sealed.concealed[s] == ()
                assert len(sealed.melds[s]) == len(end.melds[s])
                for shown, melded in zip(sealed.melds[s], end.melds[s], strict=True):
                    assert shown == (None if melded is not None and melded.concealed else melded)
        assert "wall_order" not in sealed.to_wire() and "salt" not in sealed.to_wire()


def test_a_sealed_hand_end_hides_another_seats_concealed_kong() -> None:
    kong = next(
        (deal, seed)
        for seed in range(200)
        for deal in deals_from_seed(seed.to_bytes(2, "big"), 1)
        if _concealed_kong_end(deal, seed) is not None
    )
    end = _concealed_kong_end(*kong)
    assert end is not None
    seat = next(s for s in range(4) if any(m is not None and m.concealed for m in end.melds[s]))
    others = {s for s in range(4) if s != seat}
    assert None in sealed_end(end, others).melds[seat]
    assert None not in sealed_end(end, {seat}).melds[seat]


def _concealed_kong_end(deal: Deal, seed: int) -> m.HandEnd | None:
    """The end of ``deal`` played with every call made, if a seat made a concealed kong."""
    hand = HandState(deal.walls(), prevailing_wind=deal.prevailing_wind)
    play(hand, random.Random(seed), calls=True)
    end = hand.events[-1]
    assert isinstance(end, m.HandEnd)
    has_kong = any(m is not None and m.concealed for ms in end.melds for m in ms)
    return end if has_kong else None
