"""Accounts and the lobby over real TCP with a real SQLite file."""

from __future__ import annotations

import msgpack
import pytest
import trio

from gbmj_server import metrics
from gbmj_server.config import Limits, ServerConfig
from gbmj_server.server import Server
from gbmj_server.storage import Storage
from server.conftest import start
from server.wireclient import WireClient, connect_from

pytestmark = pytest.mark.trio


def frame(obj: object) -> bytes:
    body = msgpack.packb(obj)
    return len(body).to_bytes(4, "big") + body


async def test_handshake_then_register_login_resume_logout(connect) -> None:
    alice = await connect()
    reply = await alice.register("alice", "pw-alice-1")
    assert reply["type"] == "session" and reply["profile"]["name"] == "alice"
    assert not reply["profile"]["guest"]
    token = reply["token"]
    assert (await alice.ok("logout"))["type"] == "ok"
    assert (await alice.request("list_tables"))["code"] == "not_logged_in"

    again = await connect()
    assert (await again.request("resume", token=token))["code"] == "bad_token"  # logged out
    login = await again.ok("login", name="ALICE", password="pw-alice-1")
    other = await connect()
    resumed = await other.ok("resume", token=login["token"])
    assert resumed["profile"]["name"] == "alice"
    # The earlier connection of the same account is told and closed.
    assert (await again.expect("notice"))["code"] == "replaced"
    with pytest.raises(EOFError):
        await again.expect("never")


async def test_unsupported_version_and_no_hello_are_refused(connect) -> None:
    client = await connect(hello=False)
    await client.send({"type": "hello", "version": 99, "client": "x/1"})
    assert (await client.expect("error"))["code"] == "unsupported_version"
    with pytest.raises(EOFError):
        await client.expect("never")
    client = await connect(hello=False)
    await client.send({"type": "login", "name": "ab", "password": "b"})
    assert (await client.expect("error"))["code"] == "not_expected"


async def test_register_refuses_taken_names_and_bad_input(connect) -> None:
    a = await connect()
    await a.register("bob")
    b = await connect()
    assert (await b.request("register", name="BOB", password="another"))["code"] == "name_taken"
    assert (await b.request("register", name="x", password="longenough"))["code"] == "bad_name"
    assert (await b.request("register", name="carol", password="123"))["code"] == "out_of_range"
    assert (await b.request("register", name="guest-1", password="123456"))["code"] == "bad_name"
    await b.send_raw(frame({"type": "register", "id": 9, "name": "carol", "password": 5}))
    assert (await b.expect("error"))["code"] == "wrong_type"


@pytest.mark.slow
async def test_wrong_passwords_slow_their_name_and_address_not_the_owner(server, connect) -> None:
    a = await connect()
    await a.register("dave", "right-password")
    await a.ok("logout")
    guesser = await connect_from(server, "127.0.0.9")
    for _ in range(6):  # five are free, the sixth starts a wait
        reply = await guesser.request("login", name="dave", password="wrong")
        assert reply["code"] == "bad_credentials"
    # From the guesser's address even the right password now waits...
    reply = await guesser.request("login", name="dave", password="right-password")
    assert reply["code"] == "rate_limited" and "try again in" in reply["message"]
    # ...and other names from there are not held up by dave's wait,
    assert (await guesser.request("login", name="nobody", password="x"))["code"] == (
        "bad_credentials"
    )
    # while the owner, elsewhere, signs in at once.
    owner = await connect_from(server, "127.0.0.10")
    assert (await owner.ok("login", name="dave", password="right-password"))["type"] == "session"


@pytest.mark.slow
async def test_wrong_passwords_from_one_address_slow_that_address(server) -> None:
    c = await connect_from(server, "127.0.0.11")
    for n in range(31):
        assert (await c.request("login", name=f"name{n}", password="wrong"))["code"] == (
            "bad_credentials"
        )
    assert (await c.request("login", name="fresh", password="x"))["code"] == "rate_limited"


async def test_guest_gets_a_session(connect) -> None:
    g = await connect()
    reply = await g.ok("guest")
    assert reply["profile"]["guest"] and reply["profile"]["name"].startswith("guest-")
    h = await connect()
    assert (await h.ok("resume", token=reply["token"]))["profile"]["name"] == (
        reply["profile"]["name"]
    )


async def test_bad_frames_get_errors_and_the_connection_goes_on(connect) -> None:
    c = await connect()
    await c.register("eve")
    await c.send_raw(b"\x00\x00\x00\x01\xc1")  # the reserved byte
    assert (await c.expect("error"))["code"] == "bad_msgpack"
    await c.send_raw(frame([1, 2]))  # not a map
    assert (await c.expect("error"))["code"] == "not_a_message"
    await c.send_raw(
        frame({"type": "chat_send", "channel": "lobby", "text": msgpack.ExtType(5, b"x")})
    )
    assert (await c.expect("error"))["code"] in ("bad_msgpack", "limit_exceeded")
    await c.send_raw(frame({"type": "fly_to_moon", "id": 3}))
    assert (await c.expect("error"))["code"] == "unknown_type"
    await c.send_raw(frame({"type": "join_table", "id": 4, "table_id": "x"}))
    assert (await c.expect("error"))["code"] == "wrong_type"
    await c.send_raw(frame({"type": "welcome", "id": 5, "version": 1, "server": "me/1"}))
    assert (await c.expect("error", id=5))["code"] == "not_expected"
    assert (await c.request("join_table", table_id=99))["code"] == "no_such_table"
    # One request split into one-byte pieces is still one request.
    whole = frame({"type": "list_tables", "id": 77})
    for i in range(len(whole)):
        await c.send_raw(whole[i : i + 1])
    assert (await c.expect("table_list", id=77))["tables"] == []


async def test_an_oversized_frame_is_refused_and_the_server_goes_on(connect) -> None:
    c = await connect()
    await c.send_raw((1 << 20).to_bytes(4, "big") + b"x" * 100)
    assert (await c.expect("error"))["code"] == "frame_too_large"
    d = await connect()  # the server is fine
    await d.register("frank")


async def test_repeated_abuse_closes_the_connection(connect) -> None:
    c = await connect()
    await c.send_raw(b"\x00\x00\x00\x01\xc1" * 60)
    with pytest.raises(EOFError):
        await c.expect("never")


@pytest.mark.slow
async def test_tables_live_updates_owner_powers_and_chat(connect) -> None:
    owner, gina, watcher = await connect(), await connect(), await connect()
    await owner.register("owner")
    await gina.register("gina")
    await watcher.register("watcher")
    assert (await gina.ok("watch_lobby", on=True))["tables"] == []
    table_id = await owner.create_table(password="pw", name="t1", timers={"turn": 10})
    update = await gina.expect("lobby_update", where=lambda u: u["tables"])
    assert update["tables"][0]["settings"]["name"] == "t1" and update["tables"][0]["has_password"]
    listing = await gina.ok("list_tables")
    assert [t["table_id"] for t in listing["tables"]] == [table_id]
    assert "pw" not in repr(listing)

    assert (await gina.request("join_table", table_id=table_id))["code"] == "wrong_password"
    snap = await gina.ok("join_table", table_id=table_id, password="pw")
    assert snap["type"] == "snapshot" and "seat" not in snap and snap["seq"] == 0
    await owner.ok("sit", table_id=table_id, seat=0)
    assert (await gina.request("sit", table_id=table_id, seat=0))["code"] == "seat_taken"
    await gina.ok("sit", table_id=table_id, seat=1)
    assert (await watcher.ok("spectate", table_id=table_id, password="pw"))["type"] == "snapshot"
    await watcher.expect("table_update", where=lambda m: m["table"]["spectators"] == 1)

    assert (await gina.request("kick", table_id=table_id, seat=0))["code"] == "not_owner"
    assert (await gina.request("add_bot", table_id=table_id, seat=2, level="easy"))["code"] == (
        "not_owner"
    )
    assert (await owner.request("add_bot", table_id=table_id, seat=1, level="easy"))["code"] == (
        "seat_taken"
    )
    await owner.ok("add_bot", table_id=table_id, seat=2, level="easy")
    settings = dict(update["tables"][0]["settings"], rounds=2, bots_allowed=False)
    reply = await owner.request("configure_table", table_id=table_id, settings=settings)
    assert reply["code"] == "bots_not_allowed"
    await owner.ok("remove_bot", table_id=table_id, seat=2)
    await owner.ok("configure_table", table_id=table_id, settings=settings)
    await watcher.expect("table_update", where=lambda m: m["table"]["settings"]["rounds"] == 2)
    await owner.ok("kick", table_id=table_id, seat=1)
    assert (await gina.expect("table_left"))["reason"] == "kicked"

    # Lobby chat reaches those who follow the lobby, not those at a table.
    await gina.ok("watch_lobby", on=True)
    await gina.ok("chat_send", channel="lobby", text="hello all")
    line = await gina.expect("chat", channel="lobby")
    assert line["sender"] == "gina" and line["text"] == "hello all"
    await owner.ok("chat_send", channel="table", table_id=table_id, text="table talk")
    assert (await watcher.expect("chat"))["text"] == "table talk"
    reply = await gina.request("chat_send", channel="table", table_id=table_id, text="hi")
    assert reply["code"] == "not_seated"  # gina was kicked: not at the table
    await owner.send_raw(
        frame({"type": "chat_send", "id": 41, "channel": "lobby", "text": "x" * 201})
    )
    reply = await owner.expect("error", id=41)  # the id of the refused request is echoed
    assert reply["code"] == "out_of_range"
    reply = await owner.request("chat_send", channel="lobby", text="   ")
    assert reply["code"] == "out_of_range"

    await owner.ok("leave_table", table_id=table_id)
    await watcher.ok("leave_table", table_id=table_id)
    removed = await gina.expect("lobby_update", where=lambda u: u["removed"])
    assert removed["removed"] == [table_id] and removed["total"] == 0


async def test_a_client_that_does_not_read_is_disconnected(nursery, tmp_path) -> None:
    limits = Limits(outbox_frames=8, chat_lines=10**6, request_rate=10**6, request_burst=10**6)
    storage = Storage(tmp_path / "db.sqlite3")
    srv = Server(storage, ServerConfig(limits=limits))
    running = await start(nursery, srv)
    assert srv.port is not None
    talker = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await talker.hello()
    await talker.register("talker")
    sleeper = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await sleeper.hello()
    await sleeper.register("sleeper")
    await sleeper.ok("watch_lobby", on=True)

    def sleeper_connected() -> bool:
        return srv.sessions.signed_in == 2

    # The sleeper never reads again: lobby chat fills its socket buffers, then its
    # outbox, and the server drops it (the host's metrics count it); the talker is
    # answered all along.
    drops = metrics.REGISTRY.get_sample_value("gbmj_outbox_drops_total")
    sent = 0
    with trio.fail_after(30):
        while sleeper_connected():
            await talker.ok("chat_send", channel="lobby", text="x" * 200)
            sent += 1
    assert sent > 8
    assert metrics.REGISTRY.get_sample_value("gbmj_outbox_drops_total") == drops + 1
    await talker.ok("chat_send", channel="lobby", text="still here")
    await running.stop()
    storage.close()
