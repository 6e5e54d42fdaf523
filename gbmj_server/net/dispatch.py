"""The dispatcher: each typed request to its handler, each answer back with its ``id``.

Handlers are plain async functions ``handler(services, connection, request)`` that
return the typed reply (or None when they answer otherwise) and raise ``RequestError``
to refuse. Each domain registers its own in a ``Handlers`` table (``@handlers.on(m.Sit)``,
``gbmj_server.net.handlers``). Every reply to a request, error or not, echoes its
``id``; a handler bug is logged and answered ``internal``, and ends nothing else.

Each request spends tokens of its connection's bucket (``Limits.request_rate`` a
second, ``request_burst`` saved up): one, or what ``COSTS`` says for the requests whose
answer is costly to build (a page of 60 tables takes as long to encode as dozens of
small answers). The first answer to the prompt last sent spends none: the server's own
prompts pace it, so a player who answers at once is never refused (docs/hosting.md,
"Limits"); what a client sends unprompted is what the bucket throttles. A refused request
and every bad frame count towards ``MAX_ERRORS``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import trio

from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.net.guard import Guard
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError

log = logging.getLogger(__name__)

SERVER_NAME = "gbmj-server/0.2"
MAX_ERRORS = 50  # bad frames and unknown requests before a connection is closed as abusive
# Tokens a costly request spends (others: 1). At the default rate a client lists the
# tables twice a second, with a burst of six: plenty for a person paging through them.
COSTS: dict[type[m.Message], int] = {
    m.ListTables: 10,
    m.WatchLobby: 10,
    m.GetLeaderboard: 5,
    m.ListMatches: 5,
    m.GetMatch: 5,
    m.GetHand: 5,
}


class Context(Protocol):
    """What the dispatcher itself needs of the services handed to every handler (the
    server's ``Services``, which sits above this layer)."""

    @property
    def guard(self) -> Guard: ...


SIGN_INS = (m.Login, m.Register, m.Guest, m.Resume)

R = TypeVar("R", bound=m.Message)
S = TypeVar("S", bound=Context)
Handler = Callable[[S, Connection, Any], Awaitable[m.Message | None]]


@dataclass(frozen=True, slots=True)
class Entry(Generic[S]):
    handler: Handler[S]
    signed_out: bool  # may be sent before signing in


class Handlers(Generic[S]):
    """Request handlers by message class."""

    def __init__(self) -> None:
        self.entries: dict[type[m.Message], Entry[S]] = {}

    def on(
        self, request: type[R], *, signed_out: bool = False
    ) -> Callable[[Callable[[S, Connection, R], Awaitable[m.Message | None]]], Handler[S]]:
        def register(
            fn: Callable[[S, Connection, R], Awaitable[m.Message | None]],
        ) -> Handler[S]:
            if request in self.entries:
                raise ValueError(f"two handlers for {request.TAG}")
            self.entries[request] = Entry(fn, signed_out)
            return fn

        return register

    def merged(self, *others: Handlers[S]) -> Handlers[S]:
        out: Handlers[S] = Handlers()
        for table in (self, *others):
            for request, entry in table.entries.items():
                if request in out.entries:
                    raise ValueError(f"two handlers for {request.TAG}")
                out.entries[request] = entry
        return out


class Dispatcher(Generic[S]):
    def __init__(self, services: S, handlers: Handlers[S]) -> None:
        self.services = services
        self.entries = handlers.entries

    async def dispatch(self, conn: Connection, message: m.Message) -> None:
        if not conn.greeted:
            self._hello(conn, message)
            return
        entry = self.entries.get(type(message))
        try:
            if entry is None:
                self.abuse(conn)
                raise RequestError(ErrorCode.NOT_EXPECTED, f"a client does not send {message.TAG}")
            if conn.session.account is None and not entry.signed_out:
                raise RequestError(ErrorCode.NOT_LOGGED_IN, "sign in first")
            cost = COSTS.get(type(message), 1)
            if not conn.answers_prompt(message) and not self.services.guard.request(
                conn.id, trio.current_time(), cost
            ):
                self.abuse(conn)
                raise RequestError(ErrorCode.RATE_LIMITED, "too many requests: slow down")
            reply = await entry.handler(self.services, conn, message)
        except RequestError as exc:
            reply = m.Error(code=exc.code, message=exc.message[:500])
            self._refused(conn, message, exc.code)
        except Exception:
            log.exception("%r: the %s handler failed (id %s)", conn, message.TAG, message.id)
            reply = m.Error(
                code=ErrorCode.INTERNAL, message="internal server error; the request had no effect"
            )
        if reply is not None:
            conn.send(dataclasses.replace(reply, id=message.id))

    @staticmethod
    def _refused(conn: Connection, message: m.Message, code: ErrorCode) -> None:
        # A failed sign-in is what a host looks for; other refusals only when debugging
        # (a refused flood must not become a flood of lines).
        sign_in = isinstance(message, SIGN_INS)
        logs.event(
            "sign_in_failed" if sign_in else "request_refused",
            level=logging.INFO if sign_in else logging.DEBUG,
            connection=conn.id,
            account=conn.session.account_id,
            address=conn.address,
            request=message.TAG,
            code=code.value,
        )

    async def bad_frame(self, conn: Connection, exc: ProtocolError) -> None:
        if not conn.greeted:  # no gbmj client starts so (a PROXY header not asked for)
            conn.refuse(exc.code, f"say hello first ({str(exc)[:400]})", exc.request_id)
            return
        conn.send(m.Error(id=exc.request_id, code=exc.code, message=str(exc)[:500]))
        self.abuse(conn)

    def abuse(self, conn: Connection) -> None:
        conn.errors += 1
        if conn.errors >= MAX_ERRORS:
            conn.refuse(ErrorCode.RATE_LIMITED, "too many bad messages: goodbye")

    def _hello(self, conn: Connection, message: m.Message) -> None:
        if not isinstance(message, m.Hello):
            conn.refuse(ErrorCode.NOT_EXPECTED, "say hello first", message.id)
        elif message.version != m.PROTOCOL_VERSION:
            conn.refuse(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {m.PROTOCOL_VERSION}",
                message.id,
            )
        elif conn.door or message.door is not None:
            self._door_hello(conn, message)
        else:
            self._welcome(conn, message)

    def _door_hello(self, conn: Connection, message: m.Hello) -> None:
        """A client of the server's own front door names its player with the session's
        pass (``gbmj_server.net.peers``): only on the doors' listener, and only a pass of
        a session still running; a client of a door on another machine, on the game
        port, with a pass signed by the host's door secret."""
        guard = self.services.guard
        address = None
        if message.door is not None and conn.door:
            address = guard.doors.address_of(message.door)
        elif message.door is not None and guard.remote_doors is not None:
            address = guard.remote_doors.address_of(message.door)
        if address is None:
            logs.event("door_pass_refused", connection=conn.id, address=conn.address)
            conn.refuse(ErrorCode.BAD_TOKEN, "no such front door session", message.id)
            return
        refused = guard.readdress(conn, address)
        if refused is not None:
            conn.refuse(ErrorCode.SERVER_BUSY, refused, message.id)
            return
        conn.hosted = True
        logs.event("door_connection", connection=conn.id, address=address)
        self._welcome(conn, message)

    @staticmethod
    def _welcome(conn: Connection, message: m.Message) -> None:
        conn.greeted = True
        conn.send(m.Welcome(id=message.id, version=m.PROTOCOL_VERSION, server=SERVER_NAME))
