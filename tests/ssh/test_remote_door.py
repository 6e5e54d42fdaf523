"""A door on another machine (``gbmj-server door``, gbmj_server.door), as real processes
on loopback: a game server with a ``door_secret`` and no doors of its own, and a door
process serving SSH and the web page against its game port over TLS, its certificate's
fingerprint given. The game counts each hosted player under their own address (the
door's signed pass), a pass nobody signed is refused, and the door restarts its launcher
as the game's own doors do."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
from processes import start_logged
from web.conftest import web_terminal

from gbmj_server.hosted import SignedPasses
from gbmj_tui.local_server import game_port
from protocol.framing import FrameDecoder, encode_map
from ssh.conftest import DOOR, START_TIMEOUT, children, open_terminal, until

TAB, ENTER = "\t", "\r"

TLS = re.compile(r"tls: certificate (SHA256:\S+)")
WEB = re.compile(r"web: listening on http://\S+:(\d+)/")


@dataclass
class Running:
    proc: subprocess.Popen[str]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text("utf-8", errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


@dataclass
class Pair:
    """A game server and a door serving SSH against it."""

    game: Running
    door: Running
    game_port: int
    fingerprint: str
    secret: str
    ssh_port: int
    web_port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}/"

    @property
    def db(self) -> Path:
        return self.game.log.parent / "gbmj.sqlite3"


def _start(command: list[str], log: Path, pattern: str, env: dict[str, str] | None = None):
    proc, lines = start_logged(command, log, pattern, START_TIMEOUT, env)
    return Running(proc, log), lines


def start_pair(tmp: Path, limits: dict[str, object], door_secret: str | None = None) -> Pair:
    """The game (TLS, ``limits``) and a door process serving SSH (guests) and the web page
    against it, sharing a secret (``door_secret``: the door's own, if it should differ)."""
    secret = secrets.token_urlsafe(32)
    game_config = tmp / "game.toml"
    lines = [f"door_secret = {secret!r}\n", "[limits]\n"]
    lines += [f"{k} = {v!r}\n".replace("'", '"') for k, v in limits.items()]
    game_config.write_text("".join(lines), "utf-8")
    db = tmp / "gbmj.sqlite3"
    command = [sys.executable, "-m", "gbmj_server", "--port", "0", "--db", str(db)]
    game, said = _start([*command, "--config", str(game_config)], tmp / "game.log", TLS.pattern)
    found = TLS.match(said[-1])
    assert found is not None
    port, fingerprint = game_port(said), found[1]
    door_config = tmp / "door.toml"
    door_config.write_text('ssh_unknown_users = "guest"\n', "utf-8")
    env = {**os.environ, "GBMJ_DOOR_SECRET": door_secret or secret}
    command = [sys.executable, "-m", "gbmj_server", "door", "--server", f"127.0.0.1:{port}"]
    command += ["--fingerprint", fingerprint, "--ssh-port", "0", "--web-port", "0"]
    command += ["--db", str(db)]
    command += ["--config", str(door_config)]
    try:
        door, said = _start(command, tmp / "door.log", WEB.pattern, env)
    except AssertionError:
        game.stop()
        raise
    ssh = next(found for line in said if (found := DOOR.match(line)))
    web = WEB.match(said[-1])
    assert web is not None
    return Pair(game, door, port, fingerprint, secret, int(ssh[1]), int(web[1]))


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    """One guest an hour from an address at the game; the door machine (127.0.0.1)
    trusted there."""
    running = start_pair(tmp_path, {"guests_per_hour": 1, "trusted": ["127.0.0.1"]})
    yield running
    running.door.stop()
    running.game.stop()


def door_launchers(pair: Pair) -> list[int]:
    return [
        pid
        for pid in children(pair.door.proc.pid)
        if b"gbmj_server.launcher" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


def test_the_game_counts_each_player_of_a_remote_door_under_their_address(pair: Pair) -> None:
    """Over a door in its own process: one guest an hour from an address, so a second
    from 127.0.0.2 is refused, one from 127.0.0.3 not; the game names both addresses
    and never the door's."""

    async def scenario() -> None:
        conn, term = await open_terminal(pair, "first", source="127.0.0.2")
        async with conn:
            await term.wait_for("New table")
        conn, term = await open_terminal(pair, "second", source="127.0.0.2")
        async with conn:
            await term.wait_for("too many attempts")
        conn, term = await open_terminal(pair, "third", source="127.0.0.3")
        async with conn:
            await term.wait_for("New table")

    asyncio.run(scenario())
    log = pair.game.log_text()
    assert re.search(r"door_connection .*address=127\.0\.0\.2\b", log), log
    assert re.search(r"door_connection .*address=127\.0\.0\.3\b", log), log
    assert not re.search(r"door_pass_refused", log), log


def test_a_browser_player_of_a_remote_door_registers_under_their_address(pair: Pair) -> None:
    """The web page of a door in its own process: its client opens on the connect
    screen, pointed at the game; a player registers there and reaches the lobby, named
    by the door's pass."""

    async def scenario() -> None:
        async with web_terminal(pair, "ws/en", source="127.0.0.6") as term:
            await term.wait_for("Guest")
            await term.send("carol", TAB, "carol-pw", TAB, TAB, ENTER)  # Register
            await term.wait_for("New table")

    asyncio.run(scenario())
    assert re.search(r"door_connection .*address=127\.0\.0\.6\b", pair.game.log_text())


def test_a_remote_door_restarts_its_launcher_and_serves_on(pair: Pair) -> None:
    """The door's launcher killed: a session it had started goes on, the door starts a
    new launcher, and a new session reaches the lobby."""

    async def scenario() -> None:
        conn, term = await open_terminal(pair, "before", source="127.0.0.4")
        async with conn:
            await term.wait_for("New table")
            (launcher,) = door_launchers(pair)
            os.kill(launcher, signal.SIGKILL)
            await until(lambda: door_launchers(pair) not in ([], [launcher]), 30)
            mark = len(term.raw)
            term.send(b"?")  # the session started before goes on: it takes keys
            await term.settle(mark)
        conn, term = await open_terminal(pair, "after", source="127.0.0.5")
        async with conn:
            await term.wait_for("New table", timeout=60)

    asyncio.run(scenario())


async def hello_with(port: int, door_pass: str) -> dict[str, object]:
    """The game's answer to a hello over TLS carrying ``door_pass``."""
    import ssl

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    stream = trio.SSLStream(await trio.open_tcp_stream("127.0.0.1", port), context)
    hello = {"type": "hello", "id": 1, "version": 1, "client": "x/1", "door": door_pass}
    await stream.send_all(encode_map(hello))
    decoder = FrameDecoder()
    with trio.fail_after(10):
        while (message := decoder.next_message()) is None:
            decoder.receive_data(await stream.receive_some())
    await trio.aclose_forcefully(stream)
    return message.to_wire()


def test_a_pass_the_game_did_not_share_the_secret_of_is_refused(tmp_path: Path) -> None:
    """A player's own pass (another secret, an address changed, an expired one) names
    nobody: refused with bad_token; the door's own pass is welcome."""
    running = start_pair(tmp_path, {"trusted": ["127.0.0.1"]})
    try:
        right = SignedPasses(running.secret)
        good = right.issue("203.0.113.5")
        expires, mac = good.split(".")[1], good.split(".")[-1]
        forged = [
            SignedPasses(secrets.token_urlsafe(32)).issue("203.0.113.5"),  # another secret
            f"gd1.{expires}.198.51.100.7.{mac}",  # the address changed
            right.issue("203.0.113.5", now=0.0),  # expired long ago
            "gd1.99999999999.203.0.113.5.AAAAAAAAAAAAAAAAAAAAAA",
        ]

        async def scenario() -> None:
            for door_pass in forged:
                reply = await hello_with(running.game_port, door_pass)
                assert reply["type"] == "error" and reply["code"] == "bad_token", door_pass
            assert (await hello_with(running.game_port, good))["type"] == "welcome"

        trio.run(scenario)
        assert running.game.log_text().count("door_pass_refused") == len(forged)
    finally:
        running.door.stop()
        running.game.stop()


def test_a_door_with_another_secret_says_so_and_stops(tmp_path: Path) -> None:
    """The door checks at its start that the game takes its passes."""
    with pytest.raises(AssertionError, match="refused the door"):
        start_pair(tmp_path, {}, door_secret=secrets.token_urlsafe(32))
