"""One client connection: its reader, its writer, its outbox, and the player's session.

The reader turns bytes into typed messages (``protocol.framing``) and hands each to the
dispatcher, one at a time: a connection's requests are answered in order. The writer
sends whatever the outbox holds in one write. ``send`` never blocks; a full outbox
drops the connection (``Outbox``). Deadlines guard the reader: ``hello`` must come soon,
a session soon after (and again after signing out), and a frame once begun must arrive
whole in time; a peer that misses one is told why and closed. What the connection holds
in its buffers (a frame arriving, frames unsent) is reported to the server's budget
(``gbmj_server.net.budget.Buffers``), which drops the connection holding longest when
all of them together hold too much.

Who the player is and where (``session``: account, token, table) lives in its own
object beside the transport (``gbmj_server.net.session``).
"""

from __future__ import annotations

import itertools
import logging
import math
import os
from collections.abc import Awaitable, Callable

import trio

from gbmj_server import metrics
from gbmj_server.config import Limits
from gbmj_server.net.budget import Buffers
from gbmj_server.net.outbox import Outbox
from gbmj_server.net.session import Session
from protocol import messages as m
from protocol.errors import ErrorCode, ProtocolError
from protocol.framing import FrameDecoder, encode

log = logging.getLogger(__name__)

READ_SIZE = 65536
FREE_OUTBOX = 64 * 1024  # bytes queued for a client that the budget does not count
FLUSH_GRACE = 1.0  # seconds a closing connection gets to send its last words
# Check every outgoing message against the catalog (tests, and GBMJ_CHECK=1 to debug): the
# hot path trusts the server's own builders, whose shapes the tests hold to the schema.
CHECK_OUTGOING = os.environ.get("GBMJ_CHECK") == "1"
_ids = itertools.count(1)


Dispatch = Callable[["Connection", m.Message], Awaitable[None]]
BadFrame = Callable[["Connection", ProtocolError], Awaitable[None]]


class Connection:
    def __init__(self, address: str, limits: Limits, *, door: bool = False) -> None:
        self.id = next(_ids)
        self.address = address  # the player's (gbmj_server.net.peers)
        self.door = door  # from a session of the server's own SSH or web door
        self.hosted = False  # a front door's client, its player named by the door's pass
        self.limits = limits
        self.outbox = Outbox(limits.outbox_frames, limits.outbox_bytes)
        self.decoder = FrameDecoder()
        self.buffers: Buffers | None = None  # the server's budget (set on admission)
        self._writing = 0  # bytes of the write in progress
        self._transport = 0  # bytes the transport (TLS) holds of what is arriving
        self.opened = trio.current_time()
        # The prompt last sent, (table, seq): its answer is not counted as a request.
        self.open_prompt: tuple[int, int] | None = None
        self.cancel_scope = trio.CancelScope()
        self.greeted = False
        self.session = Session()  # the player on this connection
        self.closed = False
        self.close_reason = ""
        self.errors = 0  # bad frames and refused requests so far

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.session.name or '-'} {self.address}>"

    # -- sending -------------------------------------------------------------------
    def send(self, message: m.Message) -> None:
        """Queue a message (checked against the catalog only when ``CHECK_OUTGOING``)."""
        if self.closed:
            return
        try:
            frame = encode(message, check=CHECK_OUTGOING)
        except ProtocolError:
            log.exception("%r: the server built a bad %s message", self, message.TAG)
            return
        if isinstance(message, m.Error):
            metrics.error_sent(message.code)
        self.send_frame(frame)

    def send_prompt(self, table_id: int, seq: int, frame: bytes) -> None:
        """Queue a prompt's frame: the answer to it is paced by the server, not the client."""
        self.open_prompt = (table_id, seq)
        self.send_frame(frame)

    def answers_prompt(self, message: m.Message) -> bool:
        """``message`` is the first answer to the prompt last sent (which it closes)."""
        if (
            isinstance(message, m.Action)
            and self.open_prompt is not None
            and self.open_prompt == (message.table_id, message.seq)
        ):
            self.open_prompt = None
            return True
        return False

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame (encoded once for everyone who gets the same bytes)."""
        if self.closed:
            return
        if not self.outbox.put(frame):
            log.info("%r: outbox full (%d bytes), dropped", self, self.outbox.queued_bytes)
            metrics.outbox_dropped()
            self.close("outbox full")
        elif self.outbox.queued_bytes + self._writing > FREE_OUTBOX:
            self._held()

    def _held(self) -> None:
        """Tell the budget what this connection holds: a frame arriving (and what its
        transport holds of it), and what its client leaves unread beyond
        ``FREE_OUTBOX`` (the moment's traffic costs nothing)."""
        if self.buffers is not None and not self.closed:
            unread = self.outbox.queued_bytes + self._writing - FREE_OUTBOX
            arriving = self.decoder.buffered + self._transport
            self.buffers.update(self, arriving + max(0, unread))

    def transport_holds(self, held: int) -> None:
        """The transport under the frames (TLS) holds ``held`` bytes of what arrives."""
        if held != self._transport:
            self._transport = held
            self._held()

    def close(self, reason: str, *, flush: bool = False) -> None:
        """End the connection. With ``flush`` what is queued (a last error or notice) is
        still written, for ``FLUSH_GRACE`` seconds at most."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        if self.buffers is not None:
            self.buffers.forget(self)
        if flush:
            self.outbox.close()
            self.cancel_scope.deadline = min(
                self.cancel_scope.deadline, trio.current_time() + FLUSH_GRACE
            )
        else:
            self.cancel_scope.cancel()

    def refuse(self, code: ErrorCode, text: str, request_id: int | None = None) -> None:
        """Tell the peer why, and close."""
        self.send(m.Error(id=request_id, code=code, message=text))
        self.close(code.value, flush=True)

    # -- serving -------------------------------------------------------------------
    async def serve(
        self,
        stream: trio.abc.Stream,
        dispatch: Dispatch,
        bad_frame: BadFrame,
        opening: Callable[[], Awaitable[trio.abc.Stream | None]] | None = None,
    ) -> None:
        """Read and write until either side ends the connection. ``opening`` (TLS) first
        makes the stream the frames travel in over ``stream``, by the ``hello``
        deadline (None: it could not)."""
        with self.cancel_scope:
            if opening is not None:
                opened = None
                with trio.move_on_at(self.opened + self.limits.hello_timeout):
                    opened = await opening()
                if opened is None:
                    self.closed = True
                    self.close_reason = self.close_reason or "no TLS handshake in time"
                    return
                stream = opened
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, stream)
                    await self._reader(stream, dispatch, bad_frame)
                    if not self.closed:  # the peer went away: stop writing too
                        self.closed = True
                        self.close_reason = self.close_reason or "closed by the client"
                        nursery.cancel_scope.cancel()
            finally:
                # Freed now: the frames that served the connection may outlive it.
                self.decoder = FrameDecoder()
                self.outbox.discard()

    async def _writer(self, stream: trio.abc.Stream) -> None:
        while data := await self.outbox.take():
            self._writing = len(data)
            await stream.send_all(data)
            self._writing = 0
            self._held()
        self.cancel_scope.cancel()  # the outbox was closed and is sent: the end

    async def _reader(self, stream: trio.abc.Stream, dispatch: Dispatch, bad: BadFrame) -> None:
        opened = self.opened
        greeted_at = math.inf
        frame_began = math.inf
        limits = self.limits
        signed_in = False
        while not self.closed:
            if signed_in and self.session.account is None:  # signed out: a new sign-in is due
                greeted_at = trio.current_time()
            signed_in = self.session.account is not None
            if not self.greeted:
                deadline, why = opened + limits.hello_timeout, "no hello in time"
            elif self.session.account is None:
                deadline, why = greeted_at + limits.sign_in_timeout, "no sign-in in time"
            else:
                deadline, why = math.inf, ""
            if frame_began + limits.frame_timeout < deadline:
                deadline, why = frame_began + limits.frame_timeout, "a frame took too long"
            with trio.move_on_at(deadline) as timer:
                data = await stream.receive_some(READ_SIZE)
            if timer.cancelled_caught:
                self.refuse(ErrorCode.NOT_EXPECTED, why)
                return
            if not data:
                return
            was_greeted = self.greeted
            # The decoder and the bytes are not kept in this frame across reads: a frame
            # that ends the connection by an exception may outlive it (serve's end).
            self.decoder.receive_data(data)
            del data
            framed = False  # a frame ended in these bytes: the next one begins now
            while not self.closed:
                try:
                    message = self.decoder.next_message()
                except ProtocolError as exc:
                    framed = True
                    await bad(self, exc)
                    continue
                if message is None:
                    break
                framed = True
                await dispatch(self, message)
            if self.greeted and not was_greeted:
                greeted_at = trio.current_time()
            if not self.decoder.in_frame:
                frame_began = math.inf
            elif framed or math.isinf(frame_began):
                frame_began = trio.current_time()
            self._held()
