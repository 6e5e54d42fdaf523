"""The history (docs/rules.md §2.10): a player's matches, one match, one ended hand.

Who may read what is the storage's one rule (``may_read``): a player reads the matches
they played, anyone a public match once it has ended; a hand exists to be read only once
it has ended and been settled. A match or hand not to be read answers exactly as one
that does not exist. What is read is signed with the server's key (gbmj_server.signing),
so a replay file made of it proves where it came from.
"""

from __future__ import annotations

from gbmj_server.handlers.common import signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.storage import history as h
from gbmj_server.tables.session_rules import DEAL_IN_PLAY
from protocol import messages as m
from protocol.errors import ErrorCode

handlers: Handlers[Services] = Handlers()

PAGE = 20  # matches in a page when the request does not say


def _unknown(what: str, number: int) -> RequestError:
    return RequestError(ErrorCode.NO_SUCH_MATCH, f"no {what} {number} you may read")


def _not_closed(services: Services, table_id: int | None) -> None:
    """A duplicate session's hands stay closed until every table has played every deal
    (docs/rules.md §2.14)."""
    if services.tournaments is not None and services.tournaments.closed(table_id):
        raise RequestError(ErrorCode.DEAL_IN_PLAY, DEAL_IN_PLAY)


def summary(s: h.MatchSummary) -> m.MatchSummary:
    return m.MatchSummary(
        match_id=s.match_id,
        table_name=s.table_name,
        started_at=s.started_at,
        ended_at=s.ended_at,
        reason=s.reason,
        players=s.players[: m.MAX_PARTICIPANTS],
        hands=s.hands,
        public=s.public,
        rank=s.rank,
        points=s.points,
        coins=s.coins,
    )


def detail(d: h.MatchDetail) -> m.MatchDetail:
    return m.MatchDetail(
        match=summary(d.match),
        stake=d.stake,
        hands=tuple(
            m.HandSummary(
                hand_id=x.hand_id,
                number=x.number,
                round_number=x.round_number,
                hand_number=x.hand_number,
                outcome=x.outcome,
                winner=x.winner,
                total=x.total,
                points=x.points,
                players=x.players,
            )
            for x in d.hands
        ),
        standings=None
        if d.standings is None
        else tuple(
            m.Standing(
                name=s.name,
                bot=s.bot,
                seat=s.seat,
                rank=s.rank,
                points=s.points,
                coins=s.coins,
                left=s.left,
            )
            for s in d.standings[: m.MAX_PARTICIPANTS]
        ),
    )


def hand_log(x: h.HandLog) -> m.HandLog:
    return m.HandLog(
        hand_id=x.hand_id,
        match_id=x.match_id,
        number=x.number,
        round_number=x.round_number,
        hand_number=x.hand_number,
        prevailing_wind=x.prevailing_wind,
        dealer=x.dealer,
        dice=x.dice,
        wall_order=x.wall_order,
        salt=x.salt,
        commitment=x.commitment,
        players=x.players,
        actions=tuple(
            m.LoggedAction(seat=a.seat, kind=a.kind, tile=a.tile, ms=a.ms) for a in x.actions
        ),
        escape=x.escape,
        points=x.points,
        coins=x.coins,
    )


@handlers.on(m.ListMatches)
async def list_matches(services: Services, conn: Connection, request: m.ListMatches) -> m.Message:
    page = await services.store.call(
        services.store.storage.matches_of,
        signed_in_id(conn),
        request.offset or 0,
        request.limit or PAGE,
    )
    return m.MatchList(matches=tuple(summary(s) for s in page.matches), total=page.total)


@handlers.on(m.GetMatch)
async def get_match(services: Services, conn: Connection, request: m.GetMatch) -> m.Message:
    storage, me = services.store.storage, signed_in_id(conn)

    def read() -> h.MatchDetail | None:
        if not storage.may_read(me, request.match_id):
            return None
        return storage.match_detail(request.match_id, me)

    found = await services.store.call(read)
    if found is None:
        raise _unknown("match", request.match_id)
    _not_closed(services, found.table_id)
    reply = detail(found)
    return reply if services.signer is None else services.signer.match_detail(reply)


@handlers.on(m.GetHand)
async def get_hand(services: Services, conn: Connection, request: m.GetHand) -> m.Message:
    storage, me = services.store.storage, signed_in_id(conn)

    def read() -> tuple[h.HandLog, int | None] | None:
        if not storage.may_read_hand(me, request.hand_id):
            return None
        log = storage.hand_log(request.hand_id)
        return None if log is None else (log, storage.table_of_match(log.match_id))

    read_ = await services.store.call(read)
    if read_ is None:
        raise _unknown("hand", request.hand_id)
    found, table_id = read_
    _not_closed(services, table_id)
    reply = hand_log(found)
    return reply if services.signer is None else services.signer.hand_log(reply, found)
