"""The game server: its services, the listener, one task per connection, the start.

``run_server(config)`` is what ``gbmj-server`` runs: the database, the listeners, the
SSH front door, the signals. ``Server.serve(listeners)`` is what tests run on a port of
their own, ``Server.run`` without a listener (for connections over memory streams). At
start the server resumes every match a restart interrupted (docs/rules.md §2.4); on
SIGINT or SIGTERM it tells every client it restarts and stops, the matches written ahead
so that the next start goes on with them.
"""

from __future__ import annotations

import contextlib
import logging
import random
import signal
import ssl
import sys
from collections.abc import Sequence
from functools import partial

import trio

from gbmj_server import collector, logs, metrics
from gbmj_server.admin_socket import serve_admin
from gbmj_server.config import ServerConfig
from gbmj_server.handlers import HANDLERS, history
from gbmj_server.handlers.accounts import housekeeping
from gbmj_server.hosted import GameDoor, SignedPasses, client_address, serve_launcher
from gbmj_server.moderation import Moderator
from gbmj_server.net.connection import Connection
from gbmj_server.net.dispatch import Dispatcher
from gbmj_server.net.guard import Guard
from gbmj_server.net.lobby import Lobby
from gbmj_server.net.peers import DOOR_ADDRESS, ProxyHeaderError, proxied_address
from gbmj_server.net.sessions import Sessions
from gbmj_server.nodes.leases import TOURNAMENTS, Leases, Role
from gbmj_server.nodes.listener import Listener
from gbmj_server.services import Services
from gbmj_server.signing import Signer
from gbmj_server.storage import Storage
from gbmj_server.storage.threads import AsyncStorage
from gbmj_server.tables import commands as do
from gbmj_server.tables.brains import Brains
from gbmj_server.tables.context import TableContext
from gbmj_server.tables.journal import Journal
from gbmj_server.tables.registry import Tables
from gbmj_server.tls import Records, ServerTls, open_tls
from gbmj_server.tournaments import Tournaments
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.framing import encode
from protocol.vocabulary import NoticeCode

log = logging.getLogger(__name__)

DOOR_HOST = "127.0.0.1"  # where the front doors' clients reach the game
FAREWELL = 0.5  # seconds to let "the server restarts" reach the clients
GAUGES_EVERY = 5.0  # seconds between two readings of the counts the metrics show
GIVE_BACK_AFTER = 64  # connections gone (and twice those open) before memory goes back


class Server:
    def __init__(
        self,
        storage: Storage,
        config: ServerConfig,
        *,
        match_seed: bytes | None = None,
        rng: random.Random | None = None,
        signer: Signer | None = None,
    ) -> None:
        self.config = config
        storage.inventory_slots = config.inventory_slots
        self.store = AsyncStorage(storage)
        self.sessions = Sessions()
        self.lobby = Lobby(self.sessions)
        self.guard = Guard(config.limits, config.door_secret)
        self.journal = Journal(self.store)
        self.rng = rng or random.SystemRandom()
        self.match_seed = match_seed  # None: a fresh seed per match (tests fix one)
        self.services: Services | None = None
        self.moderator: Moderator | None = None  # the host's actions, once running
        self.dispatcher: Dispatcher[Services] | None = None
        self.resumed = 0  # matches resumed at start
        self.signer = signer  # signs what the history tells (None: nothing signed)
        self.port: int | None = None  # the first listener's port, once serving
        self.tls: ssl.SSLContext | None = None  # what the listeners serve, once serving
        # On PostgreSQL this server is one node of several (gbmj_server.nodes).
        self.leases: Leases | None = None
        self.listener: Listener | None = None
        if storage.url is not None:
            self.journal.node = config.node
            self.leases = Leases(self.store, config.node, config.lease_time)
            if config.door_secret is not None:  # a front door's client follows with a pass
                self.leases.passes = SignedPasses(config.door_secret)
            self.listener = Listener(storage.url, self.store, config.node, self.lobby)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The services, the tables (the interrupted matches resumed), until cancelled."""
        config = self.config
        async with trio.open_nursery() as nursery:
            ctx = TableContext(
                self.store,
                self.lobby,
                self.journal,
                nursery,
                rng=self.rng,
                bot_delay=config.bot_delay,
                hand_pause=config.hand_pause,
                abandon_grace=config.abandon_grace,
                table_linger=config.table_linger,
                table_fee=config.table_fee,
                match_seed=self.match_seed,
                brains=Brains(config.bot_workers) if config.bot_workers else None,
                node=None if self.leases is None else config.node,
            )
            self.services = Services(
                config,
                self.store,
                self.sessions,
                self.lobby,
                Tables(ctx, self.leases),
                self.guard,
                self.rng,
                signer=self.signer,
            )
            self.dispatcher = Dispatcher(self.services, HANDLERS)
            listener = self.listener
            self.moderator = Moderator(
                self.services, share=None if listener is None else listener.host_action
            )
            if listener is not None:
                listener.on_host = self.moderator.heard
            nursery.start_soon(self.journal.run)
            if ctx.brains is not None:
                await nursery.start(ctx.brains.run)
            nursery.start_soon(self.lobby.run)
            nursery.start_soon(self._gauges)
            nursery.start_soon(housekeeping, self.services)
            nursery.start_soon(history.housekeeping, self.services)
            if self.listener is not None:
                await nursery.start(self.listener.run)
            tables = self.services.tables
            if self.leases is not None:
                # Where a redirect sends players: the address the host advertises, else
                # the one this node listens on (none for every address: no redirect
                # can name that).
                listening = None
                if self.port is not None and config.host not in ("0.0.0.0", "::", ""):
                    listening = f"{config.host}:{self.port}"
                self.leases.address = config.advertise or listening
                if self.leases.address is None:
                    log.warning("node %s: no advertise address: no redirects here", config.node)
                self.leases.players = lambda: self.sessions.signed_in
                await nursery.start(
                    partial(self.leases.run, tables.running, tables.stop, self._take_over)
                )
            self.resumed = await tables.resume()
            self.services.tournaments = Tournaments(
                self.store, self.sessions, self.services.tables, nursery
            )
            tournaments = self.services.tournaments
            if self.leases is None:
                if config.tournaments:
                    await tournaments.resume()
            else:  # on several nodes, the one node that holds the role runs them
                tournaments.runs = False
                if config.tournaments:

                    async def gained() -> None:
                        tournaments.runs = True
                        await tournaments.resume()

                    role = Role(TOURNAMENTS, gained, tournaments.stop)
                    self.leases.roles.append(role)
                    await self.leases.hold_roles()
            task_status.started()

    async def serve(
        self,
        listeners: Sequence[trio.SocketListener],
        *,
        tls: ssl.SSLContext | None = None,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """``run``, and accept connections on ``listeners`` (TLS with a ``tls`` context)."""
        if listeners:
            self.port = listeners[0].socket.getsockname()[1]
        self.tls = tls
        async with trio.open_nursery() as nursery:
            await nursery.start(self.run)
            await nursery.start(trio.serve_listeners, self.handle_stream, listeners)
            task_status.started()

    async def _take_over(self, table_ids: set[int]) -> None:
        """Resume here the matches of a node that died; their players signed in on this
        node meanwhile are back at their seats at once."""
        tables = self.tables
        await tables.take_over(table_ids)
        if self.services is not None and self.services.tournaments is not None:
            self.services.tournaments.tables_arrived()  # a session's, maybe: its rules
        for account_id, table_id in tables.seated().items():
            conn = self.sessions.of_account(account_id)
            actor = tables.actors.get(table_id)
            if table_id in table_ids and conn is not None and conn.session.table is None and actor:
                await actor.call(do.WelcomeBack(conn))

    async def _gauges(self) -> None:
        """The metrics that are counts of what is now (players, tables by state); and
        once a crowd of connections has gone, their memory back to the system."""
        given_back = self.guard.released
        while True:
            metrics.set_signed_in(self.sessions.signed_in)
            counts = self.tables.statuses()
            metrics.set_tables(counts)
            gone = self.guard.released - given_back
            if gone >= max(GIVE_BACK_AFTER, 2 * self.guard.open):
                given_back = self.guard.released
                collector.give_back()
            await trio.sleep(GAUGES_EVERY)

    @property
    def tables(self) -> Tables:
        assert self.services is not None, "the server is not running"
        return self.services.tables

    async def farewell(self) -> None:
        """Tell every client the server restarts, and give the news a moment."""
        self.sessions.broadcast(
            m.Notice(code=NoticeCode.RESTARTING, message="the server restarts: back in a moment")
        )
        await trio.sleep(FAREWELL)

    # -- one connection ------------------------------------------------------------
    async def handle_stream(self, stream: trio.SocketStream) -> None:
        address = "?"
        with contextlib.suppress(OSError):
            address = str(stream.socket.getpeername()[0])
        if self.guard.key(address) in self.guard.proxies:
            try:  # the player's address, from the header the host's proxy puts first
                with trio.fail_after(self.config.limits.hello_timeout):
                    address = await proxied_address(stream.socket, address)
            except (ProxyHeaderError, trio.TooSlowError, OSError) as exc:
                logs.event("proxy_header_refused", address=address, reason=str(exc))
                await trio.aclose_forcefully(stream)
                return
        if self.tls is not None and not self.guard.handshake(address, trio.current_time()):
            # Over the address's rate: closed before any TLS work, the costly part.
            log.debug("%s: over its rate of TLS handshakes, closed", address)
            await trio.aclose_forcefully(stream)
            return
        await self.handle_connection(stream, address, self.tls)

    async def handle_door_stream(self, stream: trio.abc.Stream) -> None:
        """A client of the server's own SSH or web door, on the doors' listener (plain
        TCP on loopback): its hello names the player (``gbmj_server.net.peers``)."""
        await self.handle_connection(stream, DOOR_ADDRESS, door=True)

    async def handle_connection(
        self,
        stream: trio.abc.Stream,
        address: str,
        tls: ssl.SSLContext | None = None,
        *,
        door: bool = False,
    ) -> None:
        """Serve one client on ``stream`` (a socket, or a memory stream in tests), over
        TLS with a ``tls`` context."""
        assert self.dispatcher is not None, "the server is not running"
        conn = Connection(address, self.config.limits, door=door)
        refused = self.guard.admit(conn)
        if refused is not None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                told: trio.abc.Stream | None = stream
                if tls is not None:  # told over TLS, which the client speaks
                    assert isinstance(stream, trio.SocketStream)
                    with trio.move_on_at(conn.opened + self.config.limits.hello_timeout):
                        told = await self._secure(conn, stream, tls)
                if told is not None:
                    with trio.move_on_after(1):
                        await told.send_all(
                            encode(m.Error(code=ErrorCode.SERVER_BUSY, message=refused))
                        )
            await trio.aclose_forcefully(stream)
            return
        self.sessions.opened(conn)
        logs.event("connection_opened", connection=conn.id, address=address)
        opening = None
        if tls is not None:
            assert isinstance(stream, trio.SocketStream)
            opening = partial(self._secure, conn, stream, tls)
        try:
            with metrics.connection():
                await conn.serve(
                    stream, self.dispatcher.dispatch, self.dispatcher.bad_frame, opening
                )
        except* (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        except* Exception:
            log.exception("%r: the connection failed", conn)
            conn.close_reason = "server error"
        finally:
            logs.event(
                "connection_closed",
                connection=conn.id,
                account=conn.session.account_id,
                reason=conn.close_reason or "closed",
            )
            conn.closed = True
            self.guard.release(conn)
            self.sessions.closed(conn)
            self.lobby.unwatch(conn)
            with trio.move_on_after(5) as cleanup:
                cleanup.shield = True
                actor = self.tables.at(conn)
                if actor is not None:
                    with contextlib.suppress(Exception):
                        await actor.call(do.Disconnected(conn))
                await trio.aclose_forcefully(stream)

    async def _secure(
        self,
        conn: Connection,
        socket: trio.SocketStream,
        context: ssl.SSLContext,
    ) -> trio.SSLStream[Records] | None:
        """The connection's TLS: begun at its first bytes, the handshake in its turn and
        in time (None: it was not)."""
        stream = await open_tls(socket, context, conn.transport_holds)
        async with self.guard.handshake_turn(conn.address):
            with trio.move_on_after(self.config.limits.handshake_timeout):
                await stream.do_handshake()
                return stream
        return None


async def run_server(
    config: ServerConfig, tls: ServerTls | None = None, signer: Signer | None = None
) -> None:
    """Open the database, listen (TLS unless the config says ``insecure``: ``tls`` is the
    certificate to serve), print where, and serve until SIGINT or SIGTERM; what the
    history tells is signed by ``signer``."""
    storage = Storage(config.database)
    try:
        server = Server(storage, config, signer=signer)
        # The signal handlers go in before the address is printed: whoever reads the
        # address may signal at once.
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            listeners = await trio.open_tcp_listeners(config.port, host=config.host)
            async with trio.open_nursery() as nursery:
                context = None if tls is None else tls.context
                if server.leases is not None and tls is not None:  # named in redirects
                    server.leases.fingerprint = tls.fingerprint
                await nursery.start(partial(server.serve, tls=context), listeners)
                collector.start()  # short collector pauses with thousands of connections
                nursery.start_soon(collector.run)
                port = server.port
                print(f"listening on {config.host}:{port}", flush=True)
                print(f"database: {storage.target}", flush=True)
                if server.leases is not None:  # one node of several (docs/hosting.md)
                    where = server.leases.address or "nowhere: set advertise for redirects"
                    print(f"node: {config.node}, reached at {where}", flush=True)
                print(tls.banner if tls is not None else "tls: off (plain TCP)", flush=True)
                if signer is not None and (tls is None or tls.fingerprint != signer.fingerprint):
                    print(signer.banner, flush=True)  # the TLS line names it otherwise
                if server.resumed:
                    print(f"resumed {server.resumed} running matches", flush=True)
                if config.ssh.port is not None or config.web.port is not None:
                    # The front doors' clients come in on a listener of their own
                    # (plain TCP on loopback), each naming its player with a pass.
                    doors = await trio.open_tcp_listeners(0, host=DOOR_HOST)
                    await nursery.start(trio.serve_listeners, server.handle_door_stream, doors)
                    game = GameDoor(
                        client_address(DOOR_HOST, doors[0].socket.getsockname()[1]),
                        server.guard.doors,
                        await nursery.start(serve_launcher),  # forks each session's client
                    )
                if config.ssh.port is not None:  # play over SSH (gbmj_server.ssh)
                    from gbmj_server.ssh.service import serve_ssh

                    await nursery.start(
                        serve_ssh, config.ssh, config.host, game, config.db_path, config.database
                    )
                if config.web.port is not None:  # play in a browser (gbmj_server.web)
                    from gbmj_server.web.service import serve_web

                    await nursery.start(serve_web, config.web, config.host, game)
                # The host's admin commands reach the running server here.
                assert server.moderator is not None
                await nursery.start(serve_admin, config.admin_path, server.moderator)
                if config.metrics_port is not None:  # the host's metrics and health
                    where = await nursery.start(
                        metrics.serve_metrics, config.metrics_host, config.metrics_port
                    )
                    print(f"metrics: http://{config.metrics_host}:{where}/metrics", flush=True)
                async for signum in signals:
                    log.info("signal %s: stopping", signum)
                    break
                await server.farewell()
                nursery.cancel_scope.cancel()
    finally:
        storage.close()
    print("server stopped", file=sys.stderr, flush=True)
