"""The tournament runner: one task per running tournament (docs/rules.md §2.12).

A session goes: seat it (the pure rules of ``gbmj.tournament`` on the standings so far),
write the seating, tell the players where they sit, wait for them (``grace_seconds`` at
most), open each table with its players at their places (a bot for each absent one) and
its match started, then wait for every table's match to end and write its results. After
a pause the next session is seated; after the last the tournament is finished.

Everything the runner decides is on disk before it acts on it, so a restarted server
goes on where it stopped: the matches resume like any match (``Tables.resume``), and the
runner finds each session table's match by its table id, gives the resumed table its
session rules again and waits for it as before. On several nodes one node runs the
tournaments (``runs``: it holds the role, ``gbmj_server.nodes.leases``); a node that
takes the role over from one that died goes on the same way, giving each session table
its rules when it arrives here.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from gbmj.game.duplicate import Deal, deals_from_seed, duplicate_seed, match_of_seed, seating
from gbmj.game.match import Match
from gbmj.tournament.duplicate import (
    DEFAULT_SCALE,
    STEPS,
    DealsInPlay,
    Result,
    StepScale,
    scale_of,
    scale_words,
    totals,
)
from gbmj.tournament.points import places, table_points
from gbmj.tournament.seating import Plan, Seating, known_ahead, seat_session
from gbmj.tournament.standings import SessionResult, Standing, standings
from gbmj.tournament.winds import add_winds, balance_session
from gbmj_server import logs
from gbmj_server.net.connection import Connection
from gbmj_server.net.sessions import Sessions
from gbmj_server.storage import Storage
from gbmj_server.storage.threads import AsyncStorage
from gbmj_server.storage.tournaments import (
    Entrant,
    ResultRecord,
    SessionTable,
    TournamentError,
    TournamentRecord,
)
from gbmj_server.tables import commands as do
from gbmj_server.tables.registry import Tables
from gbmj_server.tables.session_rules import SessionRules
from protocol import messages as m

log = logging.getLogger(__name__)

POLL = 2.0  # seconds between two looks at a session's tables (a match's end also wakes)
MAX_ENTRANTS = 64
RETRY = 10.0  # seconds before a failed step is tried again

__all__ = ["Settings", "TournamentError", "Tournaments"]


@dataclass(frozen=True)
class Settings:
    """What the organiser sets when creating a tournament."""

    name: str
    sessions: int = 4
    hands: int = 16
    minutes: int = 90
    drawn: bool = True
    seed: int | None = None  # None: drawn at creation
    leaders_last: bool = False
    absent_counts: bool = False
    spectators: bool = False
    turn_seconds: int = 15
    grace_seconds: int = 60
    pause_seconds: int = 60
    duplicate: bool = False  # every table of a session plays the same deals (§2.14)
    scale: str = STEPS  # a duplicate one's: the default steps, "raw", or "10,20,40"

    def check(self) -> None:
        name = self.name.strip()
        if not name or len(name) > 30 or not name.isprintable():
            raise TournamentError("a tournament's name is 1-30 printable characters")
        for what, value, low, high in (
            ("sessions", self.sessions, 1, 16),
            ("hands", self.hands, 1, 16),
            ("minutes", self.minutes, 1, 600),
            ("turn_seconds", self.turn_seconds, 3, 600),
            ("grace_seconds", self.grace_seconds, 0, 3600),
            ("pause_seconds", self.pause_seconds, 0, 3600),
        ):
            if not low <= value <= high:
                raise TournamentError(f"{what} must be {low}-{high}")
        if not self.duplicate and self.scale != STEPS:
            raise TournamentError("a scale is for a duplicate tournament (--duplicate)")
        try:
            scale_of(self.scale)
        except ValueError as exc:
            raise TournamentError(str(exc)) from None


def plan_of(t: TournamentRecord) -> Plan:
    return Plan(t.sessions, t.seed if t.drawn else None, t.leaders_last)


def field_of(entrants: Sequence[Entrant]) -> list[int]:
    """The players to seat, in entry order: the entrants not dropped, and bots (``-1``,
    ``-2``, ``-3``, so written in the session's tables) to fill the last table."""
    players = [e.n for e in entrants if not e.dropped]
    fillers = -len(players) % 4
    return players + [-(i + 1) for i in range(fillers)]


def session_results(results: Sequence[ResultRecord]) -> list[SessionResult]:
    return [SessionResult(r.n, r.session, r.table_points, r.score, r.place) for r in results]


def places_by_slot(seed: bytes, rounds: int) -> list[int]:
    """The table seat (slot) of each place, East first, in a match of this seed: the
    match's first seating is drawn from its seed (docs/rules.md §1.5), so the runner
    seats each player in the slot the seed sends to their place."""
    match = Match(seed, rounds)
    return [match.player_at(place) for place in range(4)]


def rounds_for(hands: int) -> int:
    return min(4, math.ceil(hands / 4))


@dataclass(frozen=True)
class Detail:
    """A tournament as the players see it: the record, the entrants, the standings, the
    sessions' tables and results."""

    record: TournamentRecord
    entrants: list[Entrant]
    standings: list[Standing]
    tables: list[SessionTable]
    results: list[ResultRecord]

    def name_of(self, n: int) -> str:
        if n < 0:
            return "bot"
        return next((e.name for e in self.entrants if e.n == n), "?")


def load_detail(storage: Storage, tournament_id: int) -> Detail:
    """A tournament read from the file (the running server's, or the file alone)."""
    t = storage.tournament(tournament_id)
    if t is None:
        raise TournamentError(f"no tournament {tournament_id}")
    entrants = storage.entrants(t.id)
    results = storage.tournament_results(t.id)
    lines = standings([e.n for e in entrants], session_results(results))
    return Detail(t, entrants, lines, storage.session_tables(t.id), results)


class Tournaments:
    """Every tournament of the server: the organisers' and players' requests, and a
    task for each running one."""

    def __init__(
        self, store: AsyncStorage, sessions: Sessions, tables: Tables, nursery: trio.Nursery
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.tables = tables
        self.nursery = nursery
        self.running: dict[int, trio.Event] = {}  # tournament id -> its runner's wake-up
        # Whether this server runs the tournaments: on several nodes, the node that holds
        # the role (``gbmj_server.nodes.leases.TOURNAMENTS``); the others start none.
        self.runs = True
        self._scopes: dict[int, trio.CancelScope] = {}  # tournament id -> its runner's
        # The tables of the duplicate sessions in play, each with its session's deals as
        # its tables play them and its own index: a deal's hands stay closed (history,
        # replays, the walls) until no table will play it any more (§2.14).
        self.in_play: dict[int, tuple[DealsInPlay, int]] = {}

    def deal_closed(self, table_id: int | None, number: int) -> bool:
        """Whether hand ``number`` of the match played at ``table_id`` is closed: a deal
        of a duplicate session that a table has still to play."""
        found = None if table_id is None else self.in_play.get(table_id)
        return found is not None and not found[0].open(number)

    # -- requests ------------------------------------------------------------------------
    async def create(
        self, organiser: str, settings: Settings, organiser_id: int | None = None
    ) -> TournamentRecord:
        """A new tournament, open for registration; its organiser the host (no
        ``organiser_id``) or a player the host allows."""
        settings.check()
        seed = settings.seed if settings.seed is not None else secrets.randbits(62)
        storage = self.store.storage
        record = await self.store.call(
            storage.create_tournament,
            settings.name.strip(),
            organiser,
            organiser_id=organiser_id,
            sessions=settings.sessions,
            hands=settings.hands,
            minutes=settings.minutes,
            drawn=settings.drawn,
            seed=seed,
            leaders_last=settings.leaders_last,
            absent_counts=settings.absent_counts,
            spectators=settings.spectators,
            turn_seconds=settings.turn_seconds,
            grace_seconds=settings.grace_seconds,
            pause_seconds=settings.pause_seconds,
            duplicate=settings.duplicate,
            scale=scale_words(scale_of(settings.scale)),
        )
        logs.event("tournament_created", tournament=record.id)
        return record

    async def get(self, tournament_id: int) -> TournamentRecord:
        found = await self.store.call(self.store.storage.tournament, tournament_id)
        if found is None:
            raise TournamentError(f"no tournament {tournament_id}")
        return found

    async def registration(self, tournament_id: int, open_: bool) -> str:
        t = await self.get(tournament_id)
        if t.state not in ("open", "closed"):
            raise TournamentError(f"tournament {t.id} is {t.state}")
        state = "open" if open_ else "closed"
        await self.store.call(self.store.storage.set_tournament_state, t.id, state)
        return f"tournament {t.id}: registration {state}"

    async def enter(self, tournament_id: int, account_id: int, name: str) -> Entrant:
        count = len(await self.store.call(self.store.storage.entrants, tournament_id))
        if count >= MAX_ENTRANTS:
            raise TournamentError(f"a tournament takes at most {MAX_ENTRANTS} players")
        return await self.store.call(
            self.store.storage.enter_tournament, tournament_id, account_id, name
        )

    async def withdraw(self, tournament_id: int, account_id: int) -> None:
        await self.store.call(self.store.storage.withdraw, tournament_id, account_id)

    async def drop(self, tournament_id: int, name: str) -> str:
        """The organiser drops a player: from the next session on (a session in play
        keeps them at their table)."""
        t = await self.get(tournament_id)
        if t.state == "finished":
            raise TournamentError(f"tournament {t.id} is finished")
        entrant = await self.store.call(self.store.storage.drop_entrant, t.id, name)
        return f"{entrant.name} dropped from tournament {t.id}"

    async def start(self, tournament_id: int) -> str:
        t = await self.get(tournament_id)
        if t.state not in ("open", "closed"):
            raise TournamentError(f"tournament {t.id} is {t.state}")
        entrants = await self.store.call(self.store.storage.entrants, t.id)
        if sum(1 for e in entrants if not e.dropped) < 4:
            raise TournamentError("a tournament needs at least four players")
        await self.store.call(self.store.storage.set_tournament_state, t.id, "running")
        self._run(t.id)
        logs.event("tournament_started", tournament=t.id, players=len(entrants))
        return f"tournament {t.id} started with {len(entrants)} players"

    async def detail(self, tournament_id: int) -> Detail:
        return await self.store.call(load_detail, self.store.storage, tournament_id)

    # -- running -------------------------------------------------------------------------
    async def resume(self) -> int:
        """Go on with every running tournament this server does not run yet: those a
        restart interrupted (after ``Tables.resume``), and on several nodes those
        another node ran or started (its role taken over, or a start asked there)."""
        if not self.runs:
            return 0
        running = await self.store.call(self.store.storage.tournaments, ("running",))
        running = [t for t in running if t.id not in self.running]
        for t in running:
            if t.duplicate:  # closed again before anyone can ask (§2.14)
                sessions = await self.store.call(self.store.storage.tournament_sessions, t.id)
                if sessions and sessions[-1].finished_at is None:
                    await self._deals_in_play(t.id, sessions[-1].number)
            self._run(t.id)
            logs.event("tournament_resumed", tournament=t.id)
        return len(running)

    async def _deals_in_play(self, tournament_id: int, number: int) -> DealsInPlay:
        """A duplicate session's deals in play, as far as its tables have played them
        (read from the file the first time: after a restart), its open tables listed."""
        storage = self.store.storage
        tables = await self.store.call(storage.session_tables, tournament_id, number)
        known = next((self.in_play[x.table_id] for x in tables if x.table_id in self.in_play), None)
        if known is not None:
            return known[0]
        deals = DealsInPlay(len(tables))
        for table in sorted(tables, key=lambda x: x.number):
            if table.table_id is None:
                continue
            index = table.number - 1
            match_id = await self.store.call(storage.last_match_of_table, table.table_id)
            if match_id is not None:
                deals.play(index, len(await self.store.call(storage.hand_points, match_id)))
                record = await self.store.call(storage.match, match_id)
                if record is not None and record.ended_at is not None:
                    deals.end(index)
            elif table.table_id not in self.tables.actors:
                deals.end(index)  # closed before its match started: it plays nothing
            self.in_play[table.table_id] = (deals, index)
        return deals

    def stop(self) -> None:
        """This node runs the tournaments no more (another node may take them over):
        every runner stops at once, where it stood; what it decided is on disk."""
        self.runs = False
        for scope in self._scopes.values():
            scope.cancel()

    def _run(self, tournament_id: int) -> None:
        if tournament_id in self.running or not self.runs:
            return  # (not running them here: the node that does picks it up)
        self.running[tournament_id] = trio.Event()
        self.nursery.start_soon(self._runner, tournament_id, name=f"tournament {tournament_id}")

    def tables_arrived(self) -> None:
        """Tables were taken over here (from a node that died): every runner looks at
        once whether its session's tables are among them (they get their rules)."""
        for event in self.running.values():
            event.set()

    def _wake(self, tournament_id: int) -> None:
        event = self.running.get(tournament_id)
        if event is not None:
            event.set()

    async def _runner(self, tournament_id: int) -> None:
        """Step after step; a bug in a step is logged and the step tried again later
        (every step starts from what the disk holds), never the server's end."""
        try:
            with trio.CancelScope() as self._scopes[tournament_id]:
                while self.runs:  # (stopped before it began: nothing to do)
                    try:
                        if not await self._next_step(tournament_id):
                            return
                    except Exception:
                        log.exception("tournament %s: a step failed; again shortly", tournament_id)
                        await trio.sleep(RETRY)
        finally:
            self.running.pop(tournament_id, None)
            self._scopes.pop(tournament_id, None)

    async def _next_step(self, tournament_id: int) -> bool:
        """One step of a running tournament; False when there is nothing more to do."""
        storage = self.store.storage
        t = await self.get(tournament_id)
        if t.state != "running":
            return False
        sessions = await self.store.call(storage.tournament_sessions, t.id)
        current = sessions[-1] if sessions else None
        if current is not None and current.finished_at is None:
            await self._play(t, current.number, current.ends_at)
            return True
        if current is not None:
            await trio.sleep(max(0.0, (current.finished_at or 0) + t.pause_seconds - time.time()))
            await self._close_tables(t.id, current.number)
        if len(sessions) >= t.sessions:  # (finished with its last session's results)
            await self.store.call(storage.set_tournament_state, t.id, "finished")
            return False
        await self._seat(t, len(sessions) + 1)
        return True

    async def _seat(self, t: TournamentRecord, number: int) -> None:
        """Seat session ``number`` and write it (its tables open once the players are
        in, in ``_play``)."""
        storage = self.store.storage
        entrants = await self.store.call(storage.entrants, t.id)
        results = await self.store.call(storage.tournament_results, t.id)
        past_tables = await self.store.call(storage.session_tables, t.id)
        field = field_of(entrants)
        on_field = set(field)
        ranked = [
            line.player
            for line in standings([e.n for e in entrants], session_results(results))
            if line.player in on_field
        ]
        ranked += [p for p in field if p < 0]  # bots last
        # The search for the fewest repeats may take a second of a big field: a thread.
        ordered = await trio.to_thread.run_sync(
            _session_seating, plan_of(t), number, field, ranked, past_tables
        )
        tables = [(order, secrets.token_bytes(32)) for order in ordered]
        ends_at = time.time() + t.grace_seconds + t.minutes * 60  # until its tables open
        await self.store.call(storage.start_session, t.id, number, ends_at, tables)
        logs.event("tournament_session_seated", tournament=t.id, session=number)
        by_n = {e.n: e for e in entrants}
        for index, (players, _) in enumerate(tables, start=1):
            for place, n in enumerate(players):
                entrant = by_n.get(n)
                if entrant is None or entrant.account_id is None:
                    continue
                conn = self.sessions.of_account(entrant.account_id)
                if conn is not None:
                    conn.send(
                        m.TournamentSeated(
                            tournament_id=t.id, session=number, table_number=index, place=place
                        )
                    )

    async def _play(self, t: TournamentRecord, number: int, ends_at: float) -> None:
        """Open the session's tables once its players are in (or the grace is over), and
        record each table's results when its match has ended; then the session is over."""
        storage = self.store.storage
        tables = await self.store.call(storage.session_tables, t.id, number)
        entrants = {e.n: e for e in await self.store.call(storage.entrants, t.id)}
        playing = frozenset(
            a for table in tables for n in table.players if (a := _account(entrants, n)) is not None
        )
        started = (await self.store.call(storage.tournament_sessions, t.id))[-1].started_at
        if all(table.table_id is None for table in tables):  # the session's start
            await self._wait_for_players(t, tables, entrants, started)
            ends_at = time.time() + t.minutes * 60  # its time runs from its tables' opening
            await self.store.call(storage.set_session_ends, t.id, number, ends_at)
        wake = self.running.setdefault(t.id, trio.Event())
        deal_seed = duplicate_deal_seed(t, tables)
        deals = await self._deals_in_play(t.id, number) if t.duplicate else None

        def rules_of(table: SessionTable) -> SessionRules:
            return SessionRules(
                t.id,
                number,
                table.number,
                t.hands,
                trio.current_time() + (ends_at - time.time()),
                t.spectators,
                playing,
                t.organiser_id,
                lambda: self._wake(t.id),
                duplicate=t.duplicate,
                deals=deals,
            )

        given: dict[int, object] = {}  # table id -> its actor here that has its rules
        for table in tables:
            if table.table_id is None:
                opened = await self._open(t, table, entrants, rules_of(table), deal_seed)
                given[opened] = self.tables.actors.get(opened)
        while True:
            tables = await self.store.call(storage.session_tables, t.id, number)
            # Resumed here after a restart, or taken over from a node that died (on
            # several nodes, maybe after this one took the runner's role): its rules again.
            for table in tables:
                actor = None if table.table_id is None else self.tables.actors.get(table.table_id)
                if actor is not None and given.get(actor.id) is not actor:
                    await actor.call(do.GiveRules(rules_of(table)))
                    given[actor.id] = actor
            waiting = [table for table in tables if table.match_id is None]
            if t.duplicate:
                if not waiting or await self._record_duplicate(t, tables, entrants):
                    break
            else:
                for table in waiting:
                    if await self._record(t, table, entrants):
                        waiting.remove(table)
                if not waiting:
                    break
            with trio.move_on_after(POLL):
                await wake.wait()
            wake = self.running[t.id] = trio.Event()
        last = number >= t.sessions
        await self.store.call(storage.finish_session, t.id, number, last)
        # Every table has played every deal: the hands, and so the walls, open (§2.14).
        for x in tables:
            self.in_play.pop(x.table_id or 0, None)
        logs.event("tournament_session_over", tournament=t.id, session=number)
        if last:
            logs.event("tournament_finished", tournament=t.id)
            self.nursery.start_soon(self._close_later, t.id, number, t.pause_seconds)

    async def _close_later(self, tournament_id: int, number: int, pause: float) -> None:
        await trio.sleep(pause)
        await self._close_tables(tournament_id, number)

    async def _wait_for_players(
        self,
        t: TournamentRecord,
        tables: Sequence[SessionTable],
        entrants: dict[int, Entrant],
        started: float,
    ) -> None:
        deadline = trio.current_time() + max(0.0, started + t.grace_seconds - time.time())
        accounts = [
            a for table in tables for n in table.players if (a := _account(entrants, n)) is not None
        ]
        while trio.current_time() < deadline:
            if all(self._free(a) is not None for a in accounts):
                return
            await trio.sleep(min(1.0, deadline - trio.current_time()))

    def _free(self, account_id: int) -> Connection | None:
        """The player's connection if they are signed in and hold no seat elsewhere."""
        conn = self.sessions.of_account(account_id)
        if conn is None or conn.closed or self.tables.where_seated(account_id) is not None:
            return None
        return conn

    async def _open(
        self,
        t: TournamentRecord,
        table: SessionTable,
        entrants: dict[int, Entrant],
        rules: SessionRules,
        deal_seed: bytes | None = None,
    ) -> int:
        """Open a session's table, its players at their places: its table id."""
        table_id = await self.tables.new_id()  # (the database's, on several nodes)
        rounds = rounds_for(t.hands)
        # A duplicate match turns its seating itself: the places are the table's seats.
        duplicate = deal_seed is not None
        slots = [0, 1, 2, 3] if duplicate else places_by_slot(table.seed, rounds)
        seated: list[tuple[str, int] | None] = [None] * 4  # None: a stand-in bot
        absent: list[int] = []
        present: list[Connection] = []
        for place, n in enumerate(table.players):
            slot = slots[place]
            entrant = entrants.get(n)
            conn = (
                None
                if entrant is None or entrant.account_id is None
                else self._free(entrant.account_id)
            )
            if entrant is None or conn is None:
                if entrant is not None:
                    absent.append(n)
            else:
                assert entrant.account_id is not None
                seated[slot] = (entrant.name, entrant.account_id)
                present.append(conn)
        settings = m.TableSettings(
            name=f"{t.name} {rules.session}-{table.number}"[:40],
            stake=0,
            timers=m.TimerSettings(
                on=True,
                first_discard=max(t.turn_seconds, 5),
                turn=t.turn_seconds,
                claim_window=min(5, t.turn_seconds),
            ),
            rounds=rounds,
            bots_allowed=True,
            public_history=True,
            coach=False,  # no hints in a tournament (docs/rules.md §2.12, §2.13)
        )

        match = (
            match_of_seed(duplicate_seed(deal_seed, t.hands, table.number - 1), rounds)
            if deal_seed is not None
            else Match(table.seed, rounds)
        )
        actor = self.tables.open_session_table(
            settings, t.organiser, seated, rules, match, present, table_id
        )
        if rules.deals is not None:  # closed before its first hand is played (no await between)
            self.in_play[actor.id] = (rules.deals, table.number - 1)
        for place, n in enumerate(table.players):
            if n in absent or (account := _account(entrants, n)) is None:
                continue
            conn = self.sessions.of_account(account)
            if conn is not None:
                conn.send(
                    m.TournamentSeated(
                        tournament_id=t.id,
                        session=rules.session,
                        table_number=table.number,
                        place=place,
                        table_id=actor.id,
                    )
                )
        await self.store.call(
            self.store.storage.set_session_table_id,
            t.id,
            rules.session,
            table.number,
            actor.id,
            absent,
        )
        logs.event(
            "tournament_table_opened",
            tournament=t.id,
            session=rules.session,
            table=actor.id,
            absent=len(absent),
        )
        return actor.id

    async def _record(
        self, t: TournamentRecord, table: SessionTable, entrants: dict[int, Entrant]
    ) -> bool:
        """Write the table's results if its match has ended; whether it has."""
        storage = self.store.storage
        if table.table_id is None:
            return False
        match_id = await self.store.call(storage.last_match_of_table, table.table_id)
        record = None if match_id is None else await self.store.call(storage.match, match_id)
        if match_id is not None and (record is None or record.ended_at is None):
            return False
        if match_id is None and table.table_id in self.tables.actors:
            return False  # the match is not written yet
        slots = places_by_slot(table.seed, rounds_for(t.hands))
        scores = [0, 0, 0, 0]
        if record is not None:
            for p in record.players:
                scores[slots.index(p.slot)] += p.points
        points = table_points(scores)
        ranks = places(scores)
        results = []
        for place, n in enumerate(table.players):
            if n not in entrants:
                continue
            absent = n in table.absent and not t.absent_counts
            results.append(
                ResultRecord(
                    table.session,
                    n,
                    table.number,
                    0 if absent else scores[place],
                    0 if absent else points[place],
                    4 if absent else ranks[place],
                    n in table.absent,
                )
            )
        await self.store.call(
            storage.record_table, t.id, table.session, table.number, match_id, results
        )
        return True

    async def _record_duplicate(
        self, t: TournamentRecord, tables: Sequence[SessionTable], entrants: dict[int, Entrant]
    ) -> bool:
        """Once every table's match has ended, write all the tables' results: each
        player's score against the field (§2.14) over the session's deals."""
        storage = self.store.storage
        matches: list[int | None] = []
        for table in tables:
            if table.table_id is None:
                return False
            match_id = await self.store.call(storage.last_match_of_table, table.table_id)
            record = None if match_id is None else await self.store.call(storage.match, match_id)
            if match_id is not None and (record is None or record.ended_at is None):
                return False
            if match_id is None and table.table_id in self.tables.actors:
                return False
            matches.append(match_id)
        played = [
            [] if match_id is None else await self.store.call(storage.hand_points, match_id)
            for match_id in matches
        ]
        scores = session_field_scores(tables, played, scale_of(t.scale))  # a few hundred sums
        for table, match_id in zip(tables, matches, strict=True):
            if table.match_id is not None:  # written before a restart
                continue
            mine = scores[table.number]
            ranks = places(mine)
            results = []
            for place, n in enumerate(table.players):
                if n not in entrants:
                    continue
                absent = n in table.absent and not t.absent_counts
                results.append(
                    ResultRecord(
                        table.session,
                        n,
                        table.number,
                        0 if absent else mine[place],
                        0,  # no table points in duplicate play: the score ranks
                        4 if absent else ranks[place],
                        n in table.absent,
                    )
                )
            await self.store.call(
                storage.record_table, t.id, table.session, table.number, match_id, results
            )
        return True

    async def _close_tables(self, tournament_id: int, number: int) -> None:
        """The session's tables close (before the next session seats anyone)."""
        for table in await self.store.call(
            self.store.storage.session_tables, tournament_id, number
        ):
            actor = None if table.table_id is None else self.tables.actors.get(table.table_id)
            if actor is not None:
                await actor.call(do.CloseSessionTable())


def duplicate_deal_seed(t: TournamentRecord, tables: Sequence[SessionTable]) -> bytes | None:
    """The seed a duplicate session's deals are drawn from (None for another session):
    its first table's, random and kept on disk, so the organiser cannot know them."""
    if not t.duplicate or not tables:
        return None
    return min(tables, key=lambda x: x.number).seed


def duplicate_deals(t: TournamentRecord, tables: Sequence[SessionTable]) -> tuple[Deal, ...]:
    """A duplicate session's deals (none for another session)."""
    seed = duplicate_deal_seed(t, tables)
    return () if seed is None else deals_from_seed(seed, t.hands)


def session_field_scores(
    tables: Sequence[SessionTable],
    played: Sequence[Sequence[tuple[int, tuple[int, ...]]]],
    scale: StepScale | None = DEFAULT_SCALE,
) -> dict[int, list[int]]:
    """Each table's players' scores against the field (by place) on ``scale`` (None: the
    comparisons themselves, each total to the nearest whole point), from each table's
    hands as (number, points by seat)."""
    results = []
    for table, hands in zip(tables, played, strict=True):
        t = table.number - 1
        for number, points in hands:
            players = seating(number - 1, t)
            for seat, pts in enumerate(points):
                results.append(Result(number - 1, seat, 4 * t + players[seat], pts, t))
    total = totals(results, scale)
    return {
        table.number: [round(total.get(4 * (table.number - 1) + p, 0)) for p in range(4)]
        for table in tables
    }


def _account(entrants: dict[int, Entrant], n: int) -> int | None:
    entrant = entrants.get(n)
    return None if entrant is None else entrant.account_id


def _session_seating(
    plan: Plan,
    number: int,
    field: list[int],
    ranked: list[int],
    past_tables: Sequence[SessionTable],
) -> list[tuple[int, ...]]:
    """Session ``number``'s tables, each in the order of its places (East first)."""
    seating = seat_session(plan, number, field, ranked, _past_seatings(past_tables))
    winds: dict[int, tuple[int, ...]] = {}
    for table in past_tables:
        winds = add_winds(winds, table.players)
    return balance_session(known_ahead(plan, number, field, seating), winds)


def _past_seatings(tables: Sequence[SessionTable]) -> list[Seating]:
    """The sessions played, each table's players without its filling bots (who are not
    the same bots from one session to the next)."""
    by_session: dict[int, Seating] = {}
    for table in tables:
        by_session.setdefault(table.session, []).append(tuple(p for p in table.players if p >= 0))
    return [by_session[s] for s in sorted(by_session)]
