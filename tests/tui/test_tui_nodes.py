"""The real client against two nodes of one server on one PostgreSQL (each
``gbmj-server`` in a subprocess): a table made on node a shows in the lobby of a client
of node b, and watching it follows the redirect by itself, to node a, with no second
sign-in; a player seated on node a when it is killed comes back, through node b (the
address the player gave), to the match node b took over."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_harness import until
from server.node_procs import LEASE, start_node_process, stop
from storage.pg import pg_server, pg_url  # noqa: F401 (fixtures)

from gbmj_tui.app import GbmjApp
from gbmj_tui.config import Address
from gbmj_tui.messages import Requested
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.table import TableScreen
from protocol import messages as m
from protocol.vocabulary import BotLevel

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


Node = tuple["subprocess.Popen[str]", int]


@pytest.fixture
def nodes(pg_url: str, tmp_path: Path) -> Iterator[tuple[Node, Node]]:  # noqa: F811
    a = start_node_process(pg_url, "a", tmp_path)
    try:
        b = start_node_process(pg_url, "b", tmp_path)
        try:
            yield a, b
        finally:
            stop(b[0])
    finally:
        stop(a[0])


async def _table_on(owner: GbmjApp, pilot: Any, port: int) -> int:
    """A guest signed in on the node at ``port`` makes an untimed table there: its id."""
    assert await owner.sign_in("guest", f"127.0.0.1:{port}", "", "") is None
    await until(pilot, lambda: isinstance(owner.screen, LobbyScreen))
    settings = m.TableSettings(
        name="on node a",
        stake=0,
        timers=m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5),
        rounds=1,
        bots_allowed=True,
    )
    owner.post_message(Requested(m.CreateTable(settings=settings)))
    await until(pilot, lambda: isinstance(owner.screen, TableScreen))
    assert owner.session.view is not None
    return owner.session.view.table_id


def test_watching_a_table_of_another_node_follows_the_redirect(
    nodes: tuple[Node, Node], tmp_path: Path
) -> None:
    (_, port_a), (_, port_b) = nodes

    async def go() -> None:
        owner = GbmjApp(config_path=tmp_path / "o.json", lang="en", insecure=True)
        watcher = GbmjApp(config_path=tmp_path / "w.json", lang="en", insecure=True)
        async with owner.run_test(size=(100, 32)) as opilot:
            table_id = await _table_on(owner, opilot, port_a)
            async with watcher.run_test(size=(100, 32)) as wpilot:
                assert await watcher.sign_in("guest", f"127.0.0.1:{port_b}", "", "") is None
                await until(wpilot, lambda: isinstance(watcher.screen, LobbyScreen))
                await until(wpilot, lambda: table_id in watcher.lobby.tables)
                watcher.post_message(Requested(m.Spectate(table_id=table_id)))
                await until(wpilot, lambda: isinstance(watcher.screen, TableScreen))
                session = watcher.session
                assert session.view is not None and session.view.table_id == table_id
                assert session.address == Address("127.0.0.1", port_a)  # it moved there
                assert session.home == Address("127.0.0.1", port_b)  # what the player gave
                assert session.token is not None

    asyncio.run(go())


def test_a_player_of_a_killed_node_comes_back_to_the_match_on_another_node(
    nodes: tuple[Node, Node], tmp_path: Path
) -> None:
    (proc_a, port_a), (_, port_b) = nodes

    async def go() -> None:
        owner = GbmjApp(config_path=tmp_path / "o.json", lang="en", insecure=True)
        player = GbmjApp(config_path=tmp_path / "p.json", lang="en", insecure=True)
        async with owner.run_test(size=(100, 32)) as opilot:
            table_id = await _table_on(owner, opilot, port_a)
            await owner.session.request(m.Stand(table_id=table_id))
            async with player.run_test(size=(100, 32)) as pilot:
                # The player gives node b; the table is on node a: a redirect, followed.
                assert (
                    await player.sign_in("register", f"127.0.0.1:{port_b}", "kim", "pw-of-kim")
                    is None
                )
                await until(pilot, lambda: isinstance(player.screen, LobbyScreen))
                session = player.session
                await session.request(m.JoinTable(table_id=table_id))
                assert session.address == Address("127.0.0.1", port_a)
                await session.request(m.Sit(table_id=table_id, seat=0))
                for seat in (1, 2, 3):  # (the owner's to add)
                    await owner.session.request(
                        m.AddBot(table_id=table_id, seat=seat, level=BotLevel.NORMAL)
                    )
                await session.request(m.Ready(table_id=table_id, ready=True))
                await until(pilot, lambda: session.view is not None and session.view.playing)
                # Node a dies. The client finds it gone, comes back through node b, and
                # is at its seat again once node b took the match over.
                proc_a.send_signal(signal.SIGKILL)
                proc_a.wait()
                await until(
                    pilot,
                    lambda: (
                        session.address == Address("127.0.0.1", port_b)
                        and session.view is not None
                        and session.view.table_id == table_id
                        and session.view.me is not None
                        and session.view.playing
                    ),
                    seconds=LEASE + 20,
                )
                assert isinstance(player.screen, TableScreen)

    asyncio.run(go())
