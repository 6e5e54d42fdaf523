"""After a hand and after a match: booking, settling, telling; before a deal, standing up.

A hand is recorded and settled in one database transaction (docs/rules.md §2.5): the
hand row with its whole log, the coins × the stake (each payment capped at what its
payer has), the ratings, a win's random item, and the participants' totals; a hand
recorded before is never settled again. Then ``hand_result`` (everything revealed) to
every member, and the players' new profiles (an escaper's too, in the lobby). Before each
deal at a stake table, whoever can no longer cover the stake is stood up. A match's end
records the standings of everyone who played (an escaper keeps what they lost, the bot
that took over has its own line).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from gbmj.economy.items import roll_drop, roll_gem
from gbmj.economy.stakes import hand_payments, min_coins
from gbmj.game.events import meld_view
from gbmj_server import logs, metrics
from gbmj_server.profiles import profile
from gbmj_server.storage.ledger import Payment
from gbmj_server.storage.logs import write_log
from gbmj_server.tables.seat import STAND_IN_LEVEL, Participant, Seat, bot_participant
from gbmj_server.tables.settings import result_pause, when_broke
from gbmj_server.tables.state import MatchState
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.vocabulary import Item, LeaveReason, MatchEnd, WhenBroke

log = logging.getLogger(__name__)


async def hand_over(
    table: Table, st: MatchState, send: Callable[[m.HandResult], None] | None = None
) -> bool:
    """Book and settle the ended hand; True when it was the match's last. ``send`` tells
    the result (default: alike to every member)."""
    hand, match, store = st.hand, st.match, table.ctx.store
    assert hand is not None and hand.result is not None and st.match_id is not None
    result = hand.result
    slots = [match.player_at(s) for s in range(4)]  # the hand's seating
    holders = [_holder(table, st, slot) for slot in slots]  # an escaper still pays
    stake = table.settings.stake
    pause = result_pause(table.settings, table.ctx.hand_pause)
    owed = hand_payments(result.points, stake, result.winner, result.escaper)
    payments = [
        Payment(
            holders[p.payer].wallet,
            None if p.payee is None else holders[p.payee].wallet,
            p.amount,
            "hand" if p.payee is not None else "escape",
            payer_n=holders[p.payer].record_id,
            payee_n=None if p.payee is None else holders[p.payee].record_id,
        )
        for p in owed
    ]
    # The house's table fee (§2.5) from each player after the hand's own payments, so a
    # winner is paid in full first; like them it is capped at what the payer has left.
    fee = table.settings.table_fee or 0
    fee_payers = [s for s, h in enumerate(holders) if fee and h.wallet is not None]
    payments += [
        Payment(holders[s].wallet, None, fee, "table_fee", payer_n=holders[s].record_id)
        for s in fee_payers
    ]
    ratings = [
        (h.account_id, result.points[s])
        for s, h in enumerate(holders)
        if h.wallet is not None and h.account_id is not None and result.points[s]
    ]
    award = None
    if result.winner is not None and holders[result.winner].wallet is not None:
        item = roll_drop(table.ctx.rng.random(), table.ctx.rng.randrange(1 << 30))
        winner_wallet = holders[result.winner].wallet
        if item is not None and winner_wallet is not None:
            award = (winner_wallet, item)
    score = result.score
    players = [h.name for h in holders]
    summary = {
        "outcome": result.outcome.value,
        "winner": result.winner,
        "from_seat": result.from_seat,
        "win_tile": None if result.win_tile is None else int(result.win_tile),
        "escaper": result.escaper,
        "fans": [[fc.fan.id, fc.count] for fc in score.fans] if score else [],
        "total": score.total if score else 0,
        "points": list(result.points),
        "players": players,
        "seq": table.seq,
    }
    settled = await store.call(
        store.storage.settle_hand,
        st.match_id,
        st.number,
        hand.round_number,
        hand.hand_number,
        summary,
        write_log(hand.to_dict(), st.times, players),
        payments,
        ratings,
        award,
        [(h.record_id, result.points[s]) for s, h in enumerate(holders) if h.record_id is not None],
        node=table.ctx.node,
    )
    coins = [0, 0, 0, 0]
    for p, moved in zip(owed, settled.moved, strict=False):
        coins[p.payer] -= moved
        if p.payee is not None:
            coins[p.payee] += moved
    fees = [0, 0, 0, 0]
    for s, moved in zip(fee_payers, settled.moved[len(owed) :], strict=False):
        fees[s] = moved
        coins[s] -= moved
    for s, h in enumerate(holders):
        h.points += result.points[s]
        h.coins += coins[s]
    match.finish_hand()
    st.hand = None  # booked: the next hand comes after the pause
    metrics.hand_played()
    logs.event(
        "hand_ended",
        table=table.id,
        match=st.match_id,
        hand=settled.hand_id,
        outcome=result.outcome.value,
        total=score.total if score else 0,
        coins=sum(moved for moved in settled.moved),
    )
    st.escapers.clear()
    (send or table.broadcast)(
        m.HandResult(
            table_id=table.id,
            hand_id=settled.hand_id,
            match_id=st.match_id,
            round_number=hand.round_number,
            hand_number=hand.hand_number,
            outcome=result.outcome,
            winner=result.winner,
            from_seat=result.from_seat if result.winner is not None else None,
            win_tile=result.win_tile,
            escaper=result.escaper,
            fans=tuple((fc.fan.id, fc.count) for fc in score.fans) if score else (),
            total=score.total if score else 0,
            points=result.points,
            scores=tuple(match.standings[slot] for slot in slots),
            concealed=tuple(hand.concealed(s) for s in range(4)),
            melds=tuple(tuple(meld_view(x) for x in hand.melds(s)) for s in range(4)),
            flowers=tuple(hand.flowers(s) for s in range(4)),
            wall_order=hand.wall.order,
            salt=hand.wall.salt.hex(),
            commitment=hand.wall.commitment,
            coins=tuple(coins) if stake else None,
            fees=tuple(fees) if fee else None,
            next_hand_ms=None if match.finished else round(pause * 1000),
        )
    )
    winner = holders[result.winner] if result.winner is not None else None
    dropped = settled.awarded or settled.lost
    if dropped is not None and winner is not None:
        tell_award(table, winner, Item(dropped), kept=settled.awarded is not None)
    await send_profiles(table, [h for h in holders if h.wallet is not None])
    return match.finished


def tell_award(table: Table, holder: Participant, item: Item, *, kept: bool) -> None:
    """A dropped item, to its player wherever they are; a full inventory kept nothing,
    and the player is told so (§2.6)."""
    if holder.account_id is None:
        return
    conn = table.ctx.lobby.sessions.of_account(holder.account_id)
    if conn is not None:
        conn.send(m.ItemAwarded(item=item, count=1, lost=None if kept else True))


async def drop_gems(table: Table, st: MatchState) -> None:
    """A finished match: each player who finished first (ties share first place) may get
    a gem (§2.6); bots and guests get none, nor do those who left."""
    stayed = [p for p in st.participants if p.left is None]
    if not stayed:
        return
    best = max(p.points for p in stayed)
    store, rng = table.ctx.store, table.ctx.rng
    for p in stayed:
        if p.points != best or p.wallet is None:
            continue
        gem = roll_gem(rng.random(), rng.randrange(1 << 30))
        if gem is None:
            continue
        kept = await store.call(store.storage.award_item, p.wallet, gem)
        logs.event("gem_dropped", table=table.id, account=p.wallet, item=gem.value, kept=kept)
        tell_award(table, p, gem, kept=kept)


def _holder(table: Table, st: MatchState, slot: int) -> Participant:
    escaper = st.escapers.get(slot)
    if escaper is not None:
        return escaper
    seat = table.seats[slot]
    assert seat is not None
    return seat.holder


async def send_profiles(table: Table, who: list[Participant]) -> None:
    """Coins or rating changed: each signed-in player's new profile, wherever they are
    (an escaper is back in the lobby), and the level shown beside a seated one's name."""
    for holder in who:
        if holder.account_id is None:
            continue
        mine = await profile(table.ctx.store, holder.account_id, holder.name, holder.guest)
        seat = table.seats[holder.slot] if holder.slot >= 0 else None
        if seat is not None and seat.holder is holder and holder.level != mine.level:
            holder.level = mine.level
            table.changed()
        conn = table.ctx.lobby.sessions.of_account(holder.account_id)
        if conn is not None:
            conn.send(m.ProfileUpdate(profile=mine))


async def stand_up_broke(table: Table, st: MatchState) -> bool:
    """Before each deal at a stake table, players below ``100 × stake`` leave their seat
    (§2.5), and everyone at the table is told: a bot takes the seat, or it stays empty and
    the match waits for a new player (the owner's choice). Whether anyone was stood up."""
    stake = table.settings.stake
    humans = [
        (slot, seat)
        for slot, seat in enumerate(table.seats)
        if seat is not None and seat.holder.wallet is not None
    ]
    if not stake or not humans:
        return False
    store, need = table.ctx.store, min_coins(stake)
    balances = await store.call(lambda: [store.storage.balance(s.holder.wallet) for _, s in humans])
    stood_up = False
    for (slot, seat), coins in zip(humans, balances, strict=True):
        if coins is None or coins >= need:
            continue
        stood_up = True
        log.info("table %s: %s stood up (%s coins)", table.id, seat.holder.name, coins)
        table.broadcast(m.StoodUp(table_id=table.id, name=seat.holder.name, need=need))
        st.leave(seat.holder, LeaveReason.NOT_ENOUGH_COINS)
        table.drop_stood_up(slot, LeaveReason.NOT_ENOUGH_COINS)
        if when_broke(table.settings) is WhenBroke.BOT:
            bot = Seat(bot_participant(slot, STAND_IN_LEVEL), ready=True)
            st.join(slot, bot.holder)
            table.set_seat(slot, bot)
        else:
            table.set_seat(slot, None)
    return stood_up


def standings(st: MatchState) -> tuple[m.Standing, ...]:
    """Everyone who played, by rank: those who stayed to the end by points, then those
    who left."""
    order = sorted(st.participants, key=lambda p: (p.left is not None, -p.points))
    out = []
    for p in order[: m.MAX_PARTICIPANTS]:
        rank = 1 + sum(
            1 for q in order if (q.left is not None, -q.points) < (p.left is not None, -p.points)
        )
        out.append(
            m.Standing(
                name=p.name,
                bot=p.is_bot,
                seat=None if p.left is not None else st.match.seat_of(p.slot),
                rank=min(rank, m.MAX_PARTICIPANTS),
                points=p.points,
                coins=p.coins,
                left=p.left,
            )
        )
    return tuple(out)


async def match_over(table: Table, st: MatchState, reason: MatchEnd) -> None:
    """Record the match's end and tell everyone at the table."""
    ranked = standings(st)
    if st.match_id is not None:
        await table.ctx.store.call(
            table.ctx.store.storage.end_match,
            st.match_id,
            reason.value,
            [s.to_wire() for s in ranked],
        )
    logs.event("match_ended", table=table.id, match=st.match_id, reason=reason.value)
    table.broadcast(
        m.MatchResult(table_id=table.id, match_id=st.match_id, reason=reason, standings=ranked)
    )
    if reason is MatchEnd.FINISHED:
        await drop_gems(table, st)
