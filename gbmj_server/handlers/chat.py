"""Chat and mutes (docs/rules.md §2.11): lines to the lobby or a table; a player mutes
another for themselves, a table's owner for the whole table."""

from __future__ import annotations

import trio

from gbmj_server.handlers.common import at_table, signed_in_id
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Handlers
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.tables import commands as do
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Channel

handlers: Handlers[Services] = Handlers()


@handlers.on(m.ChatSend)
async def chat_send(services: Services, conn: Connection, request: m.ChatSend) -> m.Message:
    sender = signed_in_id(conn)
    text = request.text.strip()
    if not text or not text.isprintable():
        raise RequestError(ErrorCode.OUT_OF_RANGE, f"text: 1-{m.MAX_CHAT} printable characters")
    if conn.session.host_muted:
        raise RequestError(ErrorCode.MUTED, "the host muted you: your lines are not sent")
    guard, now = services.guard, trio.current_time()
    # Per account and per address: fresh guests do not chat faster than one.
    lines = guard.chat  # None: the host allows no chat
    if (
        lines is None
        or not lines.allow(f"#{sender}", now)
        or not guard.per_address(lines, conn.address, now)
    ):
        raise RequestError(ErrorCode.RATE_LIMITED, "you are chatting too fast")
    if request.channel is Channel.TABLE:
        assert request.table_id is not None
        actor = at_table(services, conn, request.table_id)
        await actor.call(do.Chat(conn, text))
    else:
        line = m.Chat(channel=Channel.LOBBY, sender=conn.session.name, text=text)
        services.lobby.chat(line, sender)
    return m.Ok()


@handlers.on(m.Mute)
async def mute(services: Services, conn: Connection, request: m.Mute) -> m.Message:
    me = signed_in_id(conn)
    storage = services.store.storage
    other = await services.store.call(storage.account_by_name, request.name)
    if other is None:
        raise RequestError(ErrorCode.NO_SUCH_PLAYER, f"no player named {request.name!r}")
    if request.table_id is not None:
        actor = at_table(services, conn, request.table_id)
        await actor.call(do.Mute(conn, other.id, request.on))
        return m.Ok()
    if other.id == me:
        raise RequestError(ErrorCode.NOT_EXPECTED, "you cannot mute yourself")
    await services.store.call(storage.set_mute, me, other.id, request.on)
    if request.on:
        conn.session.mutes.add(other.id)
    else:
        conn.session.mutes.discard(other.id)
    return m.Ok()
