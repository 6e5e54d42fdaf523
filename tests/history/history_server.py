"""A loopback server answering the history requests from a real ``Storage`` over real
TCP and msgpack frames, for the export tool's tests: ``hello``, ``login``, ``guest``,
``get_match``, ``get_hand`` and nothing else.

It stands in for the lobby server's history handlers, which are written beside the
server's rewrite; it builds each reply from the storage's dataclasses field by field
(``to_*``), as a handler does, and asks ``may_read`` before answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections.abc import Iterator
from dataclasses import replace

from gbmj_server.storage import Storage, verify_password
from gbmj_server.storage import history as h
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.framing import FrameDecoder, encode

SERVER_NAME = "gbmj-server/0.1.0"


def to_summary(s: h.MatchSummary) -> m.MatchSummary:
    return m.MatchSummary(
        match_id=s.match_id,
        table_name=s.table_name,
        started_at=s.started_at,
        ended_at=s.ended_at,
        reason=s.reason,
        players=s.players,
        hands=s.hands,
        public=s.public,
        rank=s.rank,
        points=s.points,
        coins=s.coins,
    )


def to_detail(d: h.MatchDetail) -> m.MatchDetail:
    return m.MatchDetail(
        match=to_summary(d.match),
        hands=tuple(
            m.HandSummary(
                hand_id=x.hand_id,
                number=x.number,
                round_number=x.round_number,
                hand_number=x.hand_number,
                outcome=x.outcome,
                winner=x.winner,
                total=x.total,
                points=x.points,
                players=x.players,
            )
            for x in d.hands
        ),
        standings=None
        if d.standings is None
        else tuple(
            m.Standing(
                name=s.name,
                bot=s.bot,
                seat=s.seat,
                rank=s.rank,
                points=s.points,
                coins=s.coins,
                left=s.left,
            )
            for s in d.standings
        ),
    )


def to_hand_log(x: h.HandLog) -> m.HandLog:
    return m.HandLog(
        hand_id=x.hand_id,
        match_id=x.match_id,
        number=x.number,
        round_number=x.round_number,
        hand_number=x.hand_number,
        prevailing_wind=x.prevailing_wind,
        dealer=x.dealer,
        dice=x.dice,
        wall_order=x.wall_order,
        salt=x.salt,
        commitment=x.commitment,
        players=x.players,
        actions=tuple(
            m.LoggedAction(seat=a.seat, kind=a.kind, tile=a.tile, ms=a.ms) for a in x.actions
        ),
        escape=x.escape,
        points=x.points,
        coins=x.coins,
    )


class HistoryServer:
    def __init__(self, store: Storage) -> None:
        self.store = store
        self.port = 0

    def answer(self, request: m.Message, account_id: int | None) -> tuple[m.Message, int | None]:
        store = self.store
        refused = m.Error(code=ErrorCode.NO_SUCH_MATCH, message="no such match")
        if isinstance(request, m.Hello):
            return m.Welcome(version=m.PROTOCOL_VERSION, server=SERVER_NAME), account_id
        if isinstance(request, m.Login | m.Guest):
            if isinstance(request, m.Login):
                account = store.account_by_name(request.name)
                if account is None or not verify_password(
                    account.password_hash or "", request.password
                ):
                    return m.Error(
                        code=ErrorCode.BAD_CREDENTIALS, message="wrong name or password"
                    ), None
            else:
                account = store.create_guest(f"guest-{secrets.token_hex(3)}")
            profile = m.Profile(
                name=account.name, guest=account.is_guest, coins=0, rating=0, level=1
            )
            return m.Session(token=secrets.token_urlsafe(24), profile=profile), account.id
        if isinstance(request, m.GetMatch):
            detail = store.match_detail(request.match_id, account_id)
            if detail is None or not store.may_read(account_id, request.match_id):
                return refused, account_id
            return to_detail(detail), account_id
        if isinstance(request, m.GetHand):
            log = store.hand_log(request.hand_id)
            if log is None or not store.may_read_hand(account_id, request.hand_id):
                return refused, account_id
            return to_hand_log(log), account_id
        return m.Error(code=ErrorCode.NOT_EXPECTED, message=request.type), account_id

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        account_id: int | None = None
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                decoder.receive_data(data)
                while (request := decoder.next_message()) is not None:
                    reply, account_id = self.answer(request, account_id)
                    writer.write(encode(replace(reply, id=request.id)))
                await writer.drain()
        writer.close()


@contextlib.contextmanager
def history_server(store: Storage) -> Iterator[int]:
    """The server on a free loopback port (yielded), in a thread of its own, while the
    block runs: the tools under test run their own event loop."""
    server = HistoryServer(store)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()

    async def serve() -> None:
        listener = await asyncio.start_server(server._client, "127.0.0.1", 0)
        server.port = listener.sockets[0].getsockname()[1]
        started.set()
        async with listener:
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield server.port
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()
