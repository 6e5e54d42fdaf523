"""``Play``: one match at a table, run in the table's task as the rules tell it.

The match (``run``, docs/rules.md §2.3-2.4): for each hand, deal; while the hand is not
over, a decision: prompt who must act, wait for an answer or the deadline, apply; then
settle the hand and pause for its result; after the last hand, the standings and back
to the room. While it waits the table hears its commands (a player's action, an
escape, auto-play, a player gone or back, a seat filled, ``result_closed``): they come
through the actor's inbox, one at a time (``Hear``), and are the only way in. Each
stretch of the match is a named ``MatchPhase``.

For each decision the engine names who must act (``to_act``) and which clock times it
(``timer``); the seats' deadlines start from the table's settings (§2.3). Bots, and
players on auto-play, are played by their bot after the bot's thinking time; each human
in ``to_act`` gets a ``prompt``. When a deadline passes, the server takes the timeout
action for that seat (an armed timer extension may move the deadline first); a player's
own turns timed out ``auto_play_after`` times in a row put the seat on auto-play (§2.4).
A disconnected player keeps the seat and the clocks: at an untimed table their decisions
get ``offline_grace`` seconds. With no human of the match connected the match holds,
for the abandon grace at most.

Each human also has a reserve for the match (the time bank): a deadline is the
decision's own clock plus what is left of it, and an overrun is taken from it.

Every step is written to the journal before its events go out (``_record``, the one
place), each event to every member in that member's form with the table's next seq,
each form encoded once. Between hands the next hand waits for the players reading the
result (``result_closed``), the table's pause at most (§2.3).
"""

from __future__ import annotations

import enum
import logging
import math
import secrets
from collections.abc import Callable
from dataclasses import replace

import trio

from gbmj.game.duplicate import DuplicateMatch, sealed_end
from gbmj.game.events import SPECTATOR, for_viewer
from gbmj.game.hand_state import HandState, IllegalAction
from gbmj.game.match import Match
from gbmj.game.views import make_view
from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.storage.matches import ActionRow
from gbmj_server.tables import items, settle
from gbmj_server.tables.seat import STAND_IN_LEVEL, Seat, bot_participant
from gbmj_server.tables.settings import (
    auto_play_after,
    offline_grace,
    public_history,
    reserve,
    result_pause,
    seat_changes,
    seconds,
)
from gbmj_server.tables.state import MatchState
from gbmj_server.tables.table import Hear, Table
from gbmj_server.tables.wire import event_frame, game_view, prompt_frame
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.framing import encode
from protocol.messages import ActionChoice
from protocol.vocabulary import ActionKind, LeaveReason, MatchEnd, Phase, Presence

log = logging.getLogger(__name__)


class MatchPhase(enum.Enum):
    """Where a running match stands (the server's own: no client is told)."""

    STARTING = "starting"  # written to the journal as begun (or resumed from it)
    WAITING_FOR_HUMANS = "waiting_for_humans"  # no human connected, or a seat empty
    DEALING = "dealing"  # the next hand is dealt and journalled
    DECISION = "decision"  # a hand waits for the seats that must act
    BETWEEN_HANDS = "between_hands"  # the hand is settled; its result is read
    OVER = "over"  # the standings are out: back to the room


class _Over(Exception):
    """The match ends here (unwinds ``run`` from wherever it stood)."""

    def __init__(self, reason: MatchEnd) -> None:
        super().__init__(reason.value)
        self.reason = reason


def _key(hand: HandState) -> tuple[object, ...]:
    """What tells one decision from the next (a concealed kong keeps its turn's clock)."""
    return (hand.phase, hand.turn_seat, hand.discard_count, hand.offer)


def _kinds(hand: HandState, s: int) -> frozenset[ActionKind]:
    """What seat ``s`` may choose now (its claim window's length depends on it, §2.3)."""
    return frozenset(a.kind for a in hand.legal_actions(s))


class Play:
    def __init__(self, table: Table, state: MatchState) -> None:
        self.table = table
        self.ctx = table.ctx
        self.st = state
        self.phase = MatchPhase.STARTING
        self.decision: tuple[object, ...] | None = None  # the decision the clocks are for
        self.deadlines: dict[int, float] = {}  # engine seat -> deadline of its decision
        # Time banks (§2.3): a decision's own clock ends at ``base_due``; its deadline
        # adds what is left of the player's reserve, and the overrun is taken from it.
        self.base_due: dict[int, float] = {}  # engine seat -> end of the decision's clock
        self.banks: dict[str, float] = {}  # player name -> reserve left for the match
        self.reading: set[int] = set()  # slots whose player still reads the hand's result
        self.bot_due = -math.inf  # when bots and auto-play may act on this decision
        self.prompted: dict[int, int] = {}  # engine seat -> seq of its open prompt
        # slot -> the presence the members were last shown (in snapshots, or told)
        self.shown = {i: seat.presence for i, seat in enumerate(table.seats) if seat is not None}
        self.pause_until: float | None = None  # between two hands
        self.hold_until: float | None = None  # no human connected: abandoned then
        self._hear: Hear | None = None  # the table's inbox, while the match runs

    @classmethod
    def start(cls, table: Table) -> Play:
        seed = table.ctx.match_seed or secrets.token_bytes(32)
        state = MatchState(
            Match(seed, table.settings.rounds, seat_changes=seat_changes(table.settings))
        )
        for slot, seat in enumerate(table.seats):
            assert seat is not None
            seat.holder = seat.holder.anew()  # not the last match's points and coins
            state.join(slot, seat.holder)
        return cls(table, state)

    @property
    def ended(self) -> bool:
        return self.phase is MatchPhase.OVER

    # -- seats -------------------------------------------------------------------------
    def seat_at(self, engine_seat: int) -> Seat:
        seat = self.table.seats[self.st.match.player_at(engine_seat)]
        assert seat is not None
        return seat

    def engine_seat(self, conn: Connection) -> int | None:
        slot = self.table.slot_of(conn)
        return None if slot is None else self.st.match.seat_of(slot)

    def _humans_connected(self) -> bool:
        return any(s.connected for s in self.table.humans())

    # -- the match -----------------------------------------------------------------------
    async def run(self, hear: Hear) -> None:
        """The match, from its start (or where the journal left it) to its end; the
        table's commands are heard through ``hear`` meanwhile."""
        self._hear = hear
        try:
            await self._begin()
            while True:
                hand = self.st.hand
                if hand is None:
                    hand = await self._between_hands()
                while not hand.ended:
                    await self._hold(hand)
                    if not hand.ended:
                        await self._decide_next(hand)
                await self._hand_over()
        except _Over as over:
            await self._end(over.reason)

    async def _listen(self, until: float) -> None:
        """Hear one command, if one comes before ``until`` (trio time); what it left
        for the journal is written at once."""
        assert self._hear is not None
        await self._hear(until)
        if self.st.pending and self.st.match_id is not None:
            await self.ctx.journal.write(*self.st.take_pending())

    async def _begin(self) -> None:
        st, table = self.st, self.table
        self.phase = MatchPhase.STARTING
        if st.match_id is None:
            st.match_id = await self.ctx.store.call(
                self.ctx.store.storage.start_match,
                table.id,
                table.settings.name,
                table.settings.to_wire(),
                st.match.seed,
                table.owner_name,
                public_history(table.settings),
                table.password_digest,
                [st.joined(p) for p in st.participants],
            )
            st.match.match_id = st.match_id  # bound into every wall's commitment
            logs.event("match_started", table=table.id, match=st.match_id)
        if st.pending:
            await self.ctx.journal.write(*st.take_pending())

    async def _hold(self, hand: HandState | None) -> None:
        """With no human of the match connected, the match holds until one is back, for
        the abandon grace at most (§2.4); back, everyone gets fresh clocks. A hand that
        ended meanwhile (an escape) is settled first, whoever is left."""
        while not self._settling(hand):
            if not self.table.humans():  # the last human escaped or was stood up
                raise _Over(MatchEnd.ABANDONED)
            if self._humans_connected():
                if self.hold_until is not None:
                    self.hold_until = None
                    self.decision = None
                return
            self.phase = MatchPhase.WAITING_FOR_HUMANS
            if self.hold_until is None:
                self.hold_until = trio.current_time() + self.ctx.abandon_grace
            if trio.current_time() >= self.hold_until:
                raise _Over(MatchEnd.ABANDONED)
            await self._listen(self.hold_until)

    def _settling(self, hand: HandState | None) -> bool:
        """The hand ``hand`` ended, or another was dealt (by an escape between hands)."""
        return self.st.hand is not hand or (hand is not None and hand.ended)

    async def _between_hands(self) -> HandState:
        """After a hand is settled: the pause for its result, a seat left empty, the
        stood-up players; then the next hand is dealt (§2.3, §2.5)."""
        st, table = self.st, self.table
        while True:
            await self._hold(None)
            hand = self._dealt()
            if hand is not None:
                return hand  # dealt below, or by an escape (§2.4)
            now = trio.current_time()
            if self.pause_until is not None and now < self.pause_until and self._reading():
                self.phase = MatchPhase.BETWEEN_HANDS
                await self._listen(self.pause_until)
            elif any(s is None for s in table.seats):  # a seat waits for a new player
                self.phase = MatchPhase.WAITING_FOR_HUMANS
                await self._listen(math.inf)
            elif self._time_called():
                raise _Over(MatchEnd.FINISHED)
            elif not await settle.stand_up_broke(table, st):  # every hand dealt is covered
                self.pause_until = None
                await self._next_hand()

    def _dealt(self) -> HandState | None:
        return self.st.hand

    async def _decide_next(self, hand: HandState) -> None:
        """One decision: prompt who must act, wait for an answer or the deadline, apply
        (the timeout action, or a bot's choice). Returns when the hand moved on, or the
        match holds for its humans."""
        self.phase = MatchPhase.DECISION
        key = _key(hand)
        if key != self.decision:
            self._new_decision(hand, key, trio.current_time())
        while self._deciding(hand, key):
            auto = self._automatic(hand)
            if auto is None:
                for s in hand.to_act:
                    if self.prompted.get(s) != self.table.seq:
                        self._prompt(hand, s)
            await self._listen(self._due(hand, auto))
            if not self._deciding(hand, key):
                return
            now, auto = trio.current_time(), self._automatic(hand)
            if now < self._due(hand, auto):
                continue  # a command came first: look again
            # The clocks running out belong to this decision: once a timeout moves the
            # hand on, the next decision gets clocks of its own.
            late = [
                s
                for s in hand.to_act
                if self.deadlines.get(s, math.inf) <= now and not self.seat_at(s).automatic
            ]
            if late:
                await self._timed_out(hand, late[0])
            elif auto is not None:
                await self._apply(auto, await self._decide(hand, auto))

    def _deciding(self, hand: HandState, key: tuple[object, ...]) -> bool:
        return (
            not hand.ended
            and _key(hand) == key
            and self.decision == key
            and self._humans_connected()
        )

    def _automatic(self, hand: HandState) -> int | None:
        """A seat of ``to_act`` the server plays (a bot, or auto-play): it goes first."""
        return next((s for s in hand.to_act if self.seat_at(s).automatic), None)

    def _due(self, hand: HandState, auto: int | None) -> float:
        """When the decision's next step is due: a deadline, or a bot's thinking time."""
        due = min((self.deadlines.get(s, math.inf) for s in hand.to_act), default=math.inf)
        return due if auto is None else min(due, self.bot_due)

    # -- decisions -----------------------------------------------------------------------
    def _new_decision(self, hand: HandState, key: tuple[object, ...], now: float) -> None:
        self.decision = key
        self.prompted.clear()
        self.bot_due = now + self.ctx.bot_delay
        assert hand.timer is not None
        timer, settings = hand.timer, self.table.settings
        lengths = {s: seconds(settings, timer, _kinds(hand, s)) for s in hand.to_act}
        self.base_due = {s: now + n for s, n in lengths.items() if n is not None}
        self.deadlines = {s: self._deadline(s, n, now) for s, n in lengths.items()}

    def _bank(self, s: int) -> float:
        """What is left of the reserve of the player in engine seat ``s``."""
        seat = self.seat_at(s)
        if seat.is_bot:
            return 0.0
        return self.banks.get(seat.holder.name, reserve(self.table.settings))

    def _charge(self, s: int, now: float) -> None:
        """Seat ``s`` acts (or timed out) at ``now``: its overrun comes off its reserve."""
        due = self.base_due.pop(s, None)
        if due is not None and now > due and not self.seat_at(s).is_bot:
            self.banks[self.seat_at(s).holder.name] = max(0.0, self._bank(s) - (now - due))

    def _deadline(self, s: int, length: float | None, now: float) -> float:
        if length is not None:
            return now + length + self._bank(s)
        seat = self.seat_at(s)
        if not seat.connected and not seat.automatic:
            return now + offline_grace(self.table.settings)
        return math.inf

    async def _decide(self, hand: HandState, s: int) -> ActionChoice:
        """What a bot (or a stand-in on auto-play) plays: decided by a bot worker when
        the server has them (the table waits for it; nothing else runs at the table
        meanwhile), else here; the timeout action if the bot fails."""
        legal = hand.legal_actions(s)
        seat = self.seat_at(s)
        brain = seat.decider(self.ctx.rng.getrandbits(64))
        brains = self.ctx.brains
        if brains is not None:
            chosen = await brains.choose(seat, brain, hand, s)
            if chosen is not None and chosen in legal:
                return chosen
        try:
            action = brain.choose(make_view(hand, s), legal)
            if action in legal:
                return action
            log.error("table %s: bot in seat %s chose %s, not legal", self.table.id, s, action)
        except Exception:  # a broken bot must not stop the table
            log.exception("table %s: bot in seat %s failed", self.table.id, s)
        return hand.default_action(s)

    async def _timed_out(self, hand: HandState, s: int) -> None:
        seat = self.seat_at(s)
        own_turn = hand.phase is Phase.TURN
        if own_turn and seat.extension_armed and await items.fire_extension(self.table, self.st, s):
            self._charge(s, trio.current_time())  # the reserve ran out before it fired
            self.deadlines[s] += items.EXTENSION_SECONDS
            self.prompted.pop(s, None)  # prompted again with the new time
            self.table.broadcast(
                m.TimerExtended(table_id=self.table.id, seat=s, ms_left=self._ms_left(s) or 0)
            )
            return
        counted = own_turn and not seat.is_bot  # a claim window run out is a pass (§2.4)
        if counted:  # told first: what the server then plays for the seat follows
            seat.timeouts += 1
            self.table.broadcast(m.TimedOut(table_id=self.table.id, seat=s, timeouts=seat.timeouts))
        await self._apply(s, hand.default_action(s))
        limit = auto_play_after(self.table.settings)
        if counted and seat.timeouts >= limit and not seat.auto_play:
            self.set_auto_play(self.st.match.player_at(s), True)

    def _prompt(self, hand: HandState, s: int) -> None:
        table = self.table
        self.prompted[s] = table.seq
        conn = self.seat_at(s).conn
        if conn is None or hand.timer is None:
            return
        ms_left = self._ms_left(s)
        reserve_ms = None
        if ms_left is not None and s in self.base_due:
            reserve_ms = min(ms_left, round(self._bank(s) * 1000))
        frame = prompt_frame(
            table.id, table.seq, hand.legal_actions(s), hand.timer, ms_left, reserve_ms
        )
        conn.send_prompt(table.id, table.seq, frame)

    def _ms_left(self, s: int | None) -> int | None:
        hand = self.st.hand
        if hand is None:
            return None
        if s is not None and s in self.deadlines:
            deadline = self.deadlines[s]
        else:  # the viewer decides nothing now: the clock of those who do (without
            # their reserves, which would tell who may claim)
            deadline = min(
                (self.base_due.get(x, self.deadlines.get(x, math.inf)) for x in hand.to_act),
                default=math.inf,
            )
        if math.isinf(deadline):
            return None
        return max(0, round((deadline - trio.current_time()) * 1000))

    # -- steps -------------------------------------------------------------------------
    async def _apply(self, s: int, action: ActionChoice) -> None:
        """Seat ``s`` plays ``action``: the engine, then ``_record``."""
        hand = self.st.hand
        assert hand is not None
        self._charge(s, trio.current_time())
        events = hand.apply(s, action)
        await self._record(s, action.kind, action.tile, events, self._clocked())

    def _clocked(self) -> int:
        """Now, in ms from the hand's start: the step's time, kept for the hand's log."""
        st = self.st
        ms = round((trio.current_time() - st.hand_started) * 1000)
        st.times.append(ms)
        return ms

    async def _record(
        self, s: int, kind: str, tile: int | None, events: list[m.EventBody], ms: int
    ) -> None:
        """The one place an applied step (a deal, an action, an escape) goes out: to the
        journal with what waits for it, then its events to the members."""
        st = self.st
        assert st.hand is not None and st.match_id is not None
        step = ActionRow(
            st.match_id,
            st.number,
            len(st.hand.log),
            s,
            kind,
            tile,
            ms,
            self.table.seq + len(events),
        )
        await self.ctx.journal.write(*st.take_pending(), step)
        self.publish(events)

    async def act(self, conn: Connection, seq: int, action: ActionChoice) -> None:
        """A player's ``action``: played if it is legal now; refused otherwise, and then
        nothing changed."""
        hand = self.st.hand
        if hand is None or hand.ended:
            raise RequestError(ErrorCode.NOT_EXPECTED, "no hand is in play")
        s = self.engine_seat(conn)
        if s is None:
            raise RequestError(ErrorCode.NOT_SEATED, "spectators cannot act")
        if s not in hand.to_act:
            raise RequestError(ErrorCode.NOT_YOUR_TURN, "you have nothing to decide now")
        if seq != self.prompted.get(s):
            raise RequestError(ErrorCode.STALE, "that prompt is no longer open")
        if action not in hand.legal_actions(s):
            if action.kind is ActionKind.WIN:
                raise RequestError(ErrorCode.FALSE_WIN, "that is not a win of 8 fan")
            raise RequestError(ErrorCode.ILLEGAL_ACTION, f"{action} is not one of your choices")
        self.seat_at(s).timeouts = 0
        try:
            await self._apply(s, action)
        except IllegalAction as exc:  # the legal list said yes: should not happen
            raise RequestError(ErrorCode.ILLEGAL_ACTION, str(exc)) from None

    async def escape(self, slot: int, reason: LeaveReason = LeaveReason.LEFT) -> None:
        """The player of ``slot`` left on purpose (§2.4), or the host kicked them: the
        hand in play ends, they pay; a bot plays the seat for the rest of the match."""
        st, table = self.st, self.table
        seat = table.seats[slot]
        assert seat is not None
        who = seat.holder
        st.leave(who, reason)
        stand_in = Seat(bot_participant(slot, STAND_IN_LEVEL), ready=True)
        st.join(slot, stand_in.holder)
        table.set_seat(slot, stand_in)
        log.info("table %s: %s escaped", table.id, who.name)
        hand = st.hand
        if hand is None and st.match_id is not None and await self._deal_to_escape():
            hand = st.hand
        if hand is None or st.match_id is None:
            return  # no hand is left to deal: nothing is paid (§2.4)
        st.escapers[slot] = who  # they pay for the hand, even one ended but not yet settled
        if hand.ended:
            return
        s = st.match.seat_of(slot)
        events = st.match.escape(slot)
        await self._record(s, "escape", None, events, self._clocked())

    async def _deal_to_escape(self) -> bool:
        """Leaving between two hands escapes the next one (§2.4): it is dealt now, as the
        pause would have dealt it, so that waiting for a hand's end is no way out of the
        penalty. False when no hand is due (the match's hands are played, its time is
        called, or a seat waits for a player)."""
        st, table = self.st, self.table
        if st.match.finished or self._time_called():
            return False
        await settle.stand_up_broke(table, st)  # every hand dealt is covered
        if any(s is None for s in table.seats):
            return False
        self.pause_until = None
        await self._next_hand()
        return True

    async def _next_hand(self) -> None:
        st, table = self.st, self.table
        self.phase = MatchPhase.DEALING
        assert st.match_id is not None
        hand = st.hand = st.match.start_hand()
        st.number += 1
        st.hand_started = trio.current_time()
        st.times = []
        await self._record(hand.dealer, "deal", None, list(hand.events), 0)
        logs.event("hand_started", table=table.id, match=st.match_id, number=st.number)
        # The first seating is drawn and seats change between rounds: a snapshot tells
        # every member who sits where, with the clock already set.
        self._new_decision(hand, _key(hand), trio.current_time())
        for conn in list(table.members):
            conn.send(self.snapshot(conn))

    async def _hand_over(self) -> None:
        """Settle the ended hand; the pause for its result begins (or the match ends)."""
        self._deal_played()  # (again after a restart: the journal ends a hand unseen)
        send = self._result_sender()
        pause = result_pause(self.table.settings, self.ctx.hand_pause)
        self.phase = MatchPhase.BETWEEN_HANDS
        self.pause_until = trio.current_time() + pause
        seats = self.table.seats
        self.reading = {slot for slot, seat in enumerate(seats) if seat and not seat.is_bot}
        self.decision = None
        self.deadlines, self.base_due = {}, {}
        if await settle.hand_over(self.table, self.st, send) or self._time_called():
            raise _Over(MatchEnd.FINISHED)

    def _result_sender(self) -> Callable[[m.HandResult], None]:
        """How the ended hand's result goes out: alike to every member, or sealed (a
        duplicate deal still to be played elsewhere) in each seat's form. The seats are
        the hand's, taken now: a duplicate match turns its seating once it books it."""
        table, hand = self.table, self.st.hand
        end = None if hand is None or not hand.events else hand.events[-1]
        if not self.sealed() or hand is None or not isinstance(end, m.HandEnd):
            return table.broadcast
        winner = None if hand.result is None else hand.result.winner
        seat_of = {slot: self.st.match.seat_of(slot) for slot in range(4)}

        def send(result: m.HandResult) -> None:
            frames: dict[int | None, bytes] = {}
            for conn in list(table.members):
                slot = table.slot_of(conn)
                s = None if slot is None else seat_of[slot]
                if s not in frames:
                    shown = sealed_end(end, _shown(s, winner))
                    frames[s] = encode(
                        replace(
                            result,
                            concealed=shown.concealed,
                            melds=shown.melds,
                            wall_order=None,
                            salt=None,
                        )
                    )
                conn.send_frame(frames[s])

        return send

    def _time_called(self) -> bool:
        """A tournament session's hands are played or its time is up (§2.12)."""
        rules = self.table.tournament
        return rules is not None and rules.time_called(self.st.number)

    async def _end(self, reason: MatchEnd) -> None:
        if self.ended:
            return
        self.phase = MatchPhase.OVER
        await settle.match_over(self.table, self.st, reason)
        self.table.match_over()
        if self.table.tournament is not None:
            self.table.tournament.match_over()

    async def abort(self) -> None:
        """A bug stopped the match: it ends as abandoned (what was settled stays)."""
        try:
            await self._end(MatchEnd.ABANDONED)
        except Exception:
            log.exception("table %s: the match could not even be ended", self.table.id)
        finally:
            self.phase = MatchPhase.OVER
            if self.table.play is self:
                self.table.match_over()

    # -- between hands -------------------------------------------------------------------
    def _reading(self) -> bool:
        """Someone holds the next hand: a connected player, not on auto-play, who has
        not closed the last hand's result (§2.3)."""
        seats = self.table.seats
        return any(
            (seat := seats[slot]) is not None and seat.connected and not seat.automatic
            for slot in self.reading
        )

    def result_closed(self, conn: Connection) -> None:
        """The player has read the result: the next hand waits for them no longer."""
        slot = self.table.slot_of(conn)
        if slot is not None:
            self.reading.discard(slot)

    # -- a duplicate deal (docs/rules.md §2.14) ----------------------------------------
    def _deal_played(self) -> None:
        rules = self.table.tournament
        if rules is not None and isinstance(self.st.match, DuplicateMatch):
            rules.deal_played(self.st.number)

    def sealed(self) -> bool:
        """Whether the deal is sealed (its hand's end, and the table to spectators): a
        duplicate deal that another table has still to play (a resumed table not yet
        given its session's rules assumes so)."""
        if not isinstance(self.st.match, DuplicateMatch):
            return False
        rules = self.table.tournament
        return rules is None or not rules.deal_open(self.st.number)

    def _sealed_end(self, event: m.HandEnd, viewer: int | None) -> m.HandEnd:
        hand = self.st.hand
        winner = None if hand is None or hand.result is None else hand.result.winner
        return sealed_end(event, _shown(viewer, winner))

    # -- what members receive ----------------------------------------------------------
    def publish(self, events: list[m.EventBody]) -> None:
        """Each event to every member in that member's form, with the next seq; each
        distinct form encoded once (a sealed hand's end is one form per seat)."""
        table = self.table
        members = [(c, self.engine_seat(c)) for c in table.members]
        for event in events:
            table.seq += 1
            if isinstance(event, m.HandEnd):
                self._deal_played()
                if self.sealed():
                    frames: dict[int | None, bytes] = {}
                    for conn, s in members:
                        if s not in frames:
                            frames[s] = event_frame(table.id, table.seq, self._sealed_end(event, s))
                        conn.send_frame(frames[s])
                    continue
            full = hidden = b""
            for conn, s in members:
                form = for_viewer(event, SPECTATOR if s is None else s)
                if form is event:
                    full = full or event_frame(table.id, table.seq, event)
                    conn.send_frame(full)
                else:  # every hidden form of an event is the same
                    hidden = hidden or event_frame(table.id, table.seq, form)
                    conn.send_frame(hidden)
        if events:
            items.send_counts(self.table, self.st)

    def snapshot(self, conn: Connection) -> m.Snapshot:
        st, table = self.st, self.table
        s = self.engine_seat(conn)
        players = []
        for seat_no in range(4):
            slot = st.match.player_at(seat_no)
            seat = table.seats[slot]
            if seat is None:
                players.append(
                    m.PlayerView(name="-", bot=False, presence=Presence.OFFLINE, score=0)
                )
                continue
            players.append(
                m.PlayerView(
                    name=seat.holder.name,
                    bot=seat.is_bot,
                    presence=seat.presence,
                    score=st.match.standings[slot],
                    level=seat.holder.level,
                )
            )
        game = None
        if st.in_hand:
            assert st.hand is not None
            game = game_view(st.hand, SPECTATOR if s is None else s, self._ms_left(s))
        return m.Snapshot(
            table=table.info(), seat=s, seq=table.seq, players=tuple(players), game=game
        )

    # -- who is there --------------------------------------------------------------------
    def _presence(self, slot: int) -> None:
        """Tell the members a seat's presence, when it changed (a player who resyncs
        changes nothing: asking again must not push a frame to everyone)."""
        seat = self.table.seats[slot]
        if seat is not None and self.shown.get(slot) != seat.presence:
            self.shown[slot] = seat.presence
            self.table.broadcast(
                m.PresenceUpdate(
                    table_id=self.table.id, seat=self.st.match.seat_of(slot), presence=seat.presence
                )
            )

    def set_auto_play(self, slot: int, on: bool) -> None:
        seat = self.table.seats[slot]
        assert seat is not None
        seat.auto_play = on
        if not on:
            seat.timeouts = 0
            self.prompted.pop(self.st.match.seat_of(slot), None)
        self._presence(slot)

    def _untimed_decision(self, s: int) -> bool:
        """Seat ``s`` decides now at a table with timers off (where being offline gets a
        grace of its own)."""
        hand = self.st.hand
        return (
            hand is not None
            and hand.timer is not None
            and s in self.deadlines
            and seconds(self.table.settings, hand.timer) is None
        )

    def player_gone(self, slot: int) -> None:
        self._presence(slot)
        s = self.st.match.seat_of(slot)
        if self._untimed_decision(s):
            self.deadlines[s] = trio.current_time() + offline_grace(self.table.settings)

    def player_back(self, slot: int) -> None:
        seat = self.table.seats[slot]
        assert seat is not None
        seat.counted = None  # its tile counts, if a counter runs, are sent again
        self.reading.discard(slot)  # a client coming back is not shown the result again
        s = self.st.match.seat_of(slot)
        self.prompted.pop(s, None)
        if self._untimed_decision(s):
            self.deadlines[s] = math.inf
        self._presence(slot)
        items.send_counts(self.table, self.st)

    def seat_filled(self, slot: int) -> None:
        """Someone sat in a seat left empty during the match: they play from the next
        hand on."""
        seat = self.table.seats[slot]
        assert seat is not None
        self.st.join(slot, seat.holder)


def _shown(viewer: int | None, winner: int | None) -> set[int]:
    """Whose concealed tiles a sealed hand's end shows ``viewer``: their own, and the
    winner's (a win is laid down for the table to see)."""
    return {s for s in (viewer, winner) if s is not None}
