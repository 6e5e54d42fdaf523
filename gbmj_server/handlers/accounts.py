"""Signing in and out: ``register``, ``login``, ``guest``, ``resume``, ``logout``,
``change_password``, and ``ping``.

Throttles (docs/hosting.md, "Limits"): wrong passwords slow down the (name, address)
pair that tries them, with a doubling wait, and more loosely the address, so an attacker
cannot lock the account's owner out from elsewhere; an unknown name costs the same
password check as a known one, so timing tells nothing; the checks of one address take
their turns, and sign-ins from addresses with no recent wrong password go before new
accounts and the rest (``Guard.hash_in_turn``), so no crowd of slow hashes queues in
front of a player's sign-in. New accounts and guests are limited per address. A
new sign-in ends the account's older connection and makes its older session tokens stop
working. Signing in while seated in a running match puts the player straight back at the
seat (docs/rules.md §2.4).

``housekeeping`` is the periodic part: every ``PURGE_EVERY`` seconds the guests not
seen for ``Limits.guest_keep`` who are neither online nor seated are deleted, so a flood
of guests does not stay in the database for ever.
"""

from __future__ import annotations

import math
import secrets
import time
import unicodedata

import trio

from gbmj_server.handlers.common import signed_in_id
from gbmj_server.names import NameRefused, PasswordRefused, check_password, normalise_name
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.net.guard import Guard
from gbmj_server.nodes.leases import hosted_player
from gbmj_server.nodes.tickets import TicketRefused, read_ticket
from gbmj_server.profiles import profile
from gbmj_server.services import Services
from gbmj_server.storage import Account, NameTaken
from gbmj_server.tables import commands as do
from protocol import messages as m
from protocol.errors import ErrorCode

handlers: Handlers[Services] = Handlers()

GUEST_NAME_TRIES = 10
PURGE_EVERY = 600.0  # seconds between two purges of the guests not seen for a while
_dummy_hash: list[str] = []  # checked against for unknown names (equal timing)


def _signed_out(conn: Connection) -> None:
    if conn.session.account is not None:
        raise RequestError(ErrorCode.NOT_EXPECTED, "already signed in: log out first")


async def _sign_in(
    services: Services, conn: Connection, request: m.Message, account: Account, token: str
) -> None:
    """Answer with the session, then put a seated player back at the table."""
    services.sessions.sign_in(conn, account, token)
    storage = services.store.storage
    conn.session.mutes, conn.session.host_muted = await services.store.call(
        lambda: (storage.mutes_of(account.id), storage.host_muted(account.id))
    )
    mine = await profile(services.store, account.id, account.name, account.is_guest)
    conn.send(m.Session(id=request.id, token=token, profile=mine))
    actor = services.tables.where_seated(account.id)
    if actor is not None:
        await actor.call(do.WelcomeBack(conn))
    elif services.tables.leases is not None:  # seated at another node's table, maybe
        redirect = await services.tables.leases.redirect_seated(account.id, hosted_player(conn))
        if redirect is not None:
            conn.send(redirect)


async def _check_password(services: Services, password_hash: str | None, password: str) -> bool:
    if password_hash is None:
        if not _dummy_hash:
            _dummy_hash.append(await services.store.hash_password(secrets.token_hex(8)))
        await services.store.verify_password(_dummy_hash[0], password)
        return False
    return await services.store.verify_password(password_hash, password)


def _throttled(wait: float) -> RequestError:
    return RequestError(
        ErrorCode.RATE_LIMITED, f"too many failed attempts: try again in {math.ceil(wait)} s"
    )


@handlers.on(m.Ping, signed_out=True)
async def ping(services: Services, conn: Connection, request: m.Ping) -> m.Message:
    return m.Pong()


@handlers.on(m.Register, signed_out=True)
async def register(services: Services, conn: Connection, request: m.Register) -> None:
    _signed_out(conn)
    try:
        name = normalise_name(request.name)
        check_password(request.password)
    except NameRefused as exc:
        raise RequestError(ErrorCode.BAD_NAME, exc.reason) from None
    except PasswordRefused as exc:
        raise RequestError(ErrorCode.OUT_OF_RANGE, exc.reason) from None
    guard = services.guard
    if not guard.per_address(guard.registrations, conn.address, trio.current_time()):
        raise RequestError(ErrorCode.RATE_LIMITED, "too many new accounts from your address")
    password_hash = await guard.hash_in_turn(
        conn.address, lambda: services.store.hash_password(request.password), new_account=True
    )
    storage = services.store.storage
    try:
        account = await services.store.call(storage.create_account, name, password_hash)
    except NameTaken:
        raise RequestError(
            ErrorCode.NAME_TAKEN, f"the name {name!r} (or one like it) is taken"
        ) from None
    token = await services.store.call(storage.create_session, account.id, only=True)
    await _sign_in(services, conn, request, account, token)


@handlers.on(m.Login, signed_out=True)
async def login(services: Services, conn: Connection, request: m.Login) -> None:
    _signed_out(conn)
    guard = services.guard
    name = unicodedata.normalize("NFKC", request.name)
    address = guard.key(conn.address)
    pair = f"{name.casefold()}\0{address}"
    storage = services.store.storage

    async def attempt() -> Account:
        """The waits, the check and its record, in this address's turn."""
        now = trio.current_time()
        wait = max(guard.passwords.wait(pair, now), guard.password_addresses.wait(address, now))
        if wait > 0:
            raise _throttled(wait)
        account = await services.store.call(storage.account_by_name, name)
        stored = None if account is None else account.password_hash
        if not await _check_password(services, stored, request.password) or account is None:
            guard.passwords.failed(pair, now)
            guard.password_addresses.failed(address, now)
            raise RequestError(ErrorCode.BAD_CREDENTIALS, "wrong name or password")
        return account

    account = await guard.hash_in_turn(conn.address, attempt)
    if account.banned:
        raise RequestError(ErrorCode.BAD_CREDENTIALS, "this account is banned")
    guard.passwords.succeeded(pair)
    await services.store.call(storage.note_login, account.id)
    token = await services.store.call(storage.create_session, account.id, only=True)
    await _sign_in(services, conn, request, account, token)


@handlers.on(m.Guest, signed_out=True)
async def guest(services: Services, conn: Connection, request: m.Guest) -> None:
    """A throwaway account with a random name (a requested name is ignored)."""
    _signed_out(conn)
    guard = services.guard
    if not guard.per_address(guard.guests, conn.address, trio.current_time()):
        raise RequestError(ErrorCode.RATE_LIMITED, "too many guests from your address: register")
    storage = services.store.storage
    for _ in range(GUEST_NAME_TRIES):
        try:
            account = await services.store.call(
                storage.create_guest, f"guest-{secrets.token_hex(3)}"
            )
            break
        except NameTaken:
            continue
    else:
        raise RequestError(ErrorCode.SERVER_BUSY, "no guest name is free now: try again")
    token = await services.store.call(storage.create_session, account.id)
    await _sign_in(services, conn, request, account, token)


def _token_turn(services: Services, conn: Connection) -> tuple[Guard, str, float]:
    """A signed-out connection may try a token or ticket now (its address's failures
    throttle it): the guard, the address as the guard counts it, and the time."""
    _signed_out(conn)
    guard, now = services.guard, trio.current_time()
    address = guard.key(conn.address)
    wait = guard.tokens.wait(address, now)
    if wait > 0:
        raise _throttled(wait)
    return guard, address, now


@handlers.on(m.Resume, signed_out=True)
async def resume(services: Services, conn: Connection, request: m.Resume) -> None:
    guard, address, now = _token_turn(services, conn)
    storage = services.store.storage
    account = await services.store.call(storage.resolve_session, request.token)
    if account is None or account.banned:
        guard.tokens.failed(address, now)
        raise RequestError(ErrorCode.BAD_TOKEN, "unknown or expired session")
    await services.store.call(storage.note_login, account.id)  # a guest seen is kept
    await _sign_in(services, conn, request, account, request.token)


@handlers.on(m.RedeemTicket, signed_out=True)
async def redeem_ticket(services: Services, conn: Connection, request: m.RedeemTicket) -> None:
    """Sign in with the ticket of another node's redirect (``gbmj_server.nodes.tickets``):
    signed by the nodes' key, not run out, not used before."""
    guard, address, now = _token_turn(services, conn)
    leases = services.tables.leases
    if leases is None or leases.ticket_key is None:
        raise RequestError(ErrorCode.BAD_TOKEN, "this server takes no tickets: sign in")
    storage = services.store.storage
    try:
        ticket = read_ticket(leases.ticket_key, request.ticket, time.time())
        if not await services.store.call(storage.use_ticket, ticket.nonce, ticket.expires_at):
            raise TicketRefused("the ticket was used already: sign in")
        account = await services.store.call(storage.account_by_id, ticket.account_id)
        if account is None or account.banned:
            raise TicketRefused("no such account")
    except TicketRefused as exc:
        guard.tokens.failed(address, now)
        raise RequestError(ErrorCode.BAD_TOKEN, str(exc)) from None
    token = await services.store.call(storage.create_session, account.id)
    await services.store.call(storage.note_login, account.id)
    await _sign_in(services, conn, request, account, token)


@handlers.on(m.Logout)
async def logout(services: Services, conn: Connection, request: m.Logout) -> m.Message:
    """End the session; seated in a running match, that is an escape."""
    actor = services.tables.at(conn)
    if actor is not None:
        await actor.call(do.Leave(conn))
    if conn.session.token is not None:
        await services.store.call(services.store.storage.delete_session, conn.session.token)
    services.lobby.unwatch(conn)
    services.sessions.sign_out(conn)
    return m.Ok()


@handlers.on(m.ChangePassword)
async def change_password(
    services: Services, conn: Connection, request: m.ChangePassword
) -> m.Message:
    account_id = signed_in_id(conn)
    guard, now = services.guard, trio.current_time()
    pair = f"#{account_id}\0{guard.key(conn.address)}"
    wait = guard.passwords.wait(pair, now)
    if wait > 0:
        raise _throttled(wait)
    try:
        check_password(request.new)
    except PasswordRefused as exc:
        raise RequestError(ErrorCode.OUT_OF_RANGE, exc.reason) from None
    storage = services.store.storage
    account = await services.store.call(storage.account_by_id, account_id)
    if account is None or account.password_hash is None:
        raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests have no password: register")
    old_hash = account.password_hash

    async def rehash() -> str:
        if not await services.store.verify_password(old_hash, request.old):
            guard.passwords.failed(pair, now)
            raise RequestError(ErrorCode.BAD_CREDENTIALS, "the old password is wrong")
        return await services.store.hash_password(request.new)

    new_hash = await guard.hash_in_turn(conn.address, rehash)
    await services.store.call(storage.set_password_hash, account.name, new_hash)
    token = await services.store.call(storage.create_session, account.id, only=True)
    conn.session.token = token
    mine = await profile(services.store, account.id, account.name, False)
    return m.Session(token=token, profile=mine)


# -- the periodic part ---------------------------------------------------------------------


async def housekeeping(services: Services) -> None:
    """Purge the guests long gone, for ever."""
    while True:
        await trio.sleep(PURGE_EVERY)
        await purge_guests(services)


async def purge_guests(services: Services) -> int:
    """Delete the guests not seen for ``guest_keep`` seconds who are neither online nor
    seated; how many."""
    keep = {
        c.session.account_id
        for c in services.sessions.connections
        if c.session.account_id is not None
    }
    keep |= set(services.tables.seated())
    seen_before = time.time() - services.config.limits.guest_keep
    return await services.store.call(services.store.storage.purge_guests, seen_before, keep)
