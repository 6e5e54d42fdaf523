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
hand: ``hand_result`` (everything revealed, fans, points, the wall and its salt), the
hand's record in the database, then the settlement hooks (where coins plug in).
"""

from __future__ import annotations

import logging
import math
import secrets
from typing import TYPE_CHECKING, Any

import msgpack
import trio

from gbmj_server.game.actions import Action, ActionKind
from gbmj_server.game.events import SPECTATOR, Event, to_plain
from gbmj_server.game.hand_state import HandState, IllegalAction
from gbmj_server.game.match import Match
from gbmj_server.net.bots import make_bot
from gbmj_server.net.convert import event_wire, game_view_wire
from gbmj_server.net.errors import RequestError
from gbmj_server.net.lobby import Seat
from gbmj_server.net.wire import encode
from gbmj_server.storage import SeatRecord
from protocol.tiles import Tile

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
            if not table.humans():
                reason = "abandoned"  # everyone escaped
                break
            self.state = match.start_hand()
            self.decision = None
            self.publish(self.state.events)
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
                self._timed_out(state.to_act[0])
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

    def _timed_out(self, seat: int) -> None:
        """The clock ran out for ``seat``. The items issue hooks in here: an armed timer
        extension in ``self.holder(seat).items`` would move ``self.deadline`` instead."""
        assert self.state is not None
        self.publish(self.state.timeout(seat))

    def humans_changed(self) -> None:
        """A player came, went, or switched auto-play: look again."""
        self.wake.set()

    def prompt_again(self, player: int) -> None:
        self.prompted.pop(self.match.seat_of(player), None)
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
        bot = Seat(f"bot-{player + 1}", bot=make_bot(ESCAPE_BOT_LEVEL), bot_level=ESCAPE_BOT_LEVEL)
        bot.ready = True
        self.table.seats[player] = bot
        self.seat_changes.append(SeatRecord(player, None, bot.name, True))
        log.info("table %s: %s escaped", self.table.id, held.name if held else player)
        if self.state is not None and not self.state.ended:
            self.publish(self.match.escape(player))
        self.wake.set()

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
            held = self.holder(s)
            players.append(
                {
                    "name": held.name,
                    "bot": held.is_bot,
                    "connected": held.connected,
                    "auto_play": held.auto_play,
                    "score": scores[s],
                }
            )
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
        """Tell the table, store the hand, run the settlement hooks (coins plug in)."""
        self.hands_played += 1
        message = self.hand_result(state)
        self.table.broadcast(message)
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
        hand_id = await store.call(
            store.storage.record_hand,
            self.match_id,
            self.hands_played,
            state.round_number,
            state.hand_number,
            summary,
            log_blob,
        )
        for hook in self.server.settlement_hooks:
            await hook(self, state, hand_id)

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
            "standings": [
                {
                    "seat": p,
                    "name": self.table.seats[p].name,  # type: ignore[union-attr]
                    "rank": 1 + sum(1 for q in range(4) if standings[q] > standings[p]),
                    "points": standings[p],
                    "coins": 0,  # stakes arrive with the coins issue
                }
                for p in order
            ],
        }
