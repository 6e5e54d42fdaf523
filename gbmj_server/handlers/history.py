"""The history (docs/rules.md §2.10): a player's matches, one match, one ended hand.

Who may read what is the storage's one rule (``may_read``): a player reads the matches
they played, anyone a public match once it has ended; a hand exists to be read only once
it has ended and been settled. A match or hand not to be read answers exactly as one
that does not exist. What is read is signed with the server's key (gbmj_server.signing),
so a replay file made of it proves where it came from.

A player who played a hand keeps it for good with a recorder (``save_hand``, §2.6):
it joins their saved hands (``list_saved_hands``) and anyone with its id may read it.
``housekeeping`` is the periodic part: every ``PRUNE_EVERY`` seconds the logs of the
other hands older than the host's ``hand_log_days`` are pruned.
"""

from __future__ import annotations

import time
from dataclasses import replace

import trio

from gbmj_server import logs
from gbmj_server.handlers.common import signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.storage import LedgerError
from gbmj_server.storage import history as h
from gbmj_server.tables.session_rules import DEAL_IN_PLAY
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Item

handlers: Handlers[Services] = Handlers()

PAGE = 20  # matches (saved hands) in a page when the request does not say
PRUNE_EVERY = 3600.0  # seconds between two prunings of the hand logs past their days
DAY = 86400.0
PRUNE_BATCH = 500  # hand logs pruned in one write


def _unknown(what: str, number: int) -> RequestError:
    return RequestError(ErrorCode.NO_SUCH_MATCH, f"no {what} {number} you may read")


def _closed(services: Services, table_id: int | None, number: int) -> bool:
    """Whether hand ``number`` of the match of ``table_id`` is a duplicate deal still to
    be played at another table: closed, walls and all (docs/rules.md §2.14)."""
    tournaments = services.tournaments
    return tournaments is not None and tournaments.deal_closed(table_id, number)


@handlers.on(m.ListMatches)
async def list_matches(services: Services, conn: Connection, request: m.ListMatches) -> m.Message:
    return await services.store.call(
        services.store.storage.matches_of,
        signed_in_id(conn),
        request.offset or 0,
        request.limit or PAGE,
    )


@handlers.on(m.GetMatch)
async def get_match(services: Services, conn: Connection, request: m.GetMatch) -> m.Message:
    storage, me = services.store.storage, signed_in_id(conn)

    def read() -> h.StoredMatch | None:
        if not storage.may_read(me, request.match_id):
            return None
        return storage.match_detail(request.match_id, me)

    found = await services.store.call(read)
    if found is None:
        raise _unknown("match", request.match_id)
    # The hands of deals still to be played elsewhere are left out until they open, and
    # the standings with them (less the open hands' points, they are the closed ones').
    reply = found.detail
    hands = tuple(x for x in reply.hands if not _closed(services, found.table_id, x.number))
    if len(hands) < len(reply.hands):
        reply = replace(reply, hands=hands, standings=None)
    return reply if services.signer is None else services.signer.match_detail(reply)


@handlers.on(m.GetHand)
async def get_hand(services: Services, conn: Connection, request: m.GetHand) -> m.Message:
    storage, me = services.store.storage, signed_in_id(conn)

    def read() -> tuple[h.StoredHandLog, int | None] | bool:
        """The log and its table; False: not one to read; True: one whose log was
        pruned."""
        if not storage.may_read_hand(me, request.hand_id):
            return False
        log = storage.hand_log(request.hand_id)
        return True if log is None else (log, storage.table_of_match(log.log.match_id))

    read_ = await services.store.call(read)
    if read_ is True:
        days = services.config.hand_log_days
        raise RequestError(
            ErrorCode.NO_SUCH_MATCH,
            f"hand {request.hand_id}'s log is no longer kept (this server keeps hand logs "
            f"{days} days; a hand saved with a recorder is kept for good)",
        )
    if read_ is False:
        raise _unknown("hand", request.hand_id)
    found, table_id = read_
    if _closed(services, table_id, found.log.number):
        raise RequestError(ErrorCode.DEAL_IN_PLAY, DEAL_IN_PLAY)
    reply = found.log
    return reply if services.signer is None else services.signer.hand_log(reply, found.result)


# -- the recorder (docs/rules.md §2.6) ----------------------------------------------------


async def _saved_page(services: Services, account_id: int, offset: int, limit: int) -> m.Message:
    return await services.store.call(services.store.storage.saved_hands, account_id, offset, limit)


@handlers.on(m.SaveHand)
async def save_hand(services: Services, conn: Connection, request: m.SaveHand) -> m.Message:
    account = conn.session.account
    assert account is not None
    if account.is_guest:
        raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests hold no items: register first")
    store = services.store
    try:
        saved = await store.call(
            store.storage.save_hand, account.id, request.hand_id, Item.RECORDER.value
        )
    except LedgerError as exc:
        raise RequestError(ErrorCode(exc.code), str(exc)) from None
    if saved:
        logs.event("hand_saved", account=account.id, hand=request.hand_id)
    return await _saved_page(services, account.id, 0, PAGE)


@handlers.on(m.ListSavedHands)
async def list_saved_hands(
    services: Services, conn: Connection, request: m.ListSavedHands
) -> m.Message:
    return await _saved_page(
        services, signed_in_id(conn), request.offset or 0, request.limit or PAGE
    )


# -- the periodic part ---------------------------------------------------------------------


async def housekeeping(services: Services) -> None:
    """Prune the hand logs past the host's days, for ever (never, at 0 days)."""
    while True:
        await trio.sleep(PRUNE_EVERY)
        await prune_hand_logs(services)


async def prune_hand_logs(services: Services) -> int:
    """Empty the logs of the unsaved hands played more than ``hand_log_days`` ago (0:
    none); how many."""
    days = services.config.hand_log_days
    if not days:
        return 0
    played_before = time.time() - days * DAY
    pruned = 0
    while True:  # a batch a call: other requests for the database go in between
        n = await services.store.call(
            services.store.storage.prune_hand_logs, played_before, PRUNE_BATCH
        )
        pruned += n
        if n < PRUNE_BATCH:
            break
    if pruned:
        logs.event("hand_logs_pruned", hands=pruned, days=days)
    return pruned
