"""``gbmj-server door``: the SSH and web doors as a process of their own, on any machine,
against any game node.

Each hosted player costs a client process; the game itself costs little a player. So a
host may run the doors apart (``gbmj-server door --server HOST:PORT --ssh-port P
--web-port P``), as many as they like, on machines of their own: this process runs the
launcher (``gbmj_server.launcher``) and both doors exactly as the game server runs them
inside itself, but its clients reach the game on its game port, over TLS with the
certificate's fingerprint given (``--fingerprint``: checked, as a client pins it) or
plain TCP (``--insecure``).

Who each player is: the door signs a pass per session naming the player's address
(``hosted.SignedPasses``) with the secret it shares with the game (``door_secret``, from
its settings file or ``GBMJ_DOOR_SECRET``, never the command line, which ``ps`` shows).
The game believes a pass it can check with its own ``door_secret``, on any node; without
a secret the door gives no pass and its clients are ordinary clients of its address.
The door checks at its start that the game answers, is the one named, and takes its
passes: a door with a wrong secret or fingerprint says so and stops.

The SSH door signs players in from the game's database (``--db``: the nodes' PostgreSQL,
or the SQLite file on the game's own machine); the web door needs none (its players sign
in on the client's connect screen).
"""

from __future__ import annotations

import signal
import ssl
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import trio

from gbmj_server.config import ServerConfig
from gbmj_server.hosted import GameDoor, SignedPasses, serve_launcher
from protocol import messages as m
from protocol.framing import FrameDecoder, encode
from protocol.tls import fingerprint as fingerprint_of

SECRET_ENV = "GBMJ_DOOR_SECRET"
CHECK_TIMEOUT = 10.0  # seconds the game gets to answer the door's check at its start
CLIENT = "gbmj-door/1"


class DoorError(Exception):
    """The door cannot serve this game (the reason is for the host)."""


@dataclass(frozen=True, slots=True)
class Door:
    """What a door process needs besides the doors' settings: the game node's address
    (``host:port``), its certificate's fingerprint (None: plain TCP), the shared secret
    (None: no passes)."""

    server: str
    fingerprint: str | None
    secret: str | None


def split_address(text: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` as (host, port); ``DoorError`` if it is neither."""
    host, sep, port = text.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise DoorError(f"--server must be HOST:PORT (IPv6 as [::1]:7415), not {text!r}")
    return host, int(port)


def secret_from(config: ServerConfig, env: Mapping[str, str]) -> str | None:
    """The door secret: ``GBMJ_DOOR_SECRET``, else the settings file's ``door_secret``."""
    secret = env.get(SECRET_ENV, "").strip() or config.door_secret
    if secret is not None:
        try:
            SignedPasses(secret)
        except ValueError as exc:
            raise DoorError(f"{SECRET_ENV}: {exc}") from None
    return secret


async def check_game(door: Door) -> str:
    """Connect to the game once as the doors' clients will: its certificate is the one
    named, and it takes a pass of this door (or greets a client without one). Returns
    what was checked, for the host; ``DoorError`` says what is wrong."""
    host, port = split_address(door.server)
    try:
        with trio.fail_after(CHECK_TIMEOUT):
            tcp = await trio.open_tcp_stream(host, port)
            stream: trio.abc.Stream = tcp
            if door.fingerprint is not None:
                context = ssl.create_default_context()
                context.check_hostname = False  # a self-signed certificate, pinned below
                context.verify_mode = ssl.CERT_NONE
                tls = trio.SSLStream(tcp, context)
                await tls.do_handshake()
                der = tls.getpeercert(binary_form=True)
                seen = fingerprint_of(der) if der else "none"
                if seen != door.fingerprint:
                    await tls.aclose()
                    raise DoorError(
                        f"the game at {door.server} shows certificate {seen}, "
                        f"not {door.fingerprint}: not the game named, or it changed"
                    )
                stream = tls
            door_pass = None
            if door.secret is not None:
                own = tcp.socket.getsockname()[0]
                door_pass = SignedPasses(door.secret).issue(str(own))
            hello = m.Hello(version=m.PROTOCOL_VERSION, client=CLIENT, door=door_pass)
            await stream.send_all(encode(hello))
            reply = await _first_message(stream)
            await trio.aclose_forcefully(stream)
    except (OSError, trio.BrokenResourceError, ssl.SSLError) as exc:
        raise DoorError(f"cannot reach the game at {door.server}: {exc}") from None
    except trio.TooSlowError:
        raise DoorError(f"the game at {door.server} does not answer") from None
    if not isinstance(reply, m.Welcome):
        why = reply.message if isinstance(reply, m.Error) else type(reply).__name__
        if door.secret is not None:
            why += " (is door_secret the same on the game and the door?)"
        raise DoorError(f"the game at {door.server} refused the door: {why}")
    tls_said = "plain TCP" if door.fingerprint is None else f"certificate {door.fingerprint}"
    passes = "its passes taken" if door.secret is not None else "no door secret: no passes"
    return f"door: game {door.server} ({reply.server}, {tls_said}), {passes}"


async def _first_message(stream: trio.abc.Stream) -> m.Message:
    decoder = FrameDecoder()
    while True:
        message = decoder.next_message()
        if message is not None:
            return message
        data = await stream.receive_some()
        if not data:
            raise trio.BrokenResourceError("closed before answering")
        decoder.receive_data(data)


async def run_door(config: ServerConfig, door: Door) -> None:
    """The launcher and the doors the settings name, against the game, until SIGINT or
    SIGTERM."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        print(await check_game(door), flush=True)
        async with trio.open_nursery() as nursery:
            passes = None if door.secret is None else SignedPasses(door.secret)
            launcher = await nursery.start(serve_launcher)  # forks each session's client
            game = GameDoor(door.server, passes, launcher, door.fingerprint)
            if config.ssh.port is not None:
                from gbmj_server.ssh.service import serve_ssh

                serve = partial(serve_ssh, config.ssh, config.host, game)
                await nursery.start(serve, config.db_path, config.database)
            if config.web.port is not None:
                from gbmj_server.web.service import serve_web

                await nursery.start(serve_web, config.web, config.host, game)
            async for _ in signals:
                break
            nursery.cancel_scope.cancel()
    print("door stopped", file=sys.stderr, flush=True)
