"""A node's leases on its tables (``gbmj_server.storage.nodes``).

One task renews the leases of the tables the node runs, in one statement, each third of
the lease time. A table whose lease the node no longer holds (another node took it)
stops at once; if the node cannot renew at all (the database is out of reach), every
table stops two thirds into its lease, before another node may take it over, so this
one settles nothing more (and each step written ahead and each hand's settlement
checks the lease in its own transaction: ``storage.nodes.check_lease``).
A lease of this node whose table no longer runs here is left to lapse, and is taken
over like any other. The same task looks for running matches whose lease lapsed (their
node died) and takes them over, resuming them as a restart does. Then it renews the
roles one node at a time holds (``Role``: the tournament runner), or takes one whose
lease lapsed; a node that cannot renew gives its roles up with its tables. A running
tournament's session tables are left a lease time to the node that runs the
tournaments (``take``), so that a runner taken over finds them at its next look.

A redirect names where the other node is reached: its address, its TLS certificate
(from the database: a client the doors started pins nothing and checks it) and, for a
front door's client, a pass for that node signed with the door secret the nodes share.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from gbmj_server import logs
from gbmj_server.hosted import SignedPasses
from gbmj_server.net.connection import Connection
from gbmj_server.nodes.tickets import make_ticket
from gbmj_server.storage.nodes import NodeAddress
from gbmj_server.storage.threads import AsyncStorage
from protocol import messages as m

log = logging.getLogger(__name__)

LOBBY_CHANNEL = "gbmj_lobby"  # NOTIFY: a node's tables changed (payload: the node)
TOURNAMENTS = "tournaments"  # the role of the node that runs the tournaments


@dataclass
class Role:
    """A role one node at a time holds (``role_lease``), leased as tables are: its
    holder renews it with its tables, another node takes it once it lapsed.
    ``gained()``: now held here (called again at each renewal: it picks up what is new);
    ``lost()``: stop at once, another node may take it."""

    name: str
    gained: Callable[[], Awaitable[object]]
    lost: Callable[[], None]
    held: bool = False


def hosted_player(conn: Connection) -> str | None:
    """The player's address of a front door's client (its pass named them), else None."""
    return conn.address if conn.hosted else None


class Leases:
    def __init__(self, store: AsyncStorage, node: str, lease_time: float) -> None:
        self.store = store
        self.node = node
        self.lease_time = lease_time
        self.renewed_at = time.time()  # when the last renewal that went through began
        self.address: str | None = None  # HOST:PORT players reach this node at
        self.fingerprint: str | None = None  # of its TLS certificate (None: plain TCP)
        self.passes: SignedPasses | None = None  # the front doors' passes (door_secret)
        self.ticket_key: bytes | None = None  # signs redirect tickets, once running
        self.players: Callable[[], int] = lambda: 0  # signed in on this node
        self.roles: list[Role] = []  # the roles this node may hold
        self._nursery: trio.Nursery | None = None

    async def redirect(
        self, account_id: int, table_id: int, hosted: str | None = None
    ) -> m.Redirect | None:
        """A redirect of the player to the node that holds ``table_id``, if another
        node holds it (and says where it is reached); ``hosted``: the player's address,
        for a front door's client (``_redirect``)."""
        storage = self.store.storage
        held = await self.store.call(storage.holder_address, table_id)
        if held is None or held[0] == self.node or held[1] is None:
            return None
        return self._redirect(account_id, table_id, held[1], hosted)

    async def redirect_seated(
        self, account_id: int, hosted: str | None = None
    ) -> m.Redirect | None:
        """A redirect to the account's running match, when another node holds it."""
        storage = self.store.storage
        found = await self.store.call(storage.seated_elsewhere, account_id, self.node)
        if found is None:
            return None
        return self._redirect(account_id, found[0], found[1], hosted)

    def _redirect(
        self, account_id: int, table_id: int, to: NodeAddress, hosted: str | None
    ) -> m.Redirect | None:
        """The redirect to ``to`` with its ticket, and where it is reached: the node's
        certificate, learned from the database, goes over the connection the client
        already trusts, so a client of a front door (which pins nothing) checks that node
        too; and its pass there, signed with the door secret every node shares (None
        without one: it connects as an ordinary client of the door's machine)."""
        if self.ticket_key is None:
            return None
        ticket = make_ticket(self.ticket_key, account_id, table_id, time.time())
        door = None
        if hosted is not None and self.passes is not None:
            door = self.passes.issue(hosted)
        return m.Redirect(
            table_id=table_id,
            address=to.address,
            ticket=ticket,
            fingerprint=to.fingerprint,
            door=door,
        )

    async def _seen(self) -> None:
        storage = self.store.storage
        await self.store.call(
            storage.node_seen, self.node, self.address, self.players(), self.fingerprint
        )

    def _until(self) -> float:
        return time.time() + self.lease_time

    async def new_table(self) -> int:
        """A fresh table id, its lease held by this node."""
        storage = self.store.storage
        return await self.store.call(storage.new_table, self.node, self._until())

    async def take(self, *, own: bool) -> set[int]:
        """The tables of running matches whose lease lapsed (with ``own``: and this
        node's own, after a restart), their leases now this node's. A running
        tournament's session tables are left a lease time to the node that runs the
        tournaments (it gives them their session's rules), unless this is that node."""
        storage = self.store.storage
        runs = own or any(r.held for r in self.roles if r.name == TOURNAMENTS)
        wait = None if runs else time.time() - self.lease_time
        return await self.store.call(
            storage.take_leases, self.node, self._until(), own=own, sessions_lapsed_before=wait
        )

    async def hold_roles(self) -> None:
        """Renew the roles this node holds, take those whose lease lapsed: each role's
        ``gained`` or ``lost`` as it turns out (after the tables' renewal: a node that
        cannot renew its tables renews no role either)."""
        storage = self.store.storage
        for role in self.roles:
            held = await self.store.call(storage.hold_role, role.name, self.node, self._until())
            if held and not role.held:
                logs.event("role_taken", node=self.node, role=role.name)
            elif role.held and not held:
                logs.event("role_lost", node=self.node, role=role.name)
                role.lost()
            role.held = held
            if held:
                await role.gained()

    def _lose_roles(self) -> None:
        for role in self.roles:
            if role.held:
                role.held = False
                logs.event("role_lost", node=self.node, role=role.name)
                role.lost()

    def release(self, table_id: int) -> None:
        """A table of this node closed: its lease goes, and the other nodes hear of it."""
        if self._nursery is not None:
            # (not while the node stops: its leases then lapse by themselves)
            with contextlib.suppress(RuntimeError):
                self._nursery.start_soon(self._release, table_id)

    async def _release(self, table_id: int) -> None:
        storage = self.store.storage
        try:
            await self.store.call(storage.release_lease, table_id, self.node)
            await self.store.call(storage.notify, LOBBY_CHANNEL, self.node)
        except Exception:  # its lease lapses, and the next taker drops it
            log.warning("table %s: its lease could not be released", table_id, exc_info=True)

    async def run(
        self,
        running: Callable[[], set[int]],
        stop: Callable[[set[int]], None],
        take_over: Callable[[set[int]], Awaitable[object]],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Renew, stop what is lost, take over what lapsed, each ``lease_time / 3``
        seconds. ``running()``: the tables this node runs; ``stop(ids)``: stop them
        without a further step; ``take_over(ids)``: resume them here."""
        try:
            await self._run(running, stop, take_over, task_status)
        finally:
            self._nursery = None  # stopping: the leases (and roles) lapse by themselves

    async def _run(
        self,
        running: Callable[[], set[int]],
        stop: Callable[[set[int]], None],
        take_over: Callable[[set[int]], Awaitable[object]],
        task_status: trio.TaskStatus[None],
    ) -> None:
        storage = self.store.storage
        self.ticket_key = await self.store.call(storage.ticket_key)
        await self._seen()
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._watchdog, running, stop)
            task_status.started()
            while True:
                await trio.sleep(self.lease_time / 3)
                try:
                    await self._seen()
                except Exception:
                    log.warning("node %s: not marked alive", self.node, exc_info=True)
                before = running()  # a table made during the renewal is not lost
                base = time.time()  # the leases run from here, whenever the answer comes
                try:
                    held = await self.store.call(
                        storage.renew_leases, self.node, base + self.lease_time, before
                    )
                except Exception:
                    log.warning("node %s: leases not renewed", self.node, exc_info=True)
                    continue
                self.renewed_at = base
                lost = before - held
                if lost:
                    logs.event("leases_lost", node=self.node, tables=len(lost))
                    stop(lost)
                try:
                    lapsed = await self.take(own=False)
                except Exception:
                    log.warning("node %s: lapsed leases not taken", self.node, exc_info=True)
                    continue
                lapsed -= running()
                if lapsed:
                    logs.event("leases_taken", node=self.node, tables=len(lapsed))
                    await take_over(lapsed)
                try:
                    await self.hold_roles()
                except Exception:  # held no more, to be safe: taken again next time
                    log.warning("node %s: roles not renewed", self.node, exc_info=True)
                    self._lose_roles()

    async def _watchdog(
        self, running: Callable[[], set[int]], stop: Callable[[set[int]], None]
    ) -> None:
        """Every table stops before its lease can run out unrenewed (a renewal that hangs
        on an unreachable database included): two thirds into the lease, when one
        renewal in a row failed, so another node never resumes a table still running."""
        while True:
            await trio.sleep(self.lease_time / 12)
            if time.time() > self.renewed_at + self.lease_time * 2 / 3:
                lost = running()
                if lost:
                    logs.event("leases_lost", node=self.node, tables=len(lost))
                    stop(lost)
                self._lose_roles()
