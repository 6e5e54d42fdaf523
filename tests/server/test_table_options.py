"""The house's and the owner's table options over real TCP with a real SQLite file
(docs/rules.md §1.5, §2.5): the table fee (茶水费) shown before anyone sits, paid every
hand to the house and booked under its own memo, the ledger balanced; the seat-change
scheme reaching the match."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj_server.config import ConfigError, load_config_file
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import TEST_CONFIG, Probe, start
from server.test_coins import balance, ledger_ok, play_match
from server.wireclient import WireClient

pytestmark = pytest.mark.trio

STAKE = 10
FEE_PER_STAKE = 2  # the host's table_fee: 20 coins a hand at a stake-10 table


@pytest.fixture
async def fee_server(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[Server]:
    storage = Storage(tmp_path / "gbmj.sqlite3")
    srv = Server(storage, replace(TEST_CONFIG, table_fee=FEE_PER_STAKE))
    running = await start(nursery, srv)
    yield srv
    await running.stop()
    storage.close()


async def client_of(server: Server, name: str) -> WireClient:
    assert server.port is not None
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", server.port))
    await client.hello()
    await client.register(name)
    return client


async def test_the_table_fee_is_shown_before_anyone_sits(fee_server: Server) -> None:
    """A stake table's settings carry the house's fee in coins (stake × the host's
    setting) for everyone in the lobby; a free table has none; a client cannot set it."""
    alice, bob = await client_of(fee_server, "alice"), await client_of(fee_server, "bob")
    paid = await alice.create_table(stake=STAKE, table_fee=1)  # ignored: the house sets it
    free = await bob.create_table(stake=0)
    listed = {t["table_id"]: t for t in (await bob.ok("list_tables"))["tables"]}
    assert listed[paid]["settings"]["table_fee"] == FEE_PER_STAKE * STAKE
    assert "table_fee" not in listed[free]["settings"]
    # The owner's new stake brings its own fee.
    settings = {**listed[paid]["settings"], "stake": 5 * STAKE}
    await alice.ok("configure_table", table_id=paid, settings=settings)
    listed = {t["table_id"]: t for t in (await bob.ok("list_tables"))["tables"]}
    assert listed[paid]["settings"]["table_fee"] == FEE_PER_STAKE * 5 * STAKE


async def test_every_hand_pays_the_table_fee_to_the_house(fee_server: Server) -> None:
    """A whole match at a stake table: each hand the human pays the fee to the house
    (the bots play for the house and pay none), shown in the hand's result and inside
    its coins, booked as ``table_fee`` in the ledger; the coins add up exactly."""
    fee = FEE_PER_STAKE * STAKE
    alice = await client_of(fee_server, "alice")
    table_id = await alice.create_table(stake=STAKE)
    await alice.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    house = await balance(fee_server, None)
    await alice.ok("ready", table_id=table_id, ready=True)
    results: list[dict[str, Any]] = []
    await play_match(alice, table_id, results)
    assert len(results) == 4
    account = await fee_server.store.call(fee_server.store.storage.account_by_name, "alice")
    ledger = await fee_server.store.call(fee_server.store.storage.ledger, account.id, 1000)
    fees = [t for t in ledger if t.reason == "table_fee"]
    assert len(fees) == len(results)
    assert all(t.amount == fee and t.to_account is None and t.hand_id for t in fees)
    mine: list[int] = []
    for r in results:
        (seat,) = [s for s in range(4) if r["fees"][s]]  # the only human: the only payer
        assert r["fees"] == [fee if s == seat else 0 for s in range(4)]
        mine.append(r["coins"][seat])
    after = await balance(fee_server, "alice")
    assert after == 10_000 + sum(mine)
    assert await balance(fee_server, None) == house - sum(mine)
    assert await ledger_ok(fee_server)


async def test_no_fee_without_the_host_setting(connect) -> None:
    """The default: no fee, and no ``fees`` in a stake table's results."""
    alice = await connect()
    await alice.register("alice")
    table_id = await alice.create_table(stake=STAKE)
    snapshot = await alice.ok("join_table", table_id=table_id)
    assert "table_fee" not in snapshot["table"]["settings"]


async def test_the_table_fee_in_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "gbmj.toml"
    path.write_text("table_fee = 3\n")
    assert load_config_file(path).table_fee == 3
    for bad in ("-1", "2.5", "true", "1001"):
        path.write_text(f"table_fee = {bad}\n")
        with pytest.raises(ConfigError, match="table_fee"):
            load_config_file(path)


async def test_a_table_that_changes_seats_before_the_third_round_only(connect, server) -> None:
    """The owner's seat-change setting reaches the match (docs/rules.md §1.5): with
    ``third_round`` the places of rounds 1 and 2 are the same, then East <-> South and
    West <-> North; the default changes them every round."""
    alice = await connect()
    await alice.register("alice")
    table_id = await alice.create_table(rounds=4, seat_changes="third_round")
    await alice.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await alice.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await alice.ok("ready", table_id=table_id, ready=True)
    probe = Probe(server, table_id)
    with trio.fail_after(10):
        while probe.table.play is None:
            await trio.sleep(0.01)
    match = probe.play.st.match
    assert match.seat_changes == "third_round"
    info = await alice.ok("list_tables")
    (listed,) = [t for t in info["tables"] if t["table_id"] == table_id]
    assert listed["settings"]["seat_changes"] == "third_round"
