"""All tables: their ids, their actors, the indexes the rest of the server reads, and the
resumption of the matches a restart interrupted (docs/rules.md §2.4).

The indexes (where each account is seated, the empty tables waiting for their owner,
the tables with bots, each table's status, the lobby's entries, the table each player
is at) are kept from the reports each table's task sends after a change
(``gbmj_server.tables.reports``): a handler asks them, or sends the table a command and
awaits its answer, and never reads a table itself.

On several nodes (``gbmj_server.nodes``) the table ids come from the database, each table
holds a lease for its node, a table whose lease is lost stops where it is, and the
running matches of a node that died are resumed here as after a restart.

A resumed match is rebuilt from disk (``gbmj_server.storage.matches``): the engine
replays the match seed, the settled hands' logs and the actions written ahead of the
hand in play, so every tile is where it was. Bots are back in their seats; the humans are
offline until they sign in again, which puts them back at their seats.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from collections.abc import Callable, Sequence

import trio

from gbmj.bots import make_bot
from gbmj.game.actions import action_of, from_plain
from gbmj.game.duplicate import match_of_seed
from gbmj.game.match import Match
from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.nodes.leases import Leases
from gbmj_server.storage.matches import RunningMatch
from gbmj_server.tables.actor import TableActor
from gbmj_server.tables.context import TableContext
from gbmj_server.tables.play import Play
from gbmj_server.tables.reports import Closed, Entered, Left, Listed, Report, RoomChanged
from gbmj_server.tables.seat import STAND_IN_LEVEL, Participant, Seat, bot_participant
from gbmj_server.tables.session_rules import SessionRules
from gbmj_server.tables.settings import seat_changes
from gbmj_server.tables.state import MatchState
from gbmj_server.tables.table import Table
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.tiles import Tile
from protocol.vocabulary import ActionKind, BotLevel, LeaveReason, TableStatus

log = logging.getLogger(__name__)


class Tables:
    def __init__(self, ctx: TableContext, leases: Leases | None = None) -> None:
        self.ctx = ctx
        self.leases = leases  # None: the only node (SQLite)
        ctx.report = self._report
        self.actors: dict[int, TableActor] = {}
        self._scopes: dict[int, trio.CancelScope] = {}  # each table's task, to stop it
        self._made_from: dict[int, str] = {}  # table id -> the address key that made it
        self._last_id = 0
        # The indexes, kept from the tables' reports only.
        self._rooms: dict[int, RoomChanged] = {}  # table id -> its room as last reported
        self._seated: dict[int, int] = {}  # account id -> the table where it holds a seat
        self._waiting: dict[int, set[int]] = {}  # owner's account id -> empty tables kept
        self._bot_tables: set[int] = set()  # tables with a bot in a seat
        self._status: dict[int, TableStatus] = {}  # table id -> waiting or playing

    def __len__(self) -> int:
        return len(self.actors)

    def get(self, table_id: int) -> TableActor:
        actor = self.actors.get(table_id)
        if actor is None:
            raise RequestError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id}")
        return actor

    def where_seated(self, account_id: int) -> TableActor | None:
        """The table where the account holds a seat, if any."""
        table_id = self._seated.get(account_id)
        return None if table_id is None else self.actors.get(table_id)

    def seated(self) -> dict[int, int]:
        """Every seated account: account id -> table id (a copy)."""
        return dict(self._seated)

    def at(self, conn: Connection) -> TableActor | None:
        """The table ``conn``'s player is at (a member of), if any."""
        table_id = conn.session.table
        return None if table_id is None else self.actors.get(table_id)

    def statuses(self) -> Counter[TableStatus]:
        """How many tables wait and how many play."""
        return Counter(self._status.values())

    async def new_id(self) -> int:
        """The next table's id: this server's next, or, on several nodes, the database's
        (its lease taken)."""
        if self.leases is not None:
            return await self.leases.new_table()
        self._last_id += 1
        return self._last_id

    def create(
        self,
        settings: m.TableSettings,
        password: str | None,
        owner: Connection,
        address: str,
        table_id: int | None = None,
    ) -> TableActor:
        """A new table owned by ``owner`` (who enters it next), made from ``address``,
        numbered ``table_id`` (from ``new_id``; None: this server's next)."""
        account = owner.session.account
        assert account is not None
        if table_id is None:
            self._last_id += 1
            table_id = self._last_id
        table = Table(
            self.ctx,
            table_id,
            settings,
            password,
            (account.id, account.name),
            Play.start,
        )
        self._made_from[table.id] = address
        logs.event("table_created", table=table.id, account=account.id)
        return self._run(table)

    def waiting_for(self, account_id: int) -> list[TableActor]:
        """The empty tables waiting for their owner ``account_id`` to come back."""
        waiting = self._waiting.get(account_id, set())
        return [self.actors[i] for i in sorted(waiting) if i in self.actors]

    def owned_from(self, address: str) -> int:
        """Tables made from ``address`` that are still open."""
        return sum(1 for a in self._made_from.values() if a == address)

    def with_bots(self, address: str | None = None) -> int:
        """Open tables with a bot in a seat (of those made from ``address``, if given)."""
        if address is None:
            return len(self._bot_tables)
        return sum(1 for i in self._bot_tables if self._made_from.get(i) == address)

    def has_bots(self, table_id: int) -> bool:
        """A bot holds a seat at the table: it plays by itself."""
        return table_id in self._bot_tables

    def open_table(
        self,
        settings: m.TableSettings,
        owner: tuple[int, str],
        setup: Callable[[Table], None],
        table_id: int | None = None,
    ) -> TableActor:
        """A table the server opens itself (a tournament session's): ``setup`` seats it
        and starts its match before its task runs, so nobody finds it half made. Its id
        is ``table_id`` (from ``new_id``; None: this server's next)."""
        if table_id is None:
            self._last_id += 1
            table_id = self._last_id
        table = Table(self.ctx, table_id, settings, None, owner, Play.start)
        actor = TableActor(table)
        setup(table)
        logs.event("table_created", table=table.id, account=owner[0])
        return self._run(table, actor)

    def open_session_table(
        self,
        settings: m.TableSettings,
        organiser: str,
        seated: Sequence[tuple[str, int] | None],
        rules: SessionRules,
        match: Match,
        present: Sequence[Connection],
        table_id: int | None = None,
    ) -> TableActor:
        """A tournament session's table, its match running from the start: ``seated``
        by seat, a player's (name, account id) or None for a stand-in bot; the players
        ``present`` who wait in the lobby are at the table at once."""

        def setup(table: Table) -> None:
            for slot, who in enumerate(seated):
                if who is None:
                    seat = Seat(bot_participant(slot, STAND_IN_LEVEL), ready=True)
                    seat.brain = make_bot(STAND_IN_LEVEL, seed=secrets.randbits(64))
                else:
                    seat = Seat(Participant(*who), ready=True)
                table.set_seat(slot, seat)
            table.tournament = rules
            state = MatchState(match)
            for slot, seat_ in enumerate(table.seats):
                assert seat_ is not None
                state.join(slot, seat_.holder)
            table.play = Play(table, state)
            table.changed()
            for conn in present:
                if conn.session.table is None:  # in the lobby: at the table at once
                    table.welcome_back(conn)

        return self.open_table(settings, (0, organiser), setup, table_id)

    def _run(self, table: Table, actor: TableActor | None = None) -> TableActor:
        actor = actor or TableActor(table)
        self.actors[table.id] = actor
        scope = self._scopes[table.id] = trio.CancelScope()
        self.ctx.nursery.start_soon(self._task, actor, scope, name=f"table {table.id}")
        return actor

    @staticmethod
    async def _task(actor: TableActor, scope: trio.CancelScope) -> None:
        with scope:
            await actor.run()

    # -- the tables' reports ----------------------------------------------------------
    def _report(self, report: Report) -> None:
        """A table's task tells what changed (``gbmj_server.tables.reports``)."""
        match report:
            case RoomChanged():
                self._room(report)
            case Listed(info):
                self._status[info.table_id] = info.status
                self.ctx.lobby.publish(info)
            case Entered(table_id, conn):
                conn.session.table = table_id
                self.ctx.lobby.unwatch(conn)  # at a table, a client follows the table
            case Left(table_id, conn):
                if conn.session.table == table_id:
                    conn.session.table = None
            case Closed(table_id):
                self._closed(table_id)

    def _room(self, room: RoomChanged | None, table_id: int | None = None) -> None:
        """Index ``room`` in place of the table's last report (None: forget the table)."""
        table_id = room.table_id if room is not None else table_id
        assert table_id is not None
        old = self._rooms.pop(table_id, None)
        if old is not None:
            for account_id in old.seated:
                if self._seated.get(account_id) == table_id:
                    del self._seated[account_id]
            if old.waiting:
                waiting = self._waiting.get(old.owner_id, set())
                waiting.discard(table_id)
                if not waiting:
                    self._waiting.pop(old.owner_id, None)
        self._bot_tables.discard(table_id)
        if room is None:
            return
        self._rooms[table_id] = room
        for account_id in room.seated:
            self._seated[account_id] = table_id
        if room.waiting:
            self._waiting.setdefault(room.owner_id, set()).add(table_id)
        if room.bots:
            self._bot_tables.add(table_id)

    def _closed(self, table_id: int) -> None:
        logs.event("table_closed", table=table_id)
        self._room(None, table_id)
        self._status.pop(table_id, None)
        self.ctx.lobby.remove(table_id)
        self.actors.pop(table_id, None)
        self._made_from.pop(table_id, None)
        self._scopes.pop(table_id, None)
        if self.leases is not None:
            self.leases.release(table_id)

    # -- several nodes -----------------------------------------------------------------
    def running(self) -> set[int]:
        return set(self.actors)

    def stop(self, table_ids: set[int]) -> None:
        """This node lost the tables' leases: each stops where it is, settling nothing
        more (the node that holds the lease now resumes the match from the journal)."""
        for table_id in table_ids:
            scope = self._scopes.get(table_id)
            if scope is not None:
                logs.event("table_stopped", table=table_id)
                scope.cancel()

    async def take_over(self, table_ids: set[int]) -> int:
        """Resume here the running matches of ``table_ids`` (their leases this node's)."""
        return await self._resume(table_ids - set(self.actors))

    # -- after a restart ---------------------------------------------------------------
    async def resume(self) -> int:
        """Rebuild and run every match the disk holds unfinished (on several nodes: those
        of this node and those whose node's lease lapsed); how many."""
        store = self.ctx.store
        self._last_id = max(self._last_id, await store.call(store.storage.max_table_id))
        if self.leases is not None:
            return await self._resume(await self.leases.take(own=True))
        return await self._resume(None)

    async def _resume(self, table_ids: set[int] | None) -> int:
        store = self.ctx.store
        if table_ids is not None and not table_ids:
            return 0
        running = await store.call(store.storage.running_matches, table_ids)
        resumed = 0
        for record in running:
            try:
                table = self._rebuild(record)
            except Exception:
                log.exception("match %s could not be resumed: ended as abandoned", record.id)
                self._room(None, record.table_id)  # what the half-built table reported
                await store.call(store.storage.end_match, record.id, "abandoned")
                continue
            self._run(table)
            logs.event("match_resumed", table=table.id, match=record.id)
            resumed += 1
        return resumed

    def _rebuild(self, record: RunningMatch) -> Table:
        settings = m.TableSettings.from_wire(record.settings)
        owners = [p for p in record.players if p.name == record.owner and p.account_id]
        owner = (owners[0].account_id or 0, record.owner) if owners else (0, record.owner)
        table = Table(self.ctx, record.table_id, settings, None, owner, Play.start)
        table.password_digest = record.password_digest
        table.seq = record.last_seq
        st = match_state(record)
        for who in st.participants:  # the latest of each seat who has not left holds it
            if who.left is None:
                seat = Seat(who, ready=True)
                if who.is_bot:
                    level = who.bot_level or BotLevel.HARD
                    seat.brain = make_bot(level, seed=self.ctx.rng.getrandbits(64))
                table.set_seat(who.slot, seat)
        # The hand's clock goes on from its last step (the times stay in order).
        st.hand_started = trio.current_time() - (st.times[-1] if st.times else 0) / 1000
        table.play = Play(table, st)
        table.changed()
        return table


def match_state(record: RunningMatch) -> MatchState:
    """An unfinished match as the disk has it: its participants, and the engine replayed
    through the settled hands and the steps written ahead of the hand in play."""
    settings = m.TableSettings.from_wire(record.settings)
    # (a duplicate match's seed says so: docs/rules.md §2.14)
    match = match_of_seed(record.seed, settings.rounds, record.id, seat_changes(settings))
    st = MatchState(match, match_id=record.id)
    for p in record.players:
        st.participants.append(
            Participant(
                p.name,
                p.account_id,
                guest=p.guest,
                bot_level=None if p.bot_level is None else BotLevel(p.bot_level),
                points=p.points,
                coins=p.coins,
                left=None if p.left_reason is None else LeaveReason(p.left_reason),
                slot=p.slot,
                record_id=p.n,
            )
        )
    match = st.match
    for booked in record.hand_logs:
        hand = match.start_hand()
        for seat, action in booked["hand"]["log"]:
            if action["kind"] == "escape":
                match.escape(match.player_at(seat))
            else:
                hand.apply(seat, from_plain(action))
        match.finish_hand()
    st.number = len(record.hand_logs)
    if not record.actions:
        return st
    hand = st.hand = match.start_hand()
    st.number += 1
    for step in record.actions[1:]:  # 0 is the deal
        if step.kind == "escape":
            slot = match.player_at(step.seat)
            match.escape(slot)
            left = [
                p
                for p in st.participants
                if p.slot == slot and p.left in (LeaveReason.LEFT, LeaveReason.KICKED)
            ]
            if left:
                st.escapers[slot] = left[-1]
        else:
            tile = None if step.tile is None else Tile(step.tile)
            hand.apply(step.seat, action_of(ActionKind(step.kind), tile))
        st.times.append(step.ms)
    return st
