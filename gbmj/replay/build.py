"""Building replay files from what a server tells (``get_match``'s ``match_detail``,
``get_hand``'s ``hand_log``: the protocol's records, which the host's storage returns
too) and replaying a file's hand with the rules.

A ``hand_log`` carries the wall, the actions, the points and the coins, not the fans: a
player's export scores the hand by replaying it (``result_of``), the host's export
writes the result the server recorded with the hand (its storage keeps it as a
``ReplayResult``). Either way ``verify`` replays and scores it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from protocol import messages as m
from protocol.tiles import WINDS, Tile

from ..game.actions import action_of
from ..game.hand_state import HandState
from ..game.personal_walls import PERSONAL_WALL_SIZE, PersonalWalls
from ..game.wall import Wall
from .format import (
    FORMAT,
    VERSION,
    Replay,
    ReplayHand,
    ReplayMatch,
    ReplayResult,
    ReplaySeat,
    ReplayStanding,
    ReplayWall,
)


@dataclass(frozen=True, slots=True)
class ReplayId:
    """What to export: a match or one hand, by id."""

    kind: str  # "match" or "hand"
    id: int

    def __str__(self) -> str:
        return f"{self.kind} {self.id}"

    @property
    def file_name(self) -> str:
        """The export's file name when none is given: ``gbmj-match-88.json``."""
        return f"gbmj-{self.kind}-{self.id}.json"


def parse_id(text: str) -> ReplayId:
    """``88`` or ``m88``: a match; ``h412``: a hand. ``ValueError`` otherwise."""
    text = text.strip().lower()
    kind = "hand" if text[:1] == "h" else "match"
    digits = text[1:] if text[:1] in ("m", "h") else text
    if not (digits.isascii() and digits.isdigit() and 0 < int(digits) <= 2**53):
        raise ValueError(f"{text!r} is no id: a match is 88 or m88, a hand h412")
    return ReplayId(kind, int(digits))


# -- building ---------------------------------------------------------------------------


def hand_from_log(
    log: m.HandLog, result: ReplayResult | None = None, signature: str | None = None
) -> ReplayHand:
    """The file's hand from a hand log (with the server's ``signature`` of it). Without
    ``result`` the hand is replayed and scored with the rules, keeping the log's points
    and coins: ``IllegalAction`` (or ``ValueError`` for a wall that is no wall) if the log
    does not replay."""
    wall = ReplayWall(
        order=tuple(Tile(t) for t in log.wall_order),
        dice=tuple((int(d[0]), int(d[1])) for d in log.dice),
        salt=log.salt,
        commitment=log.commitment,
    )
    actions = log.actions
    prevailing = Tile(log.prevailing_wind)
    if result is None:
        state = _replayed(
            wall,
            log.dealer,
            prevailing,
            log.round_number,
            log.hand_number,
            actions,
            log.escape,
            log.match_id,
        )
        coins = None if log.coins is None else tuple(log.coins)
        result = replace(result_of(state), points=tuple(log.points), coins=coins)
    return ReplayHand(
        hand_id=log.hand_id,
        number=log.number,
        round_number=log.round_number,
        hand_number=log.hand_number,
        dealer=log.dealer,
        prevailing_wind=prevailing,
        seats=tuple(
            ReplaySeat(seat=s, player=log.players[s], wind=WINDS[(s - log.dealer) % 4])
            for s in range(4)
        ),
        wall=wall,
        actions=actions,
        result=result,
        signature=signature,
    )


def match_from_detail(detail: m.MatchDetail, signature: str | None = None) -> ReplayMatch:
    """The file's match from a match's detail (with the server's ``signature`` of it; the
    asking player's own rank, points and coins are left out: the file is the match's,
    whoever reads it)."""
    summary = detail.match
    return ReplayMatch(
        match_id=summary.match_id,
        table_name=summary.table_name,
        started_at=summary.started_at,
        ended_at=summary.ended_at,
        reason=summary.reason,
        public=summary.public,
        stake=detail.stake,
        players=summary.players,
        hands_played=summary.hands,
        standings=None
        if detail.standings is None
        else tuple(
            ReplayStanding(
                name=s.name,
                bot=s.bot,
                seat=s.seat,
                rank=s.rank,
                points=s.points,
                coins=s.coins,
                left=s.left,
            )
            for s in detail.standings
        ),
        signature=signature,
    )


def replay_file(
    server: str,
    exporter: str,
    match: ReplayMatch,
    hands: Iterable[ReplayHand],
    exported_at: int | None = None,
    certificate: str | None = None,
) -> Replay:
    return Replay(
        format=FORMAT,
        version=VERSION,
        server=server,
        exporter=exporter,
        exported_at=exported_at,
        match=match,
        hands=tuple(sorted(hands, key=lambda h: h.number)),
        certificate=certificate,
    )


# -- replaying --------------------------------------------------------------------------


def steps_of(hand: ReplayHand) -> int:
    """How many steps the hand's log has: its actions, and the escape that ends it."""
    return len(hand.actions) + (hand.result.escaper is not None)


def hand_state(hand: ReplayHand, steps: int | None = None, match_id: int = 0) -> HandState:
    """The hand (of match ``match_id``, whose id its wall's commitment binds) as the
    rules have it after its first ``steps`` steps (``steps_of``: the actions, then the
    escape if one ended the hand; all of them when None). ``IllegalAction`` when an
    action is not legal; ``ValueError`` when the wall is no wall."""
    whole = steps is None or steps >= steps_of(hand)
    return _replayed(
        hand.wall,
        hand.dealer,
        hand.prevailing_wind,
        hand.round_number,
        hand.hand_number,
        hand.actions[:steps],
        hand.result.escaper if whole else None,
        match_id,
    )


def _replayed(
    w: ReplayWall,
    dealer: int,
    prevailing_wind: Tile,
    round_number: int,
    hand_number: int,
    actions: Sequence[m.LoggedAction],
    escaper: int | None,
    match_id: int = 0,
) -> HandState:
    number = 4 * (round_number - 1) + hand_number
    wall = (
        PersonalWalls.from_order(w.order, bytes.fromhex(w.salt), dealer, match_id, number)
        if len(w.order) == 4 * PERSONAL_WALL_SIZE
        else Wall(
            tuple(w.order), (w.dice[0], w.dice[1]), bytes.fromhex(w.salt), dealer, match_id, number
        )
    )
    state = HandState(
        wall, prevailing_wind=prevailing_wind, round_number=round_number, hand_number=hand_number
    )
    for a in actions:
        state.apply(a.seat, action_of(a.kind, a.tile))
    if escaper is not None:
        state.escape(escaper)
    return state


def result_of(state: HandState) -> ReplayResult:
    """The result of an ended hand as the rules give it: scored by gbmj's calculator."""
    r = state.result
    if r is None:
        raise ValueError("the hand has not ended")
    score = r.score
    return ReplayResult(
        outcome=r.outcome,
        winner=r.winner,
        from_seat=r.from_seat if r.winner is not None else None,
        win_tile=r.win_tile,
        escaper=r.escaper,
        fans=tuple((fc.fan.id, fc.count) for fc in score.fans) if score else (),
        total=score.total if score else 0,
        points=tuple(r.points),
    )
