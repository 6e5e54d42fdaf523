"""``TableGame``: the one trio task per table that drives the pure engine through a match.

Players and seats: the lobby's seats 0-3 are the match's *players*; the engine's
``Match`` places them at the table (a random first seating, the seat changes between
rounds), so the hand engine's seat ``s`` is played by player ``match.players[s]``.
Everything sent during a hand speaks engine seats (the snapshot's ``seat`` too).

For each decision point the task asks the engine who must act (``to_act``) and with
which clock (``timer``), starts that clock from the table's settings, sends each human
seat a ``prompt`` (legal actions, ms left, the table's seq), plays at once for bots, for
seats whose player is away (disconnected) and for seats on auto-play (托管), and when the
clock runs out applies the engine's timeout action. Human actions arrive through
``submit`` (called by the connection's handler) and are checked against the engine's
legal list; anything else is refused with an error and changes nothing.

Every engine event goes to each member in that member's own form (``for_viewer``), with
a per-table sequence number; a (re)joining member gets a ``snapshot`` first. After each
hand: the hand's record and its settlement in one database transaction (coins × the
stake, ratings, a win's random item), then ``hand_result`` (everything revealed, fans,
points, coins, the wall and its salt), then the settlement hooks; at a stake table a
player left with less than ``100 × stake`` is stood up.

Items at the table (SPEC §2.6): an armed timer extension fires in ``_timed_out`` when
its holder's own discard turn runs out; a tile counter in use gets ``tile_counts`` after
every change (``publish``).
"""

from __future__ import annotations

import logging
import math
import secrets
from typing import TYPE_CHECKING, Any

import msgpack
import trio

from gbmj.economy.counter import unseen_counts
from gbmj.economy.items import (
    TIMER_EXTENSION_SECONDS,
    TIMER_EXTENSION_SHARE,
    roll_drop,
)
from gbmj.economy.stakes import hand_payments, min_coins
from gbmj.game.actions import Action
from gbmj.game.events import SPECTATOR, Event, to_plain
from gbmj.game.hand_state import HandState, IllegalAction
from gbmj.game.match import Match
from gbmj_server.net.bots import make_bot
from gbmj_server.net.convert import event_wire, game_view_wire
from gbmj_server.net.errors import RequestError
from gbmj_server.net.lobby import Seat
from gbmj_server.net.wire import encode
from gbmj_server.storage import LedgerError, NoSuchItem, Payment, SeatRecord
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, TimerClass

if TYPE_CHECKING:
    from gbmj_server.net.client import Client
    from gbmj_server.net.lobby import Table
    from gbmj_server.net.server import Server

log = logging.getLogger(__name__)

ESCAPE_BOT_LEVEL = "normal"


class TableGame:
    def __init__(self, table: Table, server: Server) -> None:
        self.table = table
        self.server = server
        seed = server.match_seed if server.match_seed is not None else secrets.token_bytes(32)
        self.match = Match(seed, table.settings.rounds)
        self.seq = 0  # per-table event sequence number
        self.state: HandState | None = None
        self.hands_played = 0
        self.match_id: int | None = None
        self.wake = trio.Event()  # something changed: the loop looks again
        self.decision: tuple[Any, ...] | None = None
        self.deadline = math.inf
        self.prompted: dict[int, int] = {}  # engine seat -> the seq of its open prompt
        self.bot_waited = False
        self.seat_changes: list[SeatRecord] = []
        self.escapers: dict[int, Seat] = {}  # player -> who escaped this hand
        self.coins = [0, 0, 0, 0]  # coins won by player over the match
        self.counted: dict[int, tuple[int, ...]] = {}  # player -> tile counts last sent
        self.cancel_scope = trio.CancelScope()  # cancel(): the match stops, unsettled

    # -- players and seats ---------------------------------------------------------

    def holder(self, seat: int) -> Seat:
        """Who plays engine seat ``seat`` in the current hand."""
        held = self.table.seats[self.match.player_at(seat)]
        assert held is not None
        return held

    def engine_seat(self, client: Client) -> int | None:
        """The engine seat of ``client``'s player (None: a spectator)."""
        player = self.table.seat_index(client)
        return None if player is None else self.match.seat_of(player)

    def scores(self) -> list[int]:
        """Match points by engine seat (the standings are kept by player)."""
        return [self.match.standings[self.match.player_at(s)] for s in range(4)]

    # -- the task ------------------------------------------------------------------

    async def run(self) -> None:
        try:
            with self.cancel_scope:
                await self._run()
        except* Exception:
            # A bug must end this match, never the server.
            log.exception("table %s: the match failed", self.table.id)
        finally:
            self.table.match_over()

    async def _run(self) -> None:
        table, store, match = self.table, self.server.store, self.match
        settings = table.settings
        records = [
            SeatRecord(i, s.account_id, s.name, s.is_bot)
            for i, s in enumerate(table.seats)
            if s is not None
        ]
        self.match_id = await store.call(
            store.storage.start_match, settings.name, settings.to_wire(), records
        )
        reason = "finished"
        while not match.finished:
            if not table.humans() or not await self._wait_for_seats():
                reason = "abandoned"  # everyone escaped
                break
            self.state = match.start_hand()
            self.decision = None
            self.publish(self.state.events)
            # The first seating is drawn and seats change between rounds: a fresh
            # snapshot tells every member who now sits where.
            for client in list(self.table.members):
                client.send(self.snapshot(client))
            if not await self.play_hand(self.state):
                reason = "abandoned"  # all humans gone: the hand is not settled
                break
            match.finish_hand()
            await self.settle(self.state)
            if self.server.hand_pause and not match.finished:
                await trio.sleep(self.server.hand_pause)
        await store.call(
            store.storage.end_match,
            self.match_id,
            reason,
            list(match.standings) if reason == "finished" else None,
        )
        if reason == "finished":
            table.broadcast(self.match_result())

    async def _wait_for_seats(self) -> bool:
        """A seat left empty (a player stood up, the owner chose to wait): hold the match
        until someone sits there; False if the humans all go meanwhile."""
        while any(s is None for s in self.table.seats):
            if not self.table.humans():
                return False
            self.wake = trio.Event()
            await self.wake.wait()
        return True

    async def play_hand(self, state: HandState) -> bool:
        """Drive one hand to its end; False if it was abandoned (no human came back)."""
        while not state.ended:
            if not self._humans_present() and not await self._wait_for_humans():
                return False
            key = (state.phase, state.turn_seat, state.discard_count, state.offer)
            if key != self.decision:  # a new decision point: a new clock
                self.decision = key
                seconds = self.table.settings.seconds(state.timer.value)  # type: ignore[union-attr]
                self.deadline = math.inf if seconds is None else trio.current_time() + seconds
                self.prompted.clear()
                self.bot_waited = False
            auto = next((s for s in state.to_act if self._automatic(s)), None)
            if auto is not None:
                if self.holder(auto).is_bot and self.server.bot_delay and not self.bot_waited:
                    self.bot_waited = True  # bots "think" once per decision
                    await trio.sleep(self.server.bot_delay)
                    continue
                self._play_for(auto)
                await trio.sleep(0)  # let other tables and clients run
                continue
            for seat in state.to_act:
                if self.prompted.get(seat) != self.seq:
                    self._prompt(seat)
            self.wake = trio.Event()
            with trio.move_on_at(self.deadline):
                await self.wake.wait()
            if key == self.decision and trio.current_time() >= self.deadline:
                await self._timed_out(state.to_act[0])
        return True

    # -- who plays a seat ----------------------------------------------------------

    def _automatic(self, seat: int) -> bool:
        held = self.holder(seat)
        return held.is_bot or not held.connected or held.auto_play

    def _humans_present(self) -> bool:
        return any(s.connected for s in self.table.humans())

    async def _wait_for_humans(self) -> bool:
        """Nobody human is connected: hold the hand for a reconnect, a little while."""
        with trio.move_on_after(self.server.abandon_grace):
            while not self._humans_present():
                self.wake = trio.Event()
                await self.wake.wait()
        return self._humans_present()

    def _play_for(self, seat: int) -> None:
        """A bot chooses; an away or auto-playing human gets the timeout action."""
        state = self.state
        assert state is not None
        held = self.holder(seat)
        if held.bot is not None:
            legal = state.legal_actions(seat)
            try:
                action = held.bot.choose(state.view(seat), legal)
                events = state.apply(seat, action)
            except Exception:  # a broken bot must not stop the table
                log.exception("table %s: bot in seat %s failed", self.table.id, seat)
                events = state.timeout(seat)
        else:
            events = state.timeout(seat)
        self.publish(events)

    async def _timed_out(self, seat: int) -> None:
        """The clock ran out for ``seat``: an armed timer extension on the seat's own
        discard turn moves the deadline instead; otherwise the timeout action."""
        state = self.state
        assert state is not None
        key = self.decision
        if state.timer in (TimerClass.FIRST_DISCARD, TimerClass.TURN):
            extended = await self._extend(seat)
            if extended or key != self.decision:  # extended, or the seat acted meanwhile
                return
        self.publish(state.timeout(seat))

    async def _extend(self, seat: int) -> bool:
        """Fire ``seat``'s armed timer extension (SPEC §2.6): one item used, 270 coins
        from its holder, 90 to each other seat (a bot's or guest's share to the house),
        the deadline 90 s later, and every member told. Without the coins (or the item) it
        does not fire."""
        held = self.holder(seat)
        if not held.items.get("timer_extension") or held.wallet is None:
            return False
        payments = [
            Payment(held.wallet, self.holder(s).wallet, TIMER_EXTENSION_SHARE, "timer_extension")
            for s in range(4)
            if s != seat
        ]
        store = self.server.store
        try:
            await store.call(
                store.storage.use_item, held.wallet, "timer_extension", payments, self.match_id
            )
        except NoSuchItem:
            held.items.pop("timer_extension", None)
            return False
        except LedgerError:
            return False  # too few coins: it stays armed, and does not fire
        held.items.pop("timer_extension", None)  # one arming, one use
        self.deadline += TIMER_EXTENSION_SECONDS
        self.table.broadcast(
            {
                "type": "timer_extended",
                "table_id": self.table.id,
                "seat": seat,
                "ms_left": self.ms_left(),
            }
        )
        self.prompted.pop(seat, None)  # prompt again with the new time left
        for payer_or_payee in {held, *(self.holder(s) for s in range(4))}:
            await self.server.send_profile(payer_or_payee)
        return True

    def humans_changed(self) -> None:
        """A player came, went, or switched auto-play: look again."""
        self.wake.set()

    def prompt_again(self, player: int) -> None:
        self.prompted.pop(self.match.seat_of(player), None)
        self.counted.pop(player, None)  # a reconnected client gets its tile counts again
        self._send_counts()
        self.wake.set()

    # -- what players send ---------------------------------------------------------

    def submit(self, client: Client, message: dict[str, Any]) -> None:
        """A player's ``action``: applied if it is legal now, else RequestError."""
        state = self.state
        if state is None or state.ended:
            raise RequestError("not_expected", "no hand is in play")
        seat = self.engine_seat(client)
        if seat is None:
            raise RequestError("not_seated", "spectators cannot act")
        if seat not in state.to_act:
            raise RequestError("not_your_turn", "you have nothing to decide now")
        if message["seq"] != self.prompted.get(seat):
            raise RequestError("stale", "that prompt is no longer open")
        tile = message.get("tile")
        action = Action(ActionKind(message["kind"]), None if tile is None else Tile(tile))
        if action not in state.legal_actions(seat):
            if action.kind is ActionKind.WIN:
                raise RequestError("false_win", "that is not a win of 8 fan")
            raise RequestError("illegal_action", f"{action} is not one of your choices")
        try:
            events = state.apply(seat, action)
        except IllegalAction as exc:  # the legal list said yes: should not happen
            raise RequestError("illegal_action", str(exc)) from None
        self.prompted.pop(seat, None)
        self.publish(events)
        self.wake.set()

    def escape(self, player: int) -> None:
        """Player ``player`` left on purpose: the hand ends (the escaper pays), and a bot
        plays the seat for the rest of the match."""
        held = self.table.seats[player]
        self._bot_for(player)
        log.info("table %s: %s escaped", self.table.id, held.name if held else player)
        if self.state is not None and not self.state.ended:
            if held is not None:
                self.escapers[player] = held  # pays the escape when the hand settles
            self.publish(self.match.escape(player))
        self.wake.set()

    def seat_taken(self, player: int) -> None:
        """Someone sat in a seat left empty during the match: recorded with the next hand."""
        held = self.table.seats[player]
        assert held is not None
        self.seat_changes.append(SeatRecord(player, held.account_id, held.name, held.is_bot))
        self.wake.set()

    def _bot_for(self, player: int) -> None:
        """A bot takes player ``player``'s seat for the rest of the match."""
        bot = Seat(f"bot-{player + 1}", bot=make_bot(ESCAPE_BOT_LEVEL), bot_level=ESCAPE_BOT_LEVEL)
        bot.ready = True
        self.table.seats[player] = bot
        self.seat_changes.append(SeatRecord(player, None, bot.name, True))
        self.counted.pop(player, None)

    # -- what members receive ------------------------------------------------------

    def _viewer(self, client: Client) -> int:
        seat = self.engine_seat(client)
        return SPECTATOR if seat is None else seat

    def publish(self, events: list[Event]) -> None:
        """Each event to every member, in that member's form, with the next seq."""
        members = [(c, self._viewer(c)) for c in self.table.members]
        for event in events:
            self.seq += 1
            frames: dict[int, bytes] = {}  # one encoding per distinct form
            for client, viewer in members:
                form = event.for_viewer(viewer)
                key = -2 if form is event else viewer
                frame = frames.get(key)
                if frame is None:
                    frame = encode(
                        {
                            "type": "event",
                            "table_id": self.table.id,
                            "seq": self.seq,
                            "event": event_wire(form),
                        }
                    )
                    frames[key] = frame
                client.send_frame(frame)
        if events:
            self._send_counts()

    # -- the tile counter ---------------------------------------------------------------

    def use_tile_counter(self, client: Client) -> Seat:
        """Check that ``client`` may start a tile counter now and mark it pending (the
        item is taken next, then ``start_tile_counter``); returns the seat."""
        state = self.state
        if state is None or state.ended:
            raise RequestError("not_expected", "no hand is in play")
        player = self.table.seat_index(client)
        if player is None:
            raise RequestError("not_seated", "spectators cannot use items")
        held = self.table.seats[player]
        assert held is not None
        running = held.items.get("tile_counter")
        if running is state or running == ("pending", state):
            raise RequestError("not_expected", "a tile counter already runs this hand")
        held.items["tile_counter"] = ("pending", state)  # a second request waits its turn
        return held

    def start_tile_counter(self, client: Client) -> dict[str, Any]:
        """The counter runs for ``client``'s seat for the rest of the hand."""
        player = self.table.seat_index(client)
        assert player is not None and self.state is not None
        self.table.seats[player].items["tile_counter"] = self.state  # type: ignore[union-attr]
        counts = self._counts(player)
        self.counted[player] = counts
        return self._counts_message(counts)

    def _counts(self, player: int) -> tuple[int, ...]:
        assert self.state is not None
        return unseen_counts(self.state.view(self.match.seat_of(player)))

    def _counts_message(self, counts: tuple[int, ...]) -> dict[str, Any]:
        return {"type": "tile_counts", "table_id": self.table.id, "seq": self.seq, "counts": counts}

    def _send_counts(self) -> None:
        """Each running tile counter, to its user only, when its counts changed."""
        state = self.state
        if state is None:
            return
        for player, held in enumerate(self.table.seats):
            if held is None or held.items.get("tile_counter") is not state:
                continue
            counts = self._counts(player)
            if counts != self.counted.get(player) and held.client is not None:
                self.counted[player] = counts
                held.client.send(self._counts_message(counts))

    def ms_left(self) -> int | None:
        if math.isinf(self.deadline):
            return None
        return max(0, round((self.deadline - trio.current_time()) * 1000))

    def _prompt(self, seat: int) -> None:
        state = self.state
        assert state is not None and state.timer is not None
        self.prompted[seat] = self.seq
        client = self.holder(seat).client
        if client is None:
            return
        client.send(
            {
                "type": "prompt",
                "table_id": self.table.id,
                "seq": self.seq,
                "actions": [a.to_dict() for a in state.legal_actions(seat)],
                "timer": state.timer.value,
                "ms_left": self.ms_left(),
            }
        )

    def snapshot(self, client: Client) -> dict[str, Any]:
        """Everything ``client`` may see of the table now (its own tiles if seated)."""
        seat = self.engine_seat(client)
        scores = self.scores()
        players = []
        for s in range(4):
            held = self.table.seats[self.match.player_at(s)]
            player = {
                "name": "-" if held is None else held.name,  # "-": waiting for a player
                "bot": held is not None and held.is_bot,
                "presence": "online"
                if held is None or (held.connected and not held.auto_play)
                else ("offline" if not held.connected else "auto_play"),
                "score": scores[s],
            }
            if held is not None and held.level is not None:
                player["level"] = held.level
            players.append(player)
        message: dict[str, Any] = {
            "type": "snapshot",
            "table": self.table.info(),
            "seat": seat,
            "seq": self.seq,
            "players": players,
        }
        state = self.state
        if state is not None and not state.ended:
            viewer = SPECTATOR if seat is None else seat
            message["game"] = game_view_wire(state, viewer, self.ms_left())
        return message

    # -- after a hand --------------------------------------------------------------

    async def settle(self, state: HandState) -> None:
        """Record and settle the hand in one transaction, tell the table, run the hooks,
        and stand up whoever can no longer cover the stake."""
        self.hands_played += 1
        message = self.hand_result(state)
        store = self.server.store
        for change in self.seat_changes:
            await store.call(store.storage.set_seat, self.match_id, change)
        self.seat_changes.clear()
        summary = {
            k: v
            for k, v in message.items()
            if k not in ("type", "concealed", "melds", "flowers", "wall_order")
        }
        summary["players"] = list(self.match.history[-1].players)
        log_blob = msgpack.packb(
            {"hand": state.to_dict(), "events": [e.to_dict() for e in state.events]},
            use_bin_type=True,
        )
        # Who played each engine seat this hand (an escaper is still the one who pays).
        players = self.match.history[-1].players
        seated = [self.escapers.get(p) or self.table.seats[p] for p in players]
        self.escapers.clear()
        result = state.result
        assert result is not None
        stake = self.table.settings.stake
        owed = hand_payments(result.points, stake, result.winner, result.escaper)
        payments = [
            Payment(
                seated[p.payer].wallet,  # type: ignore[union-attr]
                None if p.payee is None else seated[p.payee].wallet,  # type: ignore[union-attr]
                p.amount,
                "escape" if p.payee is None else "hand",
            )
            for p in owed
        ]
        ratings = [
            (held.account_id, result.points[s])
            for s, held in enumerate(seated)
            if held is not None and held.wallet is not None and result.points[s]
        ]
        award = None
        if result.winner is not None and seated[result.winner].wallet is not None:  # type: ignore[union-attr]
            rng = self.server.rng
            item = roll_drop(rng.random(), rng.randrange(1 << 30))
            if item is not None:
                award = (seated[result.winner].wallet, item)  # type: ignore[union-attr]
        settled = await store.call(
            store.storage.settle_hand,
            self.match_id,
            self.hands_played,
            state.round_number,
            state.hand_number,
            summary,
            log_blob,
            payments,
            ratings,
            award,
        )
        if stake:
            coins = [0, 0, 0, 0]
            for p, moved in zip(owed, settled.moved, strict=True):
                coins[p.payer] -= moved
                if p.payee is not None:
                    coins[p.payee] += moved
            message["coins"] = coins
            for s, delta in enumerate(coins):
                self.coins[players[s]] += delta
        self.table.broadcast(message)
        if settled.awarded is not None:
            winner = seated[result.winner]  # type: ignore[index]
            if winner is not None and winner.client is not None:
                winner.client.send({"type": "item_awarded", "item": settled.awarded, "count": 1})
        levels = []
        for held in {h for h in seated if h is not None and h.wallet is not None}:
            before = held.level
            await self.server.send_profile(held)
            levels.append(held.level != before)
        if any(levels):
            self.table.changed()  # a level beside a name moved
        for hook in self.server.settlement_hooks:
            await hook(self, state, settled.hand_id)
        if stake and not self.match.finished:
            await self.stand_up_broke()

    async def stand_up_broke(self) -> None:
        """Players below ``100 × stake`` lose their seat (SPEC §2.5): a bot takes it, or
        the seat stays empty and the match waits for a new player (the owner's choice)."""
        store, need = self.server.store, min_coins(self.table.settings.stake)
        for player, held in enumerate(self.table.seats):
            if held is None or held.wallet is None:
                continue
            coins = await store.call(store.storage.balance, held.wallet)
            if coins is None or coins >= need:
                continue
            log.info("table %s: %s stood up (%s coins)", self.table.id, held.name, coins)
            if self.table.settings.when_broke == "pause":
                self.table.seats[player] = None
            else:
                self._bot_for(player)
            client = held.client
            if client is not None and client.table is self.table:
                self.table.members.discard(client)
                client.table = None
                client.send(
                    {"type": "table_left", "table_id": self.table.id, "reason": "not_enough_coins"}
                )
        self.table.changed()

    def hand_result(self, state: HandState) -> dict[str, Any]:
        result = state.result
        assert result is not None
        score = result.score
        wall = state.wall
        # The hand's seating (finish_hand may already have moved players for a new round).
        players = self.match.history[-1].players
        standings = self.match.standings
        return {
            "type": "hand_result",
            "table_id": self.table.id,
            "round_number": state.round_number,
            "hand_number": state.hand_number,
            "outcome": result.outcome.value,
            "winner": result.winner,
            "from_seat": result.from_seat if result.winner is not None else None,
            "win_tile": None if result.win_tile is None else int(result.win_tile),
            "escaper": result.escaper,
            "fans": [(fc.fan.id, fc.count) for fc in score.fans] if score else [],
            "total": score.total if score else 0,
            "points": list(result.points),
            "scores": [standings[players[s]] for s in range(4)],
            "concealed": [[int(t) for t in state.concealed(s)] for s in range(4)],
            "melds": [[to_plain(m) for m in state.melds(s)] for s in range(4)],
            "flowers": [[int(t) for t in state.flowers(s)] for s in range(4)],
            "wall_order": [int(t) for t in wall.order],
            "salt": wall.salt.hex(),
            "commitment": wall.commitment,
        }

    def match_result(self) -> dict[str, Any]:
        """Standings by rank; ``seat`` is the player's lobby seat."""
        standings = self.match.standings
        order = sorted(range(4), key=lambda p: -standings[p])
        return {
            "type": "match_result",
            "table_id": self.table.id,
            "reason": "finished",
            "standings": [
                {
                    "seat": self.match.seat_of(p),
                    "bot": self.table.seats[p].is_bot,  # type: ignore[union-attr]
                    "name": self.table.seats[p].name,  # type: ignore[union-attr]
                    "rank": 1 + sum(1 for q in range(4) if standings[q] > standings[p]),
                    "points": standings[p],
                    "coins": self.coins[p],
                }
                for p in order
            ],
        }
