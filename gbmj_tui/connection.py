"""The client's connection: an asyncio TCP stream speaking the protocol's frames.

``Connection.open`` connects and does the ``hello``/``welcome`` handshake. Then
``run(on_message)`` reads frames until the connection ends, answering each pending
``request`` with its reply (matched by ``id``) and handing every other message (pushes:
events, prompts, table updates, chat) to ``on_message``. The session
(gbmj_tui.session) runs ``run`` in a Textual worker. Every way the network can fail
ends here as ``ConnectError`` (or the end of ``run``): a reset socket is a dropped
connection, never a crash.

This is the one place that opens a socket: TLS by default, the server's certificate
pinned on first use (gbmj_tui.pinning, ``TlsPolicy``); a changed certificate or a
server without TLS is ``ConnectRefused``, which trying again cannot mend.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from gbmj_tui.config import Options
from gbmj_tui.errors import ConnectError, ConnectRefused, RequestFailed
from gbmj_tui.i18n import N_
from gbmj_tui.pinning import KNOWN_SERVERS_NAME, Pin, TlsRefused, open_server
from gbmj_tui.words import ERRORS
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode, encode_map

CLIENT_NAME = "gbmj/0.1.0"
CONNECT_TIMEOUT = 5.0
REQUEST_TIMEOUT = 15.0
CLOSE_TIMEOUT = 2.0
READ_SIZE = 65536


@dataclass(frozen=True, slots=True)
class TlsPolicy:
    """How a connection is made safe: TLS with the certificate pinned on first use in
    ``known_servers`` (None: the file beside the client's settings), or required to be
    ``expect`` (a hosted client, told the fingerprint by its front door: nothing
    pinned); plain TCP with ``insecure`` (a server of one's own on loopback, or a front
    door's own listener, where the client names its player with the door's pass)."""

    insecure: bool = False
    known_servers: Path | None = None
    expect: str | None = None
    door: str | None = None
    hosted: bool = False  # started by a front door: nothing pinned, no other server

    def to_node(self, redirect: m.Redirect) -> TlsPolicy:
        """How to reach the node a ``redirect`` names: a hosted client, which pins
        nothing, takes the node's certificate and its pass there from the redirect (the
        node that sent it is one the client already trusts); any other client keeps its
        own way (it pins each node on first use), and names no player with a pass."""
        if not self.hosted:
            return replace(self, door=None)
        fingerprint = redirect.fingerprint
        return replace(self, insecure=fingerprint is None, expect=fingerprint, door=redirect.door)

    @classmethod
    def of(cls, options: Options, insecure: bool = False) -> TlsPolicy:
        """How the client started says: plain TCP if the player (``insecure``), the
        command line or the front door asks; else TLS, pinned beside the settings, or
        checked against the fingerprint the front door gave. A hosted client keeps no
        pins: without a fingerprint from its front door it does not connect."""
        if options.hosted and not (options.insecure or options.expect):
            raise ConnectError(N_("the host gave no certificate fingerprint for its game port"))
        where = options.config_path
        known = None if where is None else where.parent / KNOWN_SERVERS_NAME
        insecure = insecure or options.insecure
        return cls(insecure, known, options.expect, options.door, options.hosted)


class Connection:
    """One connection to a gbmj server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._decoder = FrameDecoder()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[m.Message]] = {}
        self.server = ""
        self.closed = False
        self.pin: Pin | None = None  # the certificate checked (None: plain TCP)

    # -- opening ----------------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        timeout: float = CONNECT_TIMEOUT,
        tls: TlsPolicy = TlsPolicy(),
    ) -> Connection:
        """Connect (``tls`` says how) and shake hands; ``ConnectError`` with a readable
        reason otherwise, ``ConnectRefused`` when the connection is not safe."""
        opening = open_server(
            host, port, insecure=tls.insecure, known_servers=tls.known_servers, expect=tls.expect
        )
        try:
            reader, writer, pin = await asyncio.wait_for(opening, timeout)
        except TimeoutError:
            raise ConnectError(N_("no answer from {address}"), address=f"{host}:{port}") from None
        except TlsRefused as exc:  # a changed certificate, no TLS: the player must act
            raise ConnectRefused(exc.reason, **exc.values) from None
        except ConnectionRefusedError:
            raise ConnectError(
                N_("cannot connect to {address}: connection refused (is the server running?)"),
                address=f"{host}:{port}",
            ) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ConnectError(
                N_("cannot connect to {address}: {reason}"), address=f"{host}:{port}", reason=reason
            ) from None
        conn = cls(reader, writer)
        conn.pin = pin
        try:
            await conn._handshake(timeout, tls.door)
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _handshake(self, timeout: float, door: str | None = None) -> None:
        await self.send(m.Hello(version=m.PROTOCOL_VERSION, client=CLIENT_NAME, door=door))
        try:
            reply = await asyncio.wait_for(self._read_one(), timeout)
        except TimeoutError:
            raise ConnectError(N_("the server did not answer the handshake")) from None
        except ConnectError:
            if self.pin is None:  # plain TCP to a TLS port: the server hangs up at once
                raise ConnectError(
                    N_(
                        "the server closed the connection: if it serves TLS, connect "
                        "without --insecure"
                    )
                ) from None
            raise
        if isinstance(reply, m.Error):  # a version it does not speak, or it is full
            raise ConnectError(ERRORS.get(reply.code, N_("the server refused the connection")))
        if not isinstance(reply, m.Welcome):
            raise ConnectError(N_("not a gbmj server (it sent {type})"), type=reply.type)
        if reply.version != m.PROTOCOL_VERSION:
            raise ConnectError(
                N_("version mismatch: the server speaks {server}, this client {client}"),
                server=reply.version,
                client=m.PROTOCOL_VERSION,
            )
        self.server = reply.server

    async def _read_one(self) -> m.Message:
        while True:
            message = self._decoder.next_message()
            if message is not None:
                return message
            data = await self._reader.read(READ_SIZE)
            if not data:
                raise ConnectError(N_("the server closed the connection"))
            self._decoder.receive_data(data)

    # -- sending --------------------------------------------------------------------------
    async def send(self, message: m.Message) -> None:
        """Send one message (checked by the codec before it reaches the wire)."""
        await self._write(encode(message))

    async def _write(self, frame: bytes) -> None:
        if self.closed:
            raise ConnectError(N_("not connected"))
        try:
            self._writer.write(frame)
            await self._writer.drain()
        except OSError:  # reset or broken under us: the reader sees the end too
            self.closed = True
            raise ConnectError(N_("the connection was closed")) from None

    async def request(self, message: m.Message, timeout: float = REQUEST_TIMEOUT) -> m.Message:
        """Send a request and wait for its reply; ``RequestFailed`` for an ``error``.

        ``run`` must be reading for the reply to arrive.
        """
        request_id = next(self._ids)
        future: asyncio.Future[m.Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            wire = message.to_wire()  # the catalog's checks, then the request's id
            wire["id"] = request_id
            await self._write(encode_map(wire, message.type))
            reply = await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(request_id, None)
        if isinstance(reply, m.Error):
            raise RequestFailed(reply)
        return reply

    # -- reading --------------------------------------------------------------------------
    async def run(self, on_message: Callable[[m.Message], None]) -> None:
        """Read until the connection ends; replies resolve requests, the rest go on."""
        try:
            while True:
                try:
                    data = await self._reader.read(READ_SIZE)
                except OSError:  # reset by the peer (or the network): the end
                    break
                if not data:
                    break
                self._decoder.receive_data(data)
                while True:
                    try:
                        message = self._decoder.next_message()
                    except ProtocolError:
                        continue  # a bad frame from the server: skip it, stay in step
                    if message is None:
                        break
                    self._deliver(message, on_message)
        finally:
            self.closed = True
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectError(N_("the connection was closed")))

    def _deliver(self, message: m.Message, on_message: Callable[[m.Message], None]) -> None:
        future = self._pending.get(message.id) if message.id is not None else None
        if future is not None and not future.done():
            future.set_result(message)
        else:
            on_message(message)

    async def close(self) -> None:
        self.closed = True
        self._writer.close()
        with contextlib.suppress(Exception):  # TLS waits for the peer's goodbye: not forever
            await asyncio.wait_for(self._writer.wait_closed(), CLOSE_TIMEOUT)
