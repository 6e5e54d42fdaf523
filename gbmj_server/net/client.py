"""One connected client: its bounded outbox and who it is."""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING, Any

import trio

from gbmj_server.net.wire import ProtocolError, encode
from gbmj_server.storage import Account

if TYPE_CHECKING:
    from gbmj_server.net.lobby import Table

log = logging.getLogger(__name__)

OUTBOX_SIZE = 256  # messages; a client this far behind is not reading: drop it
_ids = itertools.count(1)


class Client:
    """A connection. ``send`` never blocks: a full outbox disconnects the client, so a
    client that stops reading can never slow a table down."""

    def __init__(self, address: str, outbox_size: int = OUTBOX_SIZE) -> None:
        self.id = next(_ids)
        self.address = address
        # Frames, encoded once by the sender (a broadcast encodes once for everyone).
        self.outbox_send, self.outbox_receive = trio.open_memory_channel[bytes](outbox_size)
        self.cancel_scope = trio.CancelScope()
        self.account: Account | None = None
        self.token: str | None = None
        self.table: Table | None = None  # the table it sits at or watches
        self.closed = False
        self.close_reason = ""
        self.errors = 0  # protocol errors so far; repeated abuse closes the connection

    def __repr__(self) -> str:
        who = self.account.name if self.account else "-"
        return f"<Client {self.id} {who} {self.address}>"

    @property
    def name(self) -> str:
        return self.account.name if self.account else ""

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message map (checked against the protocol's catalog)."""
        if self.closed:
            return
        try:
            frame = encode(message)
        except ProtocolError:
            log.exception("%r: server built a bad %r message", self, message.get("type"))
            return
        self.send_frame(frame)

    def send_frame(self, frame: bytes) -> None:
        """Queue an encoded frame; a full outbox disconnects the client."""
        if self.closed:
            return
        try:
            self.outbox_send.send_nowait(frame)
        except trio.WouldBlock:
            log.info("%r: outbox full, disconnecting", self)
            self.close("outbox full")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.close("gone")

    def close(self, reason: str, *, flush: bool = False) -> None:
        """End the connection (its handler cleans up). With ``flush``, what is already
        in the outbox is still written (a last error or notice), for a second at most."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        if flush:
            self.outbox_send.close()  # the writer drains the outbox, then ends it all
            self.cancel_scope.deadline = min(self.cancel_scope.deadline, trio.current_time() + 1)
        else:
            self.cancel_scope.cancel()
