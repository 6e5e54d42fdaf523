"""Accounts and the lobby over real TCP with a real SQLite file."""

from __future__ import annotations

import msgpack
import pytest
import trio

from gbmj_server.net.server import Server

pytestmark = pytest.mark.trio


async def test_handshake_then_register_login_resume_logout(connect, server: Server) -> None:
    alice = await connect()
    reply = await alice.register("alice", "pw-alice-1")
    assert reply["type"] == "session" and reply["name"] == "alice" and not reply["guest"]
    token = reply["token"]
    assert (await alice.ok("logout"))["type"] == "ok"
    assert (await alice.request("list_tables"))["code"] == "not_logged_in"

    again = await connect()
    assert (await again.request("resume", token=token))["code"] == "bad_token"  # logged out
    login = await again.ok("login", name="ALICE", password="pw-alice-1")
    other = await connect()
    resumed = await other.ok("resume", token=login["token"])
    assert resumed["name"] == "alice"
    # The first connection was replaced by the second sign-in of the same account.
    notice = await again.expect("notice")
    assert notice["code"] == "replaced"


async def test_unsupported_version_and_no_hello_are_refused(connect) -> None:
    client = await connect(hello=False)
    await client.send({"type": "hello", "version": 99, "client": "x"})
    assert (await client.expect("error"))["code"] == "unsupported_version"
    with pytest.raises(EOFError):
        await client.expect("never")
    client = await connect(hello=False)
    await client.send({"type": "login", "name": "a", "password": "b"})
    assert (await client.expect("error"))["code"] == "not_expected"


async def test_register_refuses_taken_names_and_bad_input(connect) -> None:
    a = await connect()
    await a.register("bob")
    b = await connect()
    assert (await b.request("register", name="BOB", password="another"))["code"] == "name_taken"
    assert (await b.request("register", name="x", password="longenough"))["code"] == (
        "out_of_range"
    )
    assert (await b.request("register", name="carol", password="123"))["code"] == "out_of_range"
    assert (await b.request("register", name="carol", password=5))["code"] == "wrong_type"
    assert (await b.request("register", name="guest-1", password="123456"))["code"] == (
        "out_of_range"
    )


async def test_wrong_passwords_are_rate_limited_per_name(connect, server: Server) -> None:
    a = await connect()
    await a.register("dave", "right-password")
    b = await connect()
    for _ in range(5):
        assert (await b.request("login", name="dave", password="wrong"))["code"] == (
            "bad_credentials"
        )
    # Now even the right password is refused for a while.
    assert (await b.request("login", name="dave", password="right-password"))["code"] == (
        "rate_limited"
    )
    # The per-name limit does not lock other names out.
    assert (await b.request("login", name="nobody", password="x"))["code"] == "bad_credentials"


async def test_wrong_passwords_are_rate_limited_per_address(connect, server: Server) -> None:
    c = await connect()
    for n in range(20):
        await c.request("login", name=f"name{n}", password="wrong")
    assert (await c.request("login", name="fresh", password="x"))["code"] == "rate_limited"


async def test_guest_gets_a_session(connect) -> None:
    g = await connect()
    reply = await g.ok("guest")
    assert reply["guest"] and reply["name"].startswith("guest-")
    h = await connect()
    assert (await h.ok("resume", token=reply["token"]))["name"] == reply["name"]


async def test_bad_frames_get_errors_and_the_connection_goes_on(connect) -> None:
    c = await connect()
    await c.register("eve")
    await c.send_raw(b"\x00\x00\x00\x01\xc1")  # the reserved byte
    assert (await c.expect("error"))["code"] == "bad_frame"
    await c.send_raw(b"\x00\x00\x00\x03" + msgpack.packb([1, 2]))  # not a map
    assert (await c.expect("error"))["code"] == "bad_message"
    body = msgpack.packb({"type": "chat", "text": msgpack.ExtType(5, b"x")})
    await c.send_raw(len(body).to_bytes(4, "big") + body)
    assert (await c.expect("error"))["code"] == "bad_frame"
    assert (await c.request("fly_to_moon"))["code"] == "unknown_type"
    assert (await c.request("join_table", table_id="x"))["code"] == "no_such_table"
    # Split into one-byte pieces: still one request.
    frame = len(b := msgpack.packb({"type": "list_tables", "id": 77})).to_bytes(4, "big") + b
    for i in range(len(frame)):
        await c.send_raw(frame[i : i + 1])
    assert (await c.expect("table_list", id=77))["tables"] == []


async def test_an_oversized_length_closes_the_connection(connect) -> None:
    c = await connect()
    await c.send_raw((1 << 30).to_bytes(4, "big"))
    assert (await c.expect("error"))["code"] == "frame_too_large"
    with pytest.raises(EOFError):
        await c.expect("never")
    d = await connect()  # the server is fine
    await d.register("frank")


async def test_tables_live_updates_owner_powers_and_chat(connect, server: Server) -> None:
    owner, guest, watcher = await connect(), await connect(), await connect()
    await owner.register("owner")
    await guest.register("gina")
    await watcher.register("watcher")
    created = await owner.ok(
        "create_table", settings={"name": "t1", "rounds": 1, "password": "pw", "turn_s": 10}
    )
    table_id = created["table_id"]
    update = await guest.expect("table_update")
    assert update["table"]["name"] == "t1" and update["table"]["has_password"]
    listing = await guest.ok("list_tables")
    assert [t["table_id"] for t in listing["tables"]] == [table_id]

    assert (await guest.request("join_table", table_id=table_id))["code"] == "wrong_password"
    joined = await guest.ok("join_table", table_id=table_id, password="pw")
    assert joined["seat"] == 1
    assert (await watcher.ok("spectate", table_id=table_id))["table_id"] == table_id
    state = await watcher.expect("table_state")
    assert state["owner"] == "owner" and "password" not in state["settings"]

    assert (await guest.request("kick", seat=0))["code"] == "not_owner"
    assert (await guest.request("add_bot", seat=2))["code"] == "not_owner"
    assert (await owner.request("add_bot", seat=1))["code"] == "seat_taken"
    await owner.ok("add_bot", seat=2)
    await owner.ok("configure_table", settings={"rounds": 2})
    assert (await owner.request("configure_table", settings={"rounds": 9}))["code"] == (
        "out_of_range"
    )
    assert (await owner.request("configure_table", settings={"colour": 1}))["code"] == (
        "extra_field"
    )
    await watcher.expect("table_state", where=lambda m: m["settings"]["rounds"] == 2)
    assert (await owner.request("configure_table", settings={"bots": False}))["code"] == (
        "bots_not_allowed"
    )
    await owner.ok("remove_bot", seat=2)
    await owner.ok("kick", seat=1)
    assert (await guest.expect("kicked"))["table_id"] == table_id

    await guest.ok("chat", channel="lobby", text="hello all")
    line = await watcher.expect("chat", channel="lobby")
    assert line["from"] == "gina" and line["text"] == "hello all"
    await owner.ok("chat", channel="table", text="table talk")
    assert (await watcher.expect("chat", channel="table"))["text"] == "table talk"
    assert (await owner.request("chat", channel="lobby", text="x" * 201))["code"] == "out_of_range"
    for _ in range(4):  # five lines in ten seconds, counting the table line
        await owner.ok("chat", channel="lobby", text="spam")
    assert (await owner.request("chat", channel="lobby", text="spam"))["code"] == "rate_limited"

    await owner.ok("leave")
    await watcher.ok("leave")
    removed = await guest.expect("table_removed")
    assert removed["table_id"] == table_id


async def test_a_client_that_does_not_read_is_disconnected(tmp_path) -> None:
    from gbmj_server.net.limits import SlidingWindow
    from gbmj_server.storage import Storage
    from server.wireclient import WireClient

    srv = Server(Storage(tmp_path / "db.sqlite3"), outbox_size=8)
    srv.chat_rate = SlidingWindow(limit=10**9, window=1.0)  # flood freely
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        await nursery.start(srv.serve, listeners)
        talker = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
        await talker.hello()
        await talker.register("talker")
        sleeper = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
        await sleeper.hello()
        await sleeper.register("sleeper")

        def sleeper_connected() -> bool:
            return any(c.account and c.account.name == "sleeper" for c in srv.clients)

        # The sleeper never reads again: lobby chat fills its socket buffers, then its
        # outbox, and the server drops it; the talker is answered all along.
        sent = 0
        with trio.fail_after(30):
            while sleeper_connected():
                await talker.ok("chat", channel="lobby", text="x" * 200)
                sent += 1
        assert sent > 8
        await talker.ok("chat", channel="lobby", text="still here")
        nursery.cancel_scope.cancel()
