"""A hosted player on several nodes: two nodes of one server on one PostgreSQL, over TLS,
sharing a door secret, and SSH on node b only: a door process against it (``gbmj-server
door``), or node b's own door. An SSH player of that door joins a table node a runs:
their client, which pins nothing and knows node b alone, follows the redirect by
itself, checks node a's certificate (named in the redirect) and is named on node a by
the pass the redirect carries, under the player's own address, not the door's.

Real processes on loopback: the nodes, the door and its clients; the table's owner a
client of node a over TLS; an asyncssh terminal for the player."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from processes import start_logged
from server.node_procs import start_tls_node, stop
from storage.pg import pg_server, pg_url  # noqa: F401 (fixtures)

from gbmj_tui.connection import Connection, TlsPolicy
from protocol import messages as m
from ssh.conftest import DOOR, START_TIMEOUT, open_terminal, until

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

WEB = re.compile(r"web: listening on http://\S+:(\d+)/")
PLAYER = "127.0.0.7"  # the SSH player's address (any 127.x.y.z is this machine)


@dataclass
class Nodes:
    a_port: int
    a_fingerprint: str
    b_port: int
    ssh_port: int  # the door's, against node b
    folder: Path

    def log_of(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text("utf-8", errors="replace")


@pytest.fixture(params=["door process", "node b's own door"])
def nodes(request: pytest.FixtureRequest, pg_url: str, tmp_path: Path) -> Iterator[Nodes]:  # noqa: F811
    """Nodes a and b, and SSH (guests) against node b: a door process, or node b's own."""
    secret = secrets.token_urlsafe(32)
    settings = f"door_secret = {secret!r}\n".replace("'", '"')
    own = request.param == "node b's own door"
    procs: list[subprocess.Popen[str]] = []
    try:
        a, a_port, a_fingerprint, _ = start_tls_node(pg_url, "a", tmp_path, settings)
        procs.append(a)
        if own:
            settings += 'ssh_port = 0\nssh_unknown_users = "guest"\n'
            b, b_port, _, said = start_tls_node(pg_url, "b", tmp_path, settings, DOOR.pattern)
            procs.append(b)
        else:
            b, b_port, b_fingerprint, _ = start_tls_node(pg_url, "b", tmp_path, settings)
            procs.append(b)
            said = start_door(tmp_path, pg_url, secret, b_port, b_fingerprint, procs)
        found = DOOR.match(said[-1])
        assert found is not None
        yield Nodes(a_port, a_fingerprint, b_port, int(found[1]), tmp_path)
    finally:
        for proc in reversed(procs):
            stop(proc)


def start_door(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    secret: str,
    port: int,
    fingerprint: str,
    procs: list[subprocess.Popen[str]],
) -> list[str]:
    """``gbmj-server door`` against the node at ``port``: what it printed."""
    door_config = tmp_path / "door.toml"
    door_config.write_text('ssh_unknown_users = "guest"\n', "utf-8")
    data = tmp_path / "door-data"  # its SSH host key
    data.mkdir()
    env = {**os.environ, "GBMJ_DOOR_SECRET": secret, "XDG_DATA_HOME": str(data)}
    command = [sys.executable, "-m", "gbmj_server", "door", "--server", f"127.0.0.1:{port}"]
    command += ["--fingerprint", fingerprint, "--ssh-port", "0", "--db", pg_url]
    command += ["--config", str(door_config)]
    door, said = start_logged(command, tmp_path / "door.log", DOOR.pattern, START_TIMEOUT, env)
    procs.append(door)
    return said


def table_settings() -> m.TableSettings:
    return m.TableSettings(
        name="on node a",
        stake=0,
        timers=m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5),
        rounds=1,
        bots_allowed=True,
    )


def test_a_player_of_a_door_on_node_b_joins_a_table_of_node_a(nodes: Nodes) -> None:
    async def scenario() -> None:
        # The table's owner: a client of node a over TLS (its certificate checked).
        owner = await Connection.open(
            "127.0.0.1", nodes.a_port, tls=TlsPolicy(expect=nodes.a_fingerprint)
        )
        seen: list[m.Message] = []
        reading = asyncio.ensure_future(owner.run(seen.append))
        try:
            await owner.request(m.Register(name="olive", password="olive-secret-pw"))
            snapshot = await owner.request(m.CreateTable(settings=table_settings()))
            assert isinstance(snapshot, m.Snapshot)
            table_id = snapshot.table.table_id
            await owner.request(m.Sit(table_id=table_id, seat=0))

            def joined() -> bool:
                return any(
                    isinstance(x, m.TableUpdate)
                    and x.table.table_id == table_id
                    and any(s.name and s.name != "olive" for s in x.table.seats)
                    for x in seen
                )

            conn, term = await open_terminal(nodes, "dora", source=PLAYER)  # type: ignore[arg-type]
            async with conn:
                await term.wait_for("on node a", timeout=20)  # node a's table, in b's lobby
                assert not joined()
                term.send(b"j")  # the first table: join it
                await until(joined, 20)  # the player sat at node a's table
        finally:
            reading.cancel()
            await owner.close()

    asyncio.run(scenario())
    a_log = nodes.log_of("a")
    # Named on node a by the pass node b's redirect carried: the player's address.
    assert re.search(rf"door_connection .*address={re.escape(PLAYER)}\b", a_log), a_log
    assert "door_pass_refused" not in a_log
    assert re.search(rf"door_connection .*address={re.escape(PLAYER)}\b", nodes.log_of("b"))
