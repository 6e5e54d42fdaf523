"""The lobby: the tables, who sits and watches where, and the table list's live updates.

A ``Table`` here is the room: settings, four seats, spectators, the owner, ready flags.
The match itself is driven by ``gbmj_server.net.match.TableGame``, one trio task per
table, started when four seats are filled and every human is ready.
"""

from __future__ import annotations

import itertools
import logging
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
WAITING = "waiting"
PLAYING = "playing"


@dataclass(eq=False)
class Seat:
    """Who holds a seat: a human account (connected or not) or a bot.

    ``items`` is the per-seat place for prop items armed for this match (the items issue
    fills it; the match driver consults it when a timer runs out)."""

    name: str
    account_id: int | None = None  # None: a bot
    bot: Bot | None = None
    client: Client | None = None
    ready: bool = False
    auto_play: bool = False
    items: dict[str, Any] = field(default_factory=dict)

    @property
    def is_bot(self) -> bool:
        return self.account_id is None

    @property
    def connected(self) -> bool:
        return self.client is not None and not self.client.closed

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bot": self.is_bot,
            "ready": self.ready or self.is_bot,
            "connected": self.is_bot or self.connected,
            "auto_play": self.auto_play,
        }


class Table:
    def __init__(self, lobby: Lobby, table_id: int, settings: TableSettings, owner: int) -> None:
        self.lobby = lobby
        self.id = table_id
        self.settings = settings
        self.owner_id = owner
        self.seats: list[Seat | None] = [None] * SEATS
        self.spectators: set[Client] = set()
        self.status = WAITING
        self.game: TableGame | None = None

    # -- what people see -----------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The table's line in the lobby list."""
        return {
            "table_id": self.id,
            "name": self.settings.name,
            "stake": self.settings.stake,
            "rounds": self.settings.rounds,
            "timers": self.settings.timers,
            "has_password": bool(self.settings.password),
            "seats_taken": sum(s is not None for s in self.seats),
            "spectators": len(self.spectators),
            "status": self.status,
        }

    def state(self) -> dict[str, Any]:
        """The room as its members see it (not the game: that is the snapshot)."""
        owner = next(
            (s.name for s in self.seats if s is not None and s.account_id == self.owner_id), None
        )
        return {
            "type": "table_state",
            "table_id": self.id,
            "settings": self.settings.public(),
            "owner": owner,
            "status": self.status,
            "seats": [None if s is None else s.public() for s in self.seats],
            "spectators": len(self.spectators),
        }

    def members(self) -> list[Client]:
        seated = [s.client for s in self.seats if s is not None and s.connected]
        return seated + list(self.spectators)  # type: ignore[operator]

    def broadcast(self, message: dict[str, Any]) -> None:
        for client in self.members():
            client.send(message)

    def changed(self) -> None:
        """Tell members and the lobby that the room changed."""
        self.broadcast(self.state())
        self.lobby.table_changed(self)

    def humans(self) -> list[Seat]:
        return [s for s in self.seats if s is not None and not s.is_bot]

    def seat_index(self, client: Client) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and client.account and seat.account_id == client.account.id:
                return index
        return None

    # -- joining and seats -------------------------------------------------------------

    def check_password(self, client: Client, password: Any) -> None:
        if self.settings.password and password != self.settings.password:
            raise RequestError("wrong_password", "wrong table password")

    def sit(self, client: Client, seat: int | None) -> int:
        assert client.account is not None
        if self.status != WAITING:
            raise RequestError("match_running", "the match has started")
        current = self.seat_index(client)
        if seat is None:
            if current is not None:
                return current
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise RequestError("seat_taken", "the table is full")
            seat = free[0]
        if self.seats[seat] is not None and seat != current:
            raise RequestError("seat_taken", f"seat {seat} is taken")
        if current is not None:
            self.seats[current] = None
        self.spectators.discard(client)
        self.seats[seat] = Seat(client.account.name, client.account.id, client=client)
        client.table = self
        self.changed()
        return seat

    def watch(self, client: Client) -> None:
        self.spectators.add(client)
        client.table = self
        self.changed()
        if self.game is not None:
            self.game.send_snapshot(client, None)

    def stand(self, client: Client) -> None:
        index = self._require_seat(client)
        if self.status != WAITING:
            raise RequestError("match_running", "you cannot stand during a match: leave")
        self.seats[index] = None
        self.spectators.add(client)
        self._after_human_left(client)

    def leave(self, client: Client) -> None:
        """Leave the table; a seated player leaving a running match escapes."""
        index = self.seat_index(client)
        client.table = None
        if index is None:
            self.spectators.discard(client)
            self.changed()
            self.lobby.forget_if_empty(self)
            return
        if self.status == PLAYING and self.game is not None:
            self.game.escape(index)  # the seat goes to a bot
        else:
            self.seats[index] = None
        self._after_human_left(client)

    def _after_human_left(self, client: Client) -> None:
        assert client.account is not None
        if client.account.id == self.owner_id:
            heirs = self.humans()
            if heirs:
                self.owner_id = heirs[0].account_id  # type: ignore[assignment]
        self.changed()
        if self.game is not None:
            self.game.humans_changed()
        self.lobby.forget_if_empty(self)

    def disconnected(self, client: Client) -> None:
        """The connection dropped: spectators go; a seated player keeps the seat in a
        match (the server plays it at once) but not before it."""
        self.spectators.discard(client)
        index = self.seat_index(client)
        if index is not None:
            seat = self.seats[index]
            assert seat is not None
            if seat.client is client:
                seat.client = None
            if self.status == WAITING:
                self.seats[index] = None
                self._after_human_left(client)
                return
            if self.game is not None:
                self.game.humans_changed()
        self.changed()
        self.lobby.forget_if_empty(self)

    def reattach(self, client: Client) -> None:
        """A player of a running match is back (same or another client)."""
        index = self.seat_index(client)
        assert index is not None
        seat = self.seats[index]
        assert seat is not None
        old = seat.client
        if old is not None and old is not client:
            old.table = None
            old.send({"type": "notice", "code": "replaced", "message": "signed in elsewhere"})
            old.close("replaced", flush=True)
        seat.client = client
        client.table = self
        self.changed()
        if self.game is not None:
            self.game.humans_changed()
            self.game.send_snapshot(client, index)

    def set_ready(self, client: Client, ready: bool) -> None:
        index = self._require_seat(client)
        if self.status != WAITING:
            raise RequestError("match_running", "the match has started")
        self.seats[index].ready = ready  # type: ignore[union-attr]
        self.changed()
        self.maybe_start()

    # -- the owner's powers --------------------------------------------------------

    def _require_owner(self, client: Client) -> None:
        if client.account is None or client.account.id != self.owner_id:
            raise RequestError("not_owner", "only the table's owner may do that")
        if self.status != WAITING:
            raise RequestError("match_running", "not once the match has started")

    def _require_seat(self, client: Client) -> int:
        index = self.seat_index(client)
        if index is None:
            raise RequestError("not_seated", "you are not seated at this table")
        return index

    def configure(self, client: Client, data: Any) -> None:
        self._require_owner(client)
        settings = self.settings.updated(data)
        if not settings.bots and any(s is not None and s.is_bot for s in self.seats):
            raise RequestError("bots_not_allowed", "remove the bots first")
        self.settings = settings
        for seat in self.seats:  # new terms: everyone confirms again
            if seat is not None:
                seat.ready = False
        self.changed()

    def add_bot(self, client: Client, seat: int, level: str = "simple") -> None:
        self._require_owner(client)
        if not self.settings.bots:
            raise RequestError("bots_not_allowed", "this table allows no bots")
        if self.seats[seat] is not None:
            raise RequestError("seat_taken", f"seat {seat} is taken")
        self.seats[seat] = Seat(f"bot {seat + 1}", bot=make_bot(level))
        self.changed()
        self.maybe_start()

    def remove_bot(self, client: Client, seat: int) -> None:
        self._require_owner(client)
        held = self.seats[seat]
        if held is None or not held.is_bot:
            raise RequestError("seat_empty", f"no bot in seat {seat}")
        self.seats[seat] = None
        self.changed()

    def kick(self, client: Client, seat: int) -> None:
        self._require_owner(client)
        held = self.seats[seat]
        if held is None or held.is_bot:
            raise RequestError("seat_empty", f"no player in seat {seat}")
        if held.account_id == self.owner_id:
            raise RequestError("bad_request", "you cannot kick yourself")
        self.seats[seat] = None
        if held.client is not None:
            held.client.table = None
            held.client.send({"type": "kicked", "table_id": self.id})
        self.changed()

    # -- the match -----------------------------------------------------------------

    def maybe_start(self) -> None:
        if self.status != WAITING or any(s is None for s in self.seats):
            return
        if not all(s.ready for s in self.humans()) or not self.humans():
            return
        self.lobby.start_game(self)

    def match_over(self) -> None:
        """The match ended (finished or abandoned): back to the room, seats kept for the
        humans still here, ready flags cleared."""
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

    def table_list(self) -> dict[str, Any]:
        return {"type": "table_list", "tables": [t.summary() for t in self.tables.values()]}

    def broadcast(self, message: dict[str, Any]) -> None:
        for client in list(self.clients):
            client.send(message)

    def table_changed(self, table: Table) -> None:
        if table.id in self.tables:
            self.broadcast({"type": "table_update", "table": table.summary()})

    def create(self, client: Client, settings: TableSettings) -> Table:
        assert client.account is not None
        table = Table(self, next(self._ids), settings, client.account.id)
        self.tables[table.id] = table
        return table

    def get(self, table_id: Any) -> Table:
        table = self.tables.get(table_id) if isinstance(table_id, int) else None
        if table is None:
            raise RequestError("no_such_table", f"no table {table_id!r}")
        return table

    def table_of_account(self, account_id: int) -> Table | None:
        for table in self.tables.values():
            if any(s is not None and s.account_id == account_id for s in table.seats):
                return table
        return None

    def forget_if_empty(self, table: Table) -> None:
        """A table with no humans seated and no spectators is gone (unless it plays)."""
        if table.status == PLAYING or table.humans() or table.spectators:
            return
        if self.tables.pop(table.id, None) is not None:
            self.broadcast({"type": "table_removed", "table_id": table.id})

    def start_game(self, table: Table) -> None:
        from gbmj_server.net.match import TableGame

        assert self.nursery is not None
        table.status = PLAYING
        table.game = TableGame(table, self.server)
        table.changed()
        self.nursery.start_soon(table.game.run, name=f"table {table.id}")
