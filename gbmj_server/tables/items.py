"""Items at the table (docs/rules.md §2.6): the timer extension and the tile counter.

Both run in the table's actor, so using an item and the table's own steps never
interleave: the extension is paid and the deadline moved in one step, and a tile counter
is taken for exactly the hand it starts in.
"""

from __future__ import annotations

import logging

from gbmj.economy.counter import unseen_counts
from gbmj.economy.items import TIMER_EXTENSION_SECONDS, TIMER_EXTENSION_SHARE
from gbmj.game.views import make_view
from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.storage import LedgerError, NoSuchItem, Payment
from gbmj_server.tables.settle import send_profiles
from gbmj_server.tables.state import MatchState
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.vocabulary import Item

log = logging.getLogger(__name__)

EXTENSION_SECONDS = TIMER_EXTENSION_SECONDS


async def arm_extension(table: Table, conn: Connection, armed: bool) -> None:
    """Arm (or disarm) a timer extension for the match: it fires when this player's own
    turn runs out (``fire_extension``)."""
    slot = table.require_slot(conn)
    seat = table.seats[slot]
    assert seat is not None
    if table.tournament is not None and armed:
        raise table.tournament.no_items()
    if not armed:
        seat.extension_armed = False
        return
    if seat.extension_armed:
        raise RequestError(ErrorCode.ALREADY_ARMED, "a timer extension is already armed")
    wallet = seat.holder.wallet
    store = table.ctx.store
    held = (
        0
        if wallet is None
        else await store.call(store.storage.item_count, wallet, Item.TIMER_EXTENSION)
    )
    if not held:
        raise RequestError(ErrorCode.NO_SUCH_ITEM, "you have no timer extension")
    seat.extension_armed = True


async def fire_extension(table: Table, st: MatchState, engine_seat: int) -> bool:
    """The armed extension of the seat whose turn ran out: one item used, 270 coins from
    its holder, 90 to each other seat's player (a bot's or guest's share to the house),
    all in one transaction. Without the coins it does not fire (it stays armed); without
    the item it is disarmed."""
    slot = st.match.player_at(engine_seat)
    seat = table.seats[slot]
    assert seat is not None
    wallet = seat.holder.wallet
    if wallet is None:
        return False
    payments = []
    for other in range(4):
        if other != engine_seat:
            held = table.seats[st.match.player_at(other)]
            payee = None if held is None else held.holder.wallet
            payments.append(Payment(wallet, payee, TIMER_EXTENSION_SHARE, "timer_extension"))
    store = table.ctx.store
    try:
        await store.call(
            store.storage.use_item, wallet, Item.TIMER_EXTENSION, payments, st.match_id
        )
    except NoSuchItem:
        seat.extension_armed = False
        return False
    except LedgerError:
        return False
    seat.extension_armed = False  # one arming, one use
    logs.event("item_used", table=table.id, account=wallet, item=Item.TIMER_EXTENSION.value)
    paid = [seat.holder] + [
        s.holder for s in table.seats if s is not None and s is not seat and s.holder.wallet
    ]
    await send_profiles(table, paid)
    return True


async def use_tile_counter(table: Table, st: MatchState, conn: Connection) -> m.TileCounts:
    """Start a tile counter for the player's seat for the rest of the hand in play."""
    if table.tournament is not None:
        raise table.tournament.no_items()
    hand = st.hand
    if hand is None or hand.ended:
        raise RequestError(ErrorCode.NOT_EXPECTED, "no hand is in play")
    slot = table.slot_of(conn)
    if slot is None:
        raise RequestError(ErrorCode.NOT_SEATED, "spectators cannot use items")
    seat = table.seats[slot]
    assert seat is not None
    if seat.counting is hand:
        raise RequestError(ErrorCode.NOT_EXPECTED, "a tile counter already runs this hand")
    wallet = seat.holder.wallet
    if wallet is None:
        raise RequestError(ErrorCode.NO_SUCH_ITEM, "you have no tile counter")
    store = table.ctx.store
    try:
        await store.call(store.storage.use_item, wallet, Item.TILE_COUNTER)
    except LedgerError as exc:
        raise RequestError(ErrorCode(exc.code), str(exc)) from None
    seat.counting = hand
    seat.counted = _counts(st, slot)
    logs.event("item_used", table=table.id, account=wallet, item=Item.TILE_COUNTER.value)
    return m.TileCounts(table_id=table.id, seq=table.seq, counts=seat.counted)


def _counts(st: MatchState, slot: int) -> tuple[int, ...]:
    assert st.hand is not None
    return unseen_counts(make_view(st.hand, st.match.seat_of(slot)))


def send_counts(table: Table, st: MatchState) -> None:
    """Each running tile counter, to its user only, when its counts changed."""
    hand = st.hand
    if hand is None:
        return
    for slot, seat in enumerate(table.seats):
        if seat is None or seat.counting is not hand or seat.conn is None:
            continue
        counts = _counts(st, slot)
        if counts != seat.counted:
            seat.counted = counts
            seat.conn.send(m.TileCounts(table_id=table.id, seq=table.seq, counts=counts))
