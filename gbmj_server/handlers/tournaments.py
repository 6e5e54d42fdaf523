"""The players' tournament requests (docs/rules.md §2.12): the list, entering and
withdrawing, a tournament's standings and tables."""

from __future__ import annotations

from gbmj.tournament.duplicate import STEPS
from gbmj_server.handlers.common import signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.tournaments import TournamentError, Tournaments
from gbmj_server.tournaments.runner import Settings
from gbmj_server.tournaments.wire import detail_message, info
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import TournamentAction

handlers: Handlers[Services] = Handlers()


def _tournaments(services: Services) -> Tournaments:
    if services.tournaments is None:
        raise RequestError(ErrorCode.NOT_EXPECTED, "this server runs no tournaments")
    return services.tournaments


def _refused(exc: TournamentError) -> RequestError:
    text = str(exc)
    code = (
        ErrorCode.NO_SUCH_TOURNAMENT
        if text.startswith("no tournament")
        else (ErrorCode.TOURNAMENT_REFUSED)
    )
    return RequestError(code, text)


@handlers.on(m.ListTournaments)
async def list_tournaments(
    services: Services, conn: Connection, request: m.ListTournaments
) -> m.Message:
    store = services.store
    account = signed_in_id(conn)
    found = await store.call(store.storage.tournaments)
    mine = set(await store.call(store.storage.entered_by, account))
    result = []
    for t in found[: m.TOURNAMENT_PAGE]:
        entrants = await store.call(store.storage.entrants, t.id)
        result.append(info(t, len(entrants), t.id in mine))
    return m.TournamentList(tournaments=tuple(result))


@handlers.on(m.EnterTournament)
async def enter_tournament(
    services: Services, conn: Connection, request: m.EnterTournament
) -> m.Message:
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        raise RequestError(ErrorCode.TOURNAMENT_REFUSED, "guests cannot enter tournaments")
    try:
        await _tournaments(services).enter(request.tournament_id, account.id, account.name)
    except TournamentError as exc:
        raise _refused(exc) from None
    return m.Ok()


@handlers.on(m.WithdrawTournament)
async def withdraw_tournament(
    services: Services, conn: Connection, request: m.WithdrawTournament
) -> m.Message:
    try:
        await _tournaments(services).withdraw(request.tournament_id, signed_in_id(conn))
    except TournamentError as exc:
        raise _refused(exc) from None
    return m.Ok()


@handlers.on(m.GetTournament)
async def get_tournament(
    services: Services, conn: Connection, request: m.GetTournament
) -> m.Message:
    try:
        detail = await _tournaments(services).detail(request.tournament_id)
    except TournamentError as exc:
        raise _refused(exc) from None
    session = request.session
    if session is not None and session > detail.record.current:
        raise RequestError(ErrorCode.OUT_OF_RANGE, f"session {session} is not seated yet")
    return detail_message(detail, conn.session.account_id, session)


async def _organiser(services: Services, conn: Connection) -> int:
    account = signed_in_id(conn)
    store = services.store
    if not await store.call(store.storage.is_organiser, account):
        raise RequestError(
            ErrorCode.TOURNAMENT_REFUSED, "the host has not allowed you to organise tournaments"
        )
    return account


@handlers.on(m.CreateTournament)
async def create_tournament(
    services: Services, conn: Connection, request: m.CreateTournament
) -> m.Message:
    organiser = await _organiser(services, conn)
    settings = Settings(
        name=request.name,
        sessions=request.sessions,
        hands=request.hands,
        minutes=request.minutes,
        drawn=request.drawn,
        leaders_last=request.leaders_last,
        spectators=request.spectators,
        duplicate=bool(request.duplicate),
        scale=request.scale if request.scale is not None else STEPS,
    )
    tournaments = _tournaments(services)
    try:
        record = await tournaments.create(conn.session.name, settings, organiser)
        detail = await tournaments.detail(record.id)
    except TournamentError as exc:
        raise _refused(exc) from None
    return detail_message(detail, organiser, None)


@handlers.on(m.ManageTournament)
async def manage_tournament(
    services: Services, conn: Connection, request: m.ManageTournament
) -> m.Message:
    organiser = await _organiser(services, conn)
    tournaments = _tournaments(services)
    try:
        t = await tournaments.get(request.tournament_id)
        if t.organiser_id != organiser:
            raise RequestError(
                ErrorCode.TOURNAMENT_REFUSED, f"you do not organise tournament {t.id}"
            )
        action = request.action
        if action in (TournamentAction.OPEN, TournamentAction.CLOSE):
            await tournaments.registration(t.id, action is TournamentAction.OPEN)
        elif action is TournamentAction.START:
            await tournaments.start(t.id)
        else:
            assert request.name is not None  # the message's rules require it
            await tournaments.drop(t.id, request.name)
    except TournamentError as exc:
        raise _refused(exc) from None
    return m.Ok()
