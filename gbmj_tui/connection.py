"""The client's connection: an asyncio TCP stream speaking the protocol's frames.

``Connection.open`` connects and does the ``hello``/``welcome`` handshake. Then
``run(on_message)`` reads frames until the connection ends, answering each pending
``request`` with its reply (matched by ``id``) and handing every other message (pushes:
events, prompts, table updates, chat) to ``on_message``. The session
(gbmj_tui.session) runs ``run`` in a Textual worker. Every way the network can fail
ends here as ``ConnectError`` (or the end of ``run``): a reset socket is a dropped
connection, never a crash. This is the one place that opens a socket, so a TLS layer
goes here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable

from gbmj_tui.i18n import N_, tr
from gbmj_tui.words import ERRORS
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode, encode_map

CLIENT_NAME = "gbmj/0.1.0"
CONNECT_TIMEOUT = 5.0
REQUEST_TIMEOUT = 15.0
READ_SIZE = 65536


class ConnectError(Exception):
    """Could not reach or talk to the server; ``text(lang)`` says why, for the player."""

    def __init__(self, reason: str, **values: object) -> None:
        super().__init__(reason.format(**values))
        self.reason = reason  # a catalog msgid
        self.values = values

    def text(self, lang: str) -> str:
        return tr(self.reason, lang).format(**self.values)


class RequestFailed(Exception):
    """The server answered a request with ``error``."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(error.message)
        self.code = error.code
        self.error = error


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

    # -- opening ----------------------------------------------------------------------------
    @classmethod
    async def open(cls, host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> Connection:
        """Connect and shake hands; ``ConnectError`` with a readable reason otherwise."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        except TimeoutError:
            raise ConnectError(N_("no answer from {address}"), address=f"{host}:{port}") from None
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
        try:
            await conn._handshake(timeout)
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _handshake(self, timeout: float) -> None:
        await self.send(m.Hello(version=m.PROTOCOL_VERSION, client=CLIENT_NAME))
        try:
            reply = await asyncio.wait_for(self._read_one(), timeout)
        except TimeoutError:
            raise ConnectError(N_("the server did not answer the handshake")) from None
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
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
