"""A table's room: its settings, seats, members and owner, and the match it runs.

Only the table's actor calls into a ``Table`` (``gbmj_server.tables.actor``), one
command at a time; nothing else reads or changes its state. Members are everyone who
entered (players and spectators); seats are the four places (0-3) of docs/rules.md §2.2.
Membership changes in one place (``_admit``/``dismiss``) and so do seats
(``set_seat``); each change is reported to the registry at once (``reports``), which
keeps the indexes the rest of the server reads. A running match runs in the actor's task
(``MatchRunner.run``) and hears the commands meanwhile; after every command the actor
calls ``settle_down``: a changed room is published once to the lobby and the members.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

import trio

from gbmj.economy.stakes import min_coins
from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.tables.context import TableContext
from gbmj_server.tables.reports import Closed, Entered, Left, Listed, RoomChanged
from gbmj_server.tables.seat import EMPTY_SEAT, Participant, Seat
from gbmj_server.tables.session_rules import WATCH_LATER, SessionRules
from gbmj_server.tables.settings import checked, with_fee
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.framing import encode
from protocol.vocabulary import Channel, Cloth, LeaveReason, TableStatus

log = logging.getLogger(__name__)

SEATS = 4
T = TypeVar("T")


Hear = Callable[[float], Awaitable[None]]
"""Hear one command of the table's inbox, if one comes before the given trio time."""


class MatchRunner(Protocol):
    """What the room asks of its running match (``gbmj_server.tables.play.Play``)."""

    async def run(self, hear: Hear) -> None: ...
    def snapshot(self, conn: Connection) -> m.Snapshot: ...
    def player_back(self, slot: int) -> None: ...
    def player_gone(self, slot: int) -> None: ...
    async def escape(self, slot: int, reason: LeaveReason = ...) -> None: ...
    def seat_filled(self, slot: int) -> None: ...
    async def abort(self) -> None: ...
    def sealed(self) -> bool: ...


StartMatch = Callable[["Table"], MatchRunner]


def password_digest(password: str | None) -> str:
    """What a table keeps of its password (and the journal, for a resumed table)."""
    return hashlib.sha256(password.encode()).hexdigest() if password else ""


class Table:
    def __init__(
        self,
        ctx: TableContext,
        table_id: int,
        settings: m.TableSettings,
        password: str | None,
        owner: tuple[int, str],
        start_match: StartMatch,
    ) -> None:
        self.ctx = ctx
        self.start_match = start_match
        self.id = table_id
        self.settings = with_fee(checked(settings), ctx.table_fee)
        self.password_digest = password_digest(password)
        self.owner_id, self.owner_name = owner
        self.seats: list[Seat | None] = [None] * SEATS
        self.members: dict[Connection, None] = {}  # insertion-ordered set
        self.kicked: set[int] = set()  # accounts the owner kicked: no seat until a match ends
        self.muted: set[int] = set()  # accounts the owner muted at this table
        self.play: MatchRunner | None = None
        self.seq = 0  # events sent at this table, across its matches
        self.name_protected_until = -math.inf  # trio time; a table sign's protection
        self.cloth: Cloth | None = None  # a tablecloth's look, for as long as the table lasts
        self.closed = False
        self.empty_since: float | None = None  # trio time the room became empty
        self.tournament: SessionRules | None = None  # a tournament session's table
        self._dirty = True
        self._room: RoomChanged | None = None  # the room as last reported

    # -- what people see -----------------------------------------------------------
    @property
    def status(self) -> TableStatus:
        return TableStatus.WAITING if self.play is None else TableStatus.PLAYING

    def info(self) -> m.TableInfo:
        return m.TableInfo(
            table_id=self.id,
            owner=self.owner_name,
            settings=self.settings,
            has_password=bool(self.password_digest),
            seats=tuple(EMPTY_SEAT if s is None else s.lobby_wire() for s in self.seats),
            spectators=sum(1 for c in self.members if self.slot_of(c) is None),
            status=self.status,
            cloth=self.cloth,
            tournament_id=None if self.tournament is None else self.tournament.tournament_id,
        )

    def changed(self) -> None:
        """The room changed: published once, when the current command is done."""
        self._dirty = True
        self._report_room()

    def _report_room(self) -> None:
        """Tell the registry the room's indexed facts, when they changed."""
        if self.closed:
            return
        room = RoomChanged(
            self.id,
            self.owner_id,
            frozenset(
                s.holder.account_id
                for s in self.seats
                if s is not None and s.holder.account_id is not None
            ),
            any(s is not None and s.is_bot for s in self.seats),
            self.empty_since is not None,
        )
        if room != self._room:
            self._room = room
            self.ctx.report(room)

    def publish(self) -> None:
        if not self._dirty or self.closed:
            return
        self._dirty = False
        info = self.info()
        self.ctx.report(Listed(info))
        self.broadcast(m.TableUpdate(table=info))

    def broadcast(self, message: m.Message) -> None:
        frame = encode(message)  # once for every member
        for conn in self.members:
            conn.send_frame(frame)

    def humans(self) -> list[Seat]:
        return [s for s in self.seats if s is not None and not s.is_bot]

    def slot_of(self, conn: Connection) -> int | None:
        """The seat ``conn``'s account holds here (None: a spectator or nobody)."""
        account_id = conn.session.account_id
        if account_id is None:
            return None
        for slot, seat in enumerate(self.seats):
            if seat is not None and seat.holder.account_id == account_id:
                return slot
        return None

    def require_slot(self, conn: Connection) -> int:
        slot = self.slot_of(conn)
        if slot is None:
            raise RequestError(ErrorCode.NOT_SEATED, "you are not seated at this table")
        return slot

    def require_member(self, conn: Connection) -> None:
        if conn not in self.members:
            raise RequestError(ErrorCode.NOT_SEATED, f"you are not at table {self.id}")

    def snapshot(self, conn: Connection) -> m.Snapshot:
        if self.play is not None:
            return self.play.snapshot(conn)
        return m.Snapshot(table=self.info(), seat=self.slot_of(conn), seq=self.seq)

    # -- the actor's hooks -----------------------------------------------------------
    def settle_down(self) -> None:
        """After each command: the changed room published once; an empty room lingers."""
        self.publish()
        self._linger()

    def _linger(self) -> None:
        """An empty room waits ``table_linger`` seconds for its owner (or anyone) to come
        back from the lobby before it closes."""
        waiting = self.empty_since is not None
        if self.members or self.humans() or self.play is not None:
            self.empty_since = None
        elif self.empty_since is None:
            self.empty_since = trio.current_time()
        if waiting != (self.empty_since is not None):
            self._report_room()
        if self.empty_since is not None and (
            trio.current_time() >= self.empty_since + self.ctx.table_linger
        ):
            self.close()

    def give_up_waiting(self) -> None:
        """Its owner made another table: an empty table kept for them closes now (a player
        leaves no trail of empty tables behind, counted against their address)."""
        if self.empty_since is not None:
            self.close()

    def wake_at(self) -> float:
        """When a room with no match has something to do by itself: close, if empty."""
        if self.empty_since is None:
            return math.inf
        return self.empty_since + self.ctx.table_linger

    async def fail(self) -> None:
        """A bug in the table's own steps: its match ends as abandoned."""
        if self.play is not None:
            await self.play.abort()
        self.publish()

    def close(self) -> None:
        """Nobody is left and no match runs: the table is gone."""
        if self.closed:
            return
        for conn in list(self.members):
            self.dismiss(conn, LeaveReason.TABLE_CLOSED)
        self.closed = True
        self.ctx.report(Closed(self.id))

    # -- membership and seats: the one place each changes ----------------------------
    def _admit(self, conn: Connection) -> None:
        self.members[conn] = None
        self.ctx.report(Entered(self.id, conn))
        self.changed()

    def dismiss(self, conn: Connection, reason: LeaveReason | None) -> None:
        if self.members.pop(conn, False) is None:
            self.changed()
            self.ctx.report(Left(self.id, conn))
        if reason is not None:
            conn.send(m.TableLeft(table_id=self.id, reason=reason))

    def set_seat(self, slot: int, seat: Seat | None) -> None:
        self.seats[slot] = seat
        self.changed()

    # -- entering and leaving ----------------------------------------------------------
    def enter(self, conn: Connection, password: str | None) -> m.Snapshot:
        """``join_table`` and ``spectate``: a member gets a fresh snapshot (asking again
        is how a client resyncs); a player seated in the running match is back at the
        seat; anyone else needs the password."""
        slot = self.slot_of(conn)
        if slot is not None and self.play is not None:
            self.reattach(conn)
            return self.snapshot(conn)
        if conn in self.members:
            return self.snapshot(conn)
        if conn.session.table is not None:
            raise RequestError(ErrorCode.NOT_EXPECTED, f"leave table {conn.session.table} first")
        if self.tournament is not None:
            self.tournament.check_spectator(conn.session.account_id)
        elif self.play is not None and self.play.sealed():  # resumed, its rules not given yet
            raise RequestError(ErrorCode.DEAL_IN_PLAY, WATCH_LATER)
        if self.password_digest:
            key, now = self.ctx.password_key(self.id, conn.address), trio.current_time()
            wait = self.ctx.password_tries.wait(key, now)
            if wait > 0:
                raise RequestError(
                    ErrorCode.RATE_LIMITED, f"too many wrong passwords: wait {math.ceil(wait)} s"
                )
            if not hmac.compare_digest(self.password_digest, password_digest(password)):
                self.ctx.password_tries.failed(key, now)
                raise RequestError(ErrorCode.WRONG_PASSWORD, "wrong table password")
        self._admit(conn)
        return self.snapshot(conn)

    def welcome_back(self, conn: Connection) -> None:
        """A player seated here signed in again: back at the seat, with a snapshot (and
        the open prompt, which the table's next step sends)."""
        if self.slot_of(conn) is not None:
            self.reattach(conn)
            conn.send(self.snapshot(conn))

    def reattach(self, conn: Connection) -> None:
        """A player of the running match is back (this or another connection): the seat
        is theirs again, with a snapshot and any open prompt."""
        slot = self.require_slot(conn)
        seat = self.seats[slot]
        assert seat is not None
        old = seat.conn
        if old is not None and old is not conn:
            self.dismiss(old, None)
        if conn not in self.members:
            self._admit(conn)
        seat.conn = conn
        if self.play is not None:
            self.play.player_back(slot)

    async def leave(self, conn: Connection) -> None:
        """Back to the lobby; a seated player leaving a running match escapes."""
        slot = self.slot_of(conn)
        self.dismiss(conn, None)
        if slot is not None:
            if self.play is not None:
                await self.play.escape(slot)
            else:
                self.set_seat(slot, None)
        self._owner_left(conn)

    def disconnected(self, conn: Connection) -> None:
        """The connection dropped: spectators go; a player keeps the seat during a match
        (the clocks run, §2.4) but not before one."""
        slot = self.slot_of(conn)
        self.dismiss(conn, None)
        if slot is not None:
            seat = self.seats[slot]
            assert seat is not None
            if seat.conn is conn:
                seat.conn = None
                if self.play is not None:
                    self.play.player_gone(slot)
                else:
                    self.set_seat(slot, None)
        self._owner_left(conn)

    def _owner_left(self, conn: Connection) -> None:
        """The owner left: a seated member (or any member) takes the table over. With
        nobody else here the owner keeps it (and finds it theirs on coming back)."""
        if conn.session.account_id != self.owner_id:
            return
        heirs = [c for c in self.members if c.session.account is not None]
        heirs.sort(key=lambda c: self.slot_of(c) is None)  # seated members first
        heir = heirs[0].session.account if heirs else None
        if heir is not None:
            self.owner_id, self.owner_name = heir.id, heir.name
            self.changed()

    # -- seats ---------------------------------------------------------------------
    def sit(self, conn: Connection, slot: int, level: int | None, coins: int | None) -> None:
        """Take a seat (``coins``: the account's balance, checked against the stake by the
        caller too). During a match only a seat left empty for want of coins may be
        taken: the match goes on with the new player."""
        account = conn.session.account
        assert account is not None
        self.require_member(conn)
        if account.id in self.kicked:
            raise RequestError(ErrorCode.KICKED, "the owner kicked you: wait for the next match")
        current = self.slot_of(conn)
        if self.play is not None and (current is not None or self.seats[slot] is not None):
            raise RequestError(ErrorCode.MATCH_RUNNING, "the match has started")
        if current == slot:
            return
        if self.seats[slot] is not None:
            raise RequestError(ErrorCode.SEAT_TAKEN, f"seat {slot} is taken")
        self.check_stake(account.is_guest, coins)
        if current is not None:
            self.set_seat(current, None)
        holder = Participant(
            account.name,
            account.id,
            guest=account.is_guest,
            level=None if account.is_guest else level,
        )
        self.set_seat(slot, Seat(holder, conn=conn, ready=self.play is not None))
        if self.play is not None:
            self.play.seat_filled(slot)

    def check_stake(
        self, guest: bool, coins: int | None, who: str = "you", stake: int | None = None
    ) -> None:
        """A stake table (this one, or one at ``stake``) needs ``100 × stake`` coins;
        guests play only free tables (§2.5)."""
        stake = self.settings.stake if stake is None else stake
        if not stake:
            return
        if guest:
            raise RequestError(ErrorCode.GUEST_NOT_ALLOWED, "guests play only free tables")
        if (coins or 0) < min_coins(stake):
            raise RequestError(
                ErrorCode.NOT_ENOUGH_COINS,
                f"{who} need {min_coins(stake)} coins for a stake of {stake}; have {coins or 0}",
            )

    def stand(self, conn: Connection) -> None:
        slot = self.require_slot(conn)
        if self.play is not None:
            raise RequestError(ErrorCode.MATCH_RUNNING, "you cannot stand during a match: leave")
        self.set_seat(slot, None)

    def set_ready(self, conn: Connection, ready: bool, coins: int | None) -> None:
        slot = self.require_slot(conn)
        if self.play is not None:
            raise RequestError(ErrorCode.MATCH_RUNNING, "the match has started")
        seat = self.seats[slot]
        assert seat is not None
        if ready:  # coins may have gone (the host took some) since sitting
            self.check_stake(seat.holder.guest, coins)
        seat.ready = ready
        self.changed()
        self.maybe_start()

    async def spend(self, conn: Connection, purchase: Callable[[], Awaitable[T]]) -> T:
        """Coins leaving a seated player's account (docs/rules.md §2.5): refused at a
        stake table, before its match as during it, so the stake checked at ``ready``
        stays covered and what the player may owe stays payable; run here, in the table's
        task, so no hand can begin in between."""
        if self.settings.stake and self.slot_of(conn) is not None:
            raise RequestError(
                ErrorCode.COINS_AT_STAKE,
                "your coins stay at the table while you are seated at a stake table: "
                "stand up (or leave after the match) to buy",
            )
        return await purchase()

    def chat(self, conn: Connection, text: str) -> None:
        """A table chat line to every member who has not muted its sender; refused
        (and so told to the sender) when the owner muted them here."""
        self.require_member(conn)
        sender = conn.session.account_id
        assert sender is not None
        if sender in self.muted:
            raise RequestError(ErrorCode.MUTED, "the table's owner muted you here")
        frame = encode(
            m.Chat(channel=Channel.TABLE, table_id=self.id, sender=conn.session.name, text=text)
        )
        for member in self.members:
            if sender not in member.session.mutes:
                member.send_frame(frame)

    # -- the match -----------------------------------------------------------------
    def maybe_start(self) -> None:
        # A tournament's table plays its session's match only (the runner starts it).
        if self.play is not None or self.tournament is not None or None in self.seats:
            return
        humans = self.humans()
        if humans and all(s.ready for s in humans):
            self.play = self.start_match(self)
            self.changed()

    def match_over(self) -> None:
        """The match ended: back to the room. Seats kept for the humans still here, ready
        flags cleared; kicks expire."""
        self.play = None
        self.kicked.clear()
        for slot, seat in enumerate(self.seats):
            if seat is None:
                continue
            seat.ready = seat.auto_play = seat.extension_armed = False
            seat.timeouts = 0
            if not seat.is_bot and not seat.connected:
                self.set_seat(slot, None)
        self.changed()

    def drop_stood_up(self, slot: int, reason: LeaveReason) -> None:
        """A player stood up for want of coins leaves the table (the match decides who
        takes the seat)."""
        seat = self.seats[slot]
        if seat is not None and seat.conn is not None and seat.conn in self.members:
            self.dismiss(seat.conn, reason)
