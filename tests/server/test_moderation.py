"""Moderation on the running server (docs/rules.md §2.11): the host's admin commands
reach connected players at once through the admin socket; a table's owner kicks and
mutes at the table; any player mutes another for themselves. Real TCP, a real file, the
real ``gbmj-server admin`` command."""

from __future__ import annotations

import contextlib
import io

import pytest
import trio

from gbmj_server import cli
from gbmj_server.admin_socket import serve_admin
from gbmj_server.moderation import Moderator
from gbmj_server.server import Server
from server.wireclient import WireClient

pytestmark = pytest.mark.trio


@pytest.fixture
async def admin(server: Server, nursery: trio.Nursery):
    """``await admin("ban", "alice")``: the admin command line against the running
    server; (exit status, what it printed)."""
    assert server.services is not None
    db = server.store.storage.path
    await nursery.start(serve_admin, db, Moderator(server.services))

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = cli.admin(["--db", str(db), *argv])
        return status, out.getvalue()

    async def command(*argv: str) -> tuple[int, str]:
        return await trio.to_thread.run_sync(run, *argv)

    return command


@pytest.mark.slow
async def test_a_ban_ends_the_live_session_and_its_tokens(connect, admin) -> None:
    alice = await connect()
    token = (await alice.register("alice", "alice-pw"))["token"]
    status, said = await admin("ban", "alice")
    assert status == 0 and "connection ended" in said
    assert (await alice.expect("notice"))["code"] == "banned"
    with pytest.raises(EOFError):
        await alice.expect("never")
    again = await connect()
    assert (await again.request("resume", token=token))["code"] == "bad_token"
    refused = await again.request("login", name="alice", password="alice-pw")
    assert refused["code"] == "bad_credentials" and "banned" in refused["message"]
    assert (await admin("unban", "alice"))[0] == 0
    assert (await again.ok("login", name="alice", password="alice-pw"))["type"] == "session"


@pytest.mark.slow
async def test_a_password_reset_signs_the_player_out_at_once(connect, admin, monkeypatch) -> None:
    bob = await connect()
    await bob.register("bob", "old-password")
    monkeypatch.setattr(cli, "_read_new_password", lambda: "new-password")
    assert (await admin("reset-password", "bob"))[0] == 0
    assert (await bob.expect("notice"))["code"] == "signed_out"
    again = await connect()
    assert (await again.request("login", name="bob", password="old-password"))["code"] == (
        "bad_credentials"
    )
    assert (await again.ok("login", name="bob", password="new-password"))["type"] == "session"


async def test_the_host_kicks_a_player_off_a_running_match(connect, admin) -> None:
    carol, greg = await connect(), await connect()
    await carol.register("carol")
    await greg.register("greg")  # another human: the match goes on after the kick
    table_id = await carol.create_table()
    await greg.ok("join_table", table_id=table_id)
    await carol.ok("sit", table_id=table_id, seat=0)
    await greg.ok("sit", table_id=table_id, seat=1)
    for seat in (2, 3):
        await carol.ok("add_bot", table_id=table_id, seat=seat, level="easy")
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    await carol.ok("ready", table_id=table_id, ready=True)
    await greg.ok("ready", table_id=table_id, ready=True)
    await carol.expect("snapshot", where=lambda m: "game" in m)
    status, said = await admin("kick", "carol")
    assert status == 0 and f"table {table_id}" in said
    assert (await carol.expect("table_left"))["reason"] == "kicked"
    # The seat went to a bot, as for an escape, and she may not sit there again.
    escape = await watcher.expect("event", where=lambda m: m["event"]["kind"] == "escape")
    assert escape["table_id"] == table_id
    await carol.ok("spectate", table_id=table_id)
    assert (await carol.request("sit", table_id=table_id, seat=0))["code"] == "kicked"
    assert (await admin("kick", "nobody-here"))[0] == 1


async def test_the_host_kicks_a_spectator_from_the_table_they_watch(connect, admin) -> None:
    """Seated nowhere, the spectator is found where the registry says they are."""
    owner, onlooker = await connect(), await connect()
    await owner.register("table-host")
    await onlooker.register("onlooker")
    table_id = await owner.create_table()
    await onlooker.ok("spectate", table_id=table_id)
    status, said = await admin("kick", "onlooker")
    assert status == 0 and f"table {table_id}" in said
    assert (await onlooker.expect("table_left"))["reason"] == "kicked"
    assert (await onlooker.ok("watch_lobby", on=True))["type"] == "table_list"  # in the lobby
    assert (await admin("kick", "onlooker"))[0] == 1  # at no table now


async def test_mutes_of_the_host_the_owner_and_a_player(connect, admin) -> None:
    owner, dave, erin = await connect(), await connect(), await connect()
    await owner.register("owner")
    await dave.register("dave")
    await erin.register("erin")
    table_id = await owner.create_table()
    for client in (dave, erin):
        await client.ok("join_table", table_id=table_id)

    async def said(client: WireClient, text: str) -> bool:
        """Whether ``client`` gets a table line ``text`` (a ping answered later means
        every line sent before it has arrived)."""
        await client.ok("ping")
        return any(m["type"] == "chat" and m["text"] == text for m in client.seen)

    # A player mutes another for themselves: erin no longer sees dave, the owner does.
    await erin.ok("mute", name="dave", on=True)
    await dave.ok("chat_send", channel="table", table_id=table_id, text="one")
    assert await said(owner, "one") and not await said(erin, "one")
    # The owner mutes dave at the table: nobody sees him.
    refused = await dave.request("mute", name="erin", on=True, table_id=table_id)
    assert refused["code"] == "not_owner"
    await owner.ok("mute", name="dave", on=True, table_id=table_id)
    refused = await dave.request("chat_send", channel="table", table_id=table_id, text="two")
    assert refused["code"] == "muted"  # told (a spectator here), not silently dropped
    assert not await said(owner, "two") and not await said(erin, "two")
    await owner.ok("mute", name="dave", on=False, table_id=table_id)
    # The host mutes dave everywhere: his lines are refused, and he is told why.
    assert (await admin("mute", "dave"))[0] == 0
    assert (await dave.expect("notice"))["code"] == "muted"
    refused = await dave.request("chat_send", channel="table", table_id=table_id, text="three")
    assert refused["code"] == "muted"
    assert (await admin("unmute", "dave"))[0] == 0
    await dave.ok("chat_send", channel="table", table_id=table_id, text="four")
    assert await said(owner, "four")


async def test_coins_and_announcements_reach_connected_players(connect, admin) -> None:
    frank = await connect()
    await frank.register("frank")
    status, said = await admin("grant", "frank", "500")
    assert status == 0 and "10500" in said
    assert (await frank.expect("profile"))["profile"]["coins"] == 10_500
    assert (await admin("take", "frank", "99999"))[0] == 1  # more than he has: refused
    assert (await admin("announce", "the server restarts at noon"))[0] == 0
    notice = await frank.expect("notice")
    assert notice["code"] == "announcement" and notice["message"] == "the server restarts at noon"
