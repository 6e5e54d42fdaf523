"""The actor that runs one table: its task is the only code that touches the table.

Connections never call into a ``Table``: they send its actor a command (a value of
``commands``) and wait for the answer (``call``). The task runs commands one at a time, to
the end, awaits included (a database write, the journal), so no action of a player can
slip in between two steps of the table's own. A room with no match hears commands until
it closes; a running match runs in this task (``MatchRunner.run``) and hears them
(``hear``) while it waits for an answer, a deadline or the next hand. After each
command the room is published (``settle_down``). A bug in a command is answered
``internal``; a bug in the match's own steps ends it (``fail``), never the server; the
node's lease lost stops the table where it stands.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
from dataclasses import dataclass, field
from typing import Any, TypeVar

import trio

from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.storage.nodes import LeaseLost
from gbmj_server.tables.commands import Command
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.errors import ErrorCode

log = logging.getLogger(__name__)

INBOX = 64  # commands waiting for a busy table; a sender beyond waits its turn

T = TypeVar("T")


@dataclass(eq=False)
class _Call:
    command: Command[Any]
    reply_to: tuple[Connection, int | None] | None = None  # answer the request from here
    done: trio.Event = field(default_factory=trio.Event)
    result: Any = None
    error: BaseException | None = None


class TableActor:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.id = table.id
        self._send, self._receive = trio.open_memory_channel[_Call](INBOX)

    def __repr__(self) -> str:
        return f"<TableActor {self.id}>"

    async def call(self, command: Command[T]) -> T:
        """Run ``command(table)`` in the table's task and return its answer (awaited);
        its ``RequestError`` is raised here."""
        result: T = await self._queue(_Call(command))
        return result

    async def request(
        self, conn: Connection, request_id: int | None, command: Command[Any]
    ) -> None:
        """Run a request's ``command`` and answer it from the table's task, before the
        table's next steps (a snapshot comes before the prompt that follows it): the
        command's message (``ok`` if None) or its error, with the request's id."""
        with contextlib.suppress(RequestError):  # answered by the table already
            await self._queue(_Call(command, (conn, request_id)))

    async def _queue(self, call: _Call) -> Any:
        try:
            await self._send.send(call)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise RequestError(ErrorCode.NO_SUCH_TABLE, f"table {self.id} has closed") from None
        await call.done.wait()
        if call.error is not None:
            raise call.error
        return call.result

    async def run(self) -> None:
        table = self.table
        try:
            while not table.closed:
                play = table.play
                try:
                    if play is not None:  # a match just started, or resumed: it runs here
                        await play.run(self.hear)
                        if table.play is play:  # (it returns only once it is over)
                            await table.fail()
                    else:
                        await self.hear(table.wake_at())
                except LeaseLost:  # another node runs the match now: it stops as it stands
                    log.warning("table %s: its lease went to another node: stopped", self.id)
                    table.close()
                except Exception:
                    log.exception("table %s: the match failed", self.id)
                    await table.fail()
                table.settle_down()  # (a match over leaves the room to publish, or to close)
        finally:
            self._send.close()
            while True:  # commands that came too late: the table is gone
                try:
                    late = self._receive.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                late.error = RequestError(ErrorCode.NO_SUCH_TABLE, f"table {self.id} has closed")
                if late.reply_to is not None:
                    late.reply_to[0].send(_answer(late, late.reply_to[1]))
                late.done.set()
            self._receive.close()
            table.close()

    async def hear(self, until: float) -> None:
        """Run one command of the inbox, if one comes before ``until`` (trio time): a
        waiting one at once. ``LeaseLost`` if the command found the table's lease gone."""
        try:
            call: _Call | None = self._receive.receive_nowait()
        except trio.WouldBlock:
            call = None
            with trio.move_on_at(until):
                call = await self._receive.receive()
        if call is not None:
            await self._run(call)
        self.table.settle_down()

    async def _run(self, call: _Call) -> None:
        lost = False  # this node's lease on the table went to another node
        try:
            result = call.command(self.table)
            if inspect.isawaitable(result):
                result = await result
            call.result = result
        except RequestError as exc:
            call.error = exc
        except LeaseLost:  # another node runs the match now: the table stops
            lost = True
            call.error = RequestError(
                ErrorCode.NO_SUCH_TABLE, f"table {self.id} moved to another node"
            )
        except Exception:
            log.exception("table %s: a command failed", self.id)
            call.error = RequestError(
                ErrorCode.INTERNAL, "internal server error; the request had no effect"
            )
        finally:
            if call.reply_to is not None:
                conn, request_id = call.reply_to
                conn.send(_answer(call, request_id))
            call.done.set()
        if lost:
            raise LeaseLost(f"table {self.id}")


def _answer(call: _Call, request_id: int | None) -> m.Message:
    if isinstance(call.error, RequestError):
        return m.Error(id=request_id, code=call.error.code, message=call.error.message[:500])
    reply = call.result if isinstance(call.result, m.Message) else m.Ok()
    return dataclasses.replace(reply, id=request_id)
