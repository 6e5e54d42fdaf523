"""The lobby: the tables, who sits and watches where, and the table list's live updates.

A ``Table`` here is the room: settings, four seats, the members (everyone who entered:
the seated players and the spectators), the owner, ready flags. Entering a table
(``create_table``, ``join_table``, ``spectate``) makes a client a member; ``sit`` takes a
seat. The match is driven by ``gbmj_server.net.match.TableGame``, one trio task per
table, started when four seats are filled and every human is ready.
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from gbmj_server.net.bots import Bot, make_bot
from gbmj_server.net.client import Client
from gbmj_server.net.errors import RequestError
from gbmj_server.net.settings import TableSettings

if TYPE_CHECKING:
    from gbmj_server.net.match import TableGame
    from gbmj_server.net.server import Server

log = logging.getLogger(__name__)

SEATS = 4
TABLE_PAGE = 60  # tables per table_list message (protocol.messages.TABLE_PAGE)
WAITING = "waiting"
PLAYING = "playing"


@dataclass(eq=False)
class Seat:
    """Who holds a seat: a human account (connected or not) or a bot.

    ``items`` is the per-seat place for prop items in use: ``timer_extension`` (armed:
    True) and ``tile_counter`` (the hand it counts for), consulted by the match driver.
    ``level`` is a player's level, shown beside the name (None: a bot or a guest)."""

    name: str
    account_id: int | None = None  # None: a bot
    guest: bool = False
    level: int | None = None
    bot: Bot | None = None
    bot_level: str | None = None
    client: Client | None = None
    ready: bool = False
    auto_play: bool = False
    items: dict[str, Any] = field(default_factory=dict)

    @property
    def is_bot(self) -> bool:
        return self.account_id is None

    @property
    def connected(self) -> bool:
        return self.is_bot or (self.client is not None and not self.client.closed)

    @property
    def wallet(self) -> int | None:
        """The account whose coins this seat moves; None: the house (bots, guests)."""
        return None if self.is_bot or self.guest else self.account_id

    def lobby_wire(self) -> dict[str, Any]:
        wire = {
            "name": self.name,
            "bot": self.is_bot,
            "bot_level": self.bot_level,
            "ready": self.ready or self.is_bot,
        }
        if self.level is not None:
            wire["level"] = self.level
        return wire


class Table:
    def __init__(self, lobby: Lobby, table_id: int, settings: TableSettings, owner: Client) -> None:
        assert owner.account is not None
        self.lobby = lobby
        self.id = table_id
        self.settings = settings
        self.owner_id = owner.account.id
        self.owner_name = owner.account.name
        self.seats: list[Seat | None] = [None] * SEATS
        self.members: set[Client] = set()
        self.status = WAITING
        self.game: TableGame | None = None
        self.name_protected_until = -math.inf  # trio time; a table sign's protection

    # -- what people see -----------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """``TableInfo``: the table in the lobby list and in snapshots."""
        return {
            "table_id": self.id,
            "owner": self.owner_name,
            "settings": self.settings.to_wire(),
            "has_password": bool(self.settings.password),
            "seats": [
                {"bot": False, "ready": False} if s is None else s.lobby_wire() for s in self.seats
            ],
            "spectators": len(self.spectators()),
            "status": self.status,
        }

    def spectators(self) -> list[Client]:
        return [c for c in self.members if self.seat_index(c) is None]

    def snapshot(self, client: Client) -> dict[str, Any]:
        seat = self.seat_index(client)
        if self.game is not None:
            return self.game.snapshot(client)
        return {"type": "snapshot", "table": self.info(), "seat": seat, "seq": 0}

    def broadcast(self, message: dict[str, Any]) -> None:
        for client in list(self.members):
            client.send(message)

    def changed(self) -> None:
        """The room changed: the lobby list (members are in the lobby too) updates."""
        self.lobby.table_changed(self)

    def humans(self) -> list[Seat]:
        return [s for s in self.seats if s is not None and not s.is_bot]

    def seat_index(self, client: Client) -> int | None:
        if client.account is None:
            return None
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.account_id == client.account.id:
                return index
        return None

    def require_seat(self, client: Client) -> int:
        index = self.seat_index(client)
        if index is None:
            raise RequestError("not_seated", "you are not seated at this table")
        return index

    # -- entering, seats, leaving ------------------------------------------------------

    def check_password(self, password: str | None) -> None:
        if self.settings.password and password != self.settings.password:
            raise RequestError("wrong_password", "wrong table password")

    def enter(self, client: Client) -> None:
        self.members.add(client)
        client.table = self
        self.changed()

    def sit(self, client: Client, seat: int, level: int | None = None) -> None:
        """Take a seat (the coins were checked by the caller). During a match only a seat
        left empty by a player stood up for want of coins may be taken: the match goes on."""
        account = client.account
        assert account is not None
        current = self.seat_index(client)
        if self.status != WAITING and (current is not None or self.seats[seat] is not None):
            raise RequestError("match_running", "the match has started")
        if current == seat:
            return
        if self.seats[seat] is not None:
            raise RequestError("seat_taken", f"seat {seat} is taken")
        if current is not None:
            self.seats[current] = None
        self.seats[seat] = Seat(
            account.name,
            account.id,
            guest=account.is_guest,
            level=None if account.is_guest else level,
            client=client,
            ready=self.status != WAITING,
        )
        self.changed()
        if self.game is not None:
            self.game.humans_changed()

    def check_rename(self, client: Client, settings: TableSettings, now: float) -> bool:
        """Whether ``configure`` would rename the table (which costs a table sign);
        ``name_protected`` while a sign's protection lasts."""
        self.require_owner(client)
        if not settings.bots_allowed and any(s is not None and s.is_bot for s in self.seats):
            raise RequestError("bots_not_allowed", "remove the bots first")
        if settings.name == self.settings.name:
            return False
        if now < self.name_protected_until:
            minutes = math.ceil((self.name_protected_until - now) / 60)
            raise RequestError("name_protected", f"the name is protected {minutes} min more")
        return True

    def stand(self, client: Client) -> None:
        index = self.require_seat(client)
        if self.status != WAITING:
            raise RequestError("match_running", "you cannot stand during a match: leave")
        self.seats[index] = None
        self.changed()

    def leave(self, client: Client) -> None:
        """Leave the table; a seated player leaving a running match escapes."""
        index = self.seat_index(client)
        self.members.discard(client)
        client.table = None
        if index is not None:
            if self.status == PLAYING and self.game is not None:
                self.game.escape(index)  # the hand ends; a bot takes the seat
            else:
                self.seats[index] = None
        self._after_leaving(client)

    def _after_leaving(self, client: Client) -> None:
        if client.account is not None and client.account.id == self.owner_id:
            heirs = [c for c in self.members if c.account is not None]
            heir = next((c for c in heirs if self.seat_index(c) is not None), None)
            heir = heir or (heirs[0] if heirs else None)
            if heir is not None:
                self.owner_id = heir.account.id  # type: ignore[union-attr]
                self.owner_name = heir.account.name  # type: ignore[union-attr]
        self.changed()
        if self.game is not None:
            self.game.humans_changed()
        self.lobby.forget_if_empty(self)

    def disconnected(self, client: Client) -> None:
        """The connection dropped. Spectators go; a seated player keeps the seat during a
        match (the server plays it at once until a reconnect) but not before one."""
        self.members.discard(client)
        index = self.seat_index(client)
        if index is not None:
            seat = self.seats[index]
            assert seat is not None
            if seat.client is client:
                seat.client = None
            if self.status == WAITING:
                self.seats[index] = None
        self._after_leaving(client)

    def reattach(self, client: Client) -> None:
        """A player of a running match is back (on the same or another client)."""
        index = self.seat_index(client)
        assert index is not None
        seat = self.seats[index]
        assert seat is not None
        old = seat.client
        if old is not None and old is not client:
            self.members.discard(old)
            old.table = None
        seat.client = client
        self.members.add(client)
        client.table = self
        client.send(self.snapshot(client))
        if self.game is not None:
            self.game.humans_changed()
            self.game.prompt_again(index)  # index: the player (lobby seat)
        self.changed()

    def set_ready(self, client: Client, ready: bool) -> None:
        index = self.require_seat(client)
        if self.status != WAITING:
            raise RequestError("match_running", "the match has started")
        self.seats[index].ready = ready  # type: ignore[union-attr]
        self.changed()
        self.maybe_start()

    # -- the owner's powers --------------------------------------------------------

    def require_owner(self, client: Client) -> None:
        if client.account is None or client.account.id != self.owner_id:
            raise RequestError("not_owner", "only the table's owner may do that")
        if self.status != WAITING:
            raise RequestError("match_running", "not once the match has started")

    def configure(
        self, client: Client, settings: TableSettings, protect_until: float | None = None
    ) -> None:
        """New settings; ``protect_until``: a table sign renamed the table (seed 000)."""
        self.require_owner(client)
        if not settings.bots_allowed and any(s is not None and s.is_bot for s in self.seats):
            raise RequestError("bots_not_allowed", "remove the bots first")
        self.settings = settings
        if protect_until is not None:
            self.name_protected_until = protect_until
        for seat in self.seats:  # new terms: everyone confirms again
            if seat is not None:
                seat.ready = False
        self.changed()

    def add_bot(self, client: Client, seat: int, level: str) -> None:
        """A bot in an empty seat: before the match, or in a seat a player left empty
        for want of coins during one (the match then goes on)."""
        if self.game is not None and self.seats[seat] is None:
            if client.account is None or client.account.id != self.owner_id:
                raise RequestError("not_owner", "only the table's owner may do that")
        else:
            self.require_owner(client)
        if not self.settings.bots_allowed:
            raise RequestError("bots_not_allowed", "this table allows no bots")
        if self.seats[seat] is not None:
            raise RequestError("seat_taken", f"seat {seat} is taken")
        self.seats[seat] = Seat(f"bot-{seat + 1}", bot=make_bot(level), bot_level=level)
        self.changed()
        if self.game is not None:
            self.game.seat_taken(seat)
        self.maybe_start()

    def remove_bot(self, client: Client, seat: int) -> None:
        self.require_owner(client)
        held = self.seats[seat]
        if held is None or not held.is_bot:
            raise RequestError("seat_empty", f"no bot in seat {seat}")
        self.seats[seat] = None
        self.changed()

    def kick(self, client: Client, seat: int) -> None:
        self.require_owner(client)
        held = self.seats[seat]
        if held is None or held.is_bot:
            raise RequestError("seat_empty", f"no player in seat {seat}")
        if held.account_id == self.owner_id:
            raise RequestError("not_expected", "you cannot kick yourself")
        self.seats[seat] = None
        kicked = held.client
        if kicked is not None:
            self.members.discard(kicked)
            kicked.table = None
            kicked.send({"type": "table_left", "table_id": self.id, "reason": "kicked"})
        self.changed()

    # -- the match -----------------------------------------------------------------

    def maybe_start(self) -> None:
        if self.status != WAITING or any(s is None for s in self.seats):
            return
        humans = self.humans()
        if humans and all(s.ready for s in humans):
            self.lobby.start_game(self)

    def match_over(self) -> None:
        """The match ended (finished or abandoned): back to the room; seats kept for
        the humans still here, ready flags cleared."""
        self.status = WAITING
        self.game = None
        for index, seat in enumerate(self.seats):
            if seat is None:
                continue
            seat.ready = False
            seat.auto_play = False
            if not seat.is_bot and not seat.connected:
                self.seats[index] = None
        self.changed()
        self.lobby.forget_if_empty(self)


class Lobby:
    """All tables and the clients that follow the table list."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.tables: dict[int, Table] = {}
        self.clients: set[Client] = set()  # signed-in clients: they get live updates
        self._ids = itertools.count(1)
        self.nursery: trio.Nursery | None = None

    def table_list(self, offset: int = 0) -> dict[str, Any]:
        """One page of the table list (a page always fits in a frame)."""
        tables = list(self.tables.values())
        page = tables[offset : offset + TABLE_PAGE]
        return {"type": "table_list", "tables": [t.info() for t in page], "total": len(tables)}

    def broadcast(self, message: dict[str, Any]) -> None:
        from gbmj_server.net.wire import encode

        frame = encode(message)  # once for everyone
        for client in list(self.clients):
            client.send_frame(frame)

    def table_changed(self, table: Table) -> None:
        if table.id in self.tables:
            self.broadcast({"type": "table_update", "table": table.info()})

    def create(self, client: Client, settings: TableSettings) -> Table:
        table = Table(self, next(self._ids), settings, client)
        self.tables[table.id] = table
        return table

    def get(self, table_id: int) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise RequestError("no_such_table", f"no table {table_id}")
        return table

    def table_of_account(self, account_id: int) -> Table | None:
        for table in self.tables.values():
            if any(s is not None and s.account_id == account_id for s in table.seats):
                return table
        return None

    def forget_if_empty(self, table: Table) -> None:
        """A table nobody is at is gone (a running match ends itself first)."""
        if table.status == PLAYING or table.humans() or table.members:
            return
        if self.tables.pop(table.id, None) is not None:
            self.broadcast(
                {
                    "type": "lobby_update",
                    "tables": [],
                    "removed": [table.id],
                    "total": len(self.tables),
                    "players_online": len(self.clients),
                }
            )

    def start_game(self, table: Table) -> None:
        from gbmj_server.net.match import TableGame

        assert self.nursery is not None
        table.status = PLAYING
        table.game = TableGame(table, self.server)
        table.changed()
        self.nursery.start_soon(table.game.run, name=f"table {table.id}")
