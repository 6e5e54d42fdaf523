"""The real client against two nodes of one server on one PostgreSQL (each
``gbmj-server`` in a subprocess): a table made on node a shows in the lobby of a client
of node b, and watching it follows the redirect by itself, to node a, with no second
sign-in."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_harness import until
from server.node_procs import start_node_process, stop
from storage.pg import pg_server, pg_url  # noqa: F401 (fixtures)

from gbmj_tui.app import GbmjApp
from gbmj_tui.config import Address
from gbmj_tui.messages import Requested
from gbmj_tui.screens.lobby import LobbyScreen
from gbmj_tui.screens.table import TableScreen
from protocol import messages as m

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def nodes(pg_url: str, tmp_path: Path) -> Iterator[tuple[int, int]]:  # noqa: F811
    a, port_a = start_node_process(pg_url, "a", tmp_path)
    try:
        b, port_b = start_node_process(pg_url, "b", tmp_path)
        try:
            yield port_a, port_b
        finally:
            stop(b)
    finally:
        stop(a)


def test_watching_a_table_of_another_node_follows_the_redirect(
    nodes: tuple[int, int], tmp_path: Path
) -> None:
    port_a, port_b = nodes

    async def go() -> None:
        owner = GbmjApp(config_path=tmp_path / "o.json", lang="en", insecure=True)
        watcher = GbmjApp(config_path=tmp_path / "w.json", lang="en", insecure=True)
        async with owner.run_test(size=(100, 32)) as opilot:
            assert await owner.sign_in("guest", f"127.0.0.1:{port_a}", "", "") is None
            await until(opilot, lambda: isinstance(owner.screen, LobbyScreen))
            settings = m.TableSettings(
                name="on node a",
                stake=0,
                timers=m.TimerSettings(on=False, first_discard=30, turn=15, claim_window=5),
                rounds=1,
                bots_allowed=True,
            )
            owner.post_message(Requested(m.CreateTable(settings=settings)))
            await until(opilot, lambda: isinstance(owner.screen, TableScreen))
            assert owner.session.view is not None
            table_id = owner.session.view.table_id
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
