"""Whose address a connection counts under (gbmj_server.net.peers), over real TCP: a
loopback client is an ordinary address; a client of the server's own front doors is
its player's, named by its session's pass on the doors' own listener; a connection
from a proxy the host names is the address of the PROXY header the proxy sends first,
and a header from anyone else is refused."""

from __future__ import annotations

import ipaddress
import struct

import pytest
import trio

from gbmj_server.hosted import SignedPasses
from gbmj_server.net.peers import V2_SIGNATURE, ProxyHeaderError, parse_proxy_header
from gbmj_server.server import Server
from protocol.framing import encode_map
from server.conftest import Make
from server.wireclient import WireClient, connect_from

PROXY = "127.0.21.1"  # the host's proxy, as the tests name it in ``proxies``


async def refused(client: WireClient) -> dict[str, object]:
    """The error the server sends before it closes ``client``."""
    error = await client.expect("error")
    with pytest.raises((EOFError, trio.BrokenResourceError)):
        await client.expect("never")
    return error


async def door_listener(srv: Server, nursery: trio.Nursery) -> int:
    """The doors' own listener, as ``gbmj-server`` opens it beside a front door."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    await nursery.start(trio.serve_listeners, srv.handle_door_stream, listeners)
    return int(listeners[0].socket.getsockname()[1])


async def door_client(port: int, door_pass: str | None) -> WireClient:
    client = WireClient(await trio.open_tcp_stream("127.0.0.1", port))
    hello = {"type": "hello", "id": 1, "version": 1, "client": "gbmj/test"}
    await client.send(hello if door_pass is None else {**hello, "door": door_pass})
    return client


@pytest.mark.trio
async def test_a_loopback_client_is_an_ordinary_address(limited: Make) -> None:
    srv = await limited(trusted=(), registrations_per_hour=1, guests_per_hour=1)
    first = await connect_from(srv, "127.0.0.1")
    await first.register("loopy")
    second = await connect_from(srv, "127.0.0.1")
    reply = await second.request("register", name="loopy2", password="secret-pw")
    assert reply["code"] == "rate_limited"
    await second.ok("guest")
    reply = await (await connect_from(srv, "127.0.0.1")).request("guest")
    assert reply["code"] == "rate_limited"


@pytest.mark.trio
async def test_a_door_pass_names_nobody_on_the_game_port(limited: Make) -> None:
    srv = await limited(trusted=())
    door_pass = srv.guard.doors.issue("203.0.113.5")  # a real pass, on the wrong port
    for sent in (door_pass, "not-a-pass-of-this-server"):
        client = await connect_from(srv, "127.0.0.1", hello=False)
        await client.send({"type": "hello", "version": 1, "client": "x/1", "door": sent})
        assert (await refused(client))["code"] == "bad_token"


@pytest.mark.trio
async def test_door_clients_count_under_their_players_address(
    limited: Make, nursery: trio.Nursery
) -> None:
    srv = await limited(trusted=(), registrations_per_hour=1, connections_per_address=2)
    port = await door_listener(srv, nursery)
    doors = srv.guard.doors
    alice_pass, bob_pass = doors.issue("203.0.113.5"), doors.issue("198.51.100.7")

    without = await door_client(port, None)  # no pass: nobody, refused
    assert (await refused(without))["code"] == "bad_token"
    unknown = await door_client(port, "a-pass-nobody-was-given")
    assert (await refused(unknown))["code"] == "bad_token"

    alice = await door_client(port, alice_pass)
    await alice.expect("welcome")
    await alice.register("alice-door")
    again = await door_client(port, alice_pass)  # her second connection: her address
    await again.expect("welcome")
    reply = await again.request("register", name="alice-two", password="secret-pw")
    assert reply["code"] == "rate_limited"  # one new account an hour from 203.0.113.5
    third = await door_client(port, alice_pass)  # two connections from her address at most
    assert (await refused(third))["code"] == "server_busy"

    bob = await door_client(port, bob_pass)  # another player: his own address, his caps
    await bob.expect("welcome")
    await bob.register("bob-door")
    addresses = {c.address for c in srv.sessions.connections if c.session.account is not None}
    assert addresses == {"203.0.113.5", "198.51.100.7"}

    doors.revoke(bob_pass)  # the session ended: its pass names nobody now
    late = await door_client(port, bob_pass)
    assert (await refused(late))["code"] == "bad_token"


@pytest.mark.trio
async def test_a_remote_doors_signed_pass_names_its_player_on_the_game_port(
    limited: Make,
) -> None:
    """A door on another machine signs its passes with the host's door secret: on the
    game port they name the player, whose address counts from then on instead of the
    door machine's; one signed with another secret names nobody."""
    srv = await limited(trusted=(), registrations_per_hour=1, connections_per_address=2)
    srv.guard.remote_doors = SignedPasses("s" * 40)  # as door_secret in the settings sets it
    door = SignedPasses("s" * 40)
    door_machine = "127.0.0.9"

    async def via_door(door_pass: str) -> WireClient:
        client = await connect_from(srv, door_machine, hello=False)
        await client.send(
            {"type": "hello", "id": 1, "version": 1, "client": "x/1", "door": door_pass}
        )
        return client

    # Three players through one door machine, over its cap of two: each connection
    # counts under its player once named, the door machine's place given back.
    players = ["203.0.113.5", "198.51.100.7", "2001:db8::9"]
    held = [await via_door(door.issue(address)) for address in players]
    for client in held:
        await client.expect("welcome")
    alice = await via_door(door.issue(players[0]))
    await alice.expect("welcome")
    await alice.register("alice-remote")
    again = await via_door(door.issue(players[0]))  # her third connection: over her cap
    assert (await refused(again))["code"] == "server_busy"
    assert {c.address for c in srv.sessions.connections} == set(players)
    forged = await via_door(SignedPasses("x" * 40).issue("192.0.2.1"))
    assert (await refused(forged))["code"] == "bad_token"


def v1(source: str, family: str = "TCP4") -> bytes:
    dest = "127.0.0.1" if family == "TCP4" else "::1"
    return f"PROXY {family} {source} {dest} 40000 7415\r\n".encode()


def v2(source: str) -> bytes:
    """A version 2 header (PROXY command, TCP over IPv4) naming ``source``."""
    body = ipaddress.IPv4Address(source).packed + bytes([127, 0, 0, 1]) + struct.pack("!HH", 1, 2)
    return V2_SIGNATURE + bytes([0x21, 0x11]) + struct.pack("!H", len(body)) + body


async def from_proxy(srv: Server, header: bytes, source: str = PROXY) -> WireClient:
    client = await connect_from(srv, source, hello=False)
    await client.send_raw(header)
    await client.hello()
    return client


@pytest.mark.trio
async def test_a_proxys_header_names_the_player(limited: Make) -> None:
    srv = await limited(trusted=(), proxies=(PROXY,), registrations_per_hour=1)
    first = await from_proxy(srv, v1("198.51.100.1"))
    await first.register("proxied")
    second = await from_proxy(srv, v1("198.51.100.1"))  # the same player's address
    reply = await second.request("register", name="proxied2", password="secret-pw")
    assert reply["code"] == "rate_limited"
    third = await from_proxy(srv, v2("198.51.100.2"))  # version 2, another player
    await third.register("proxied3")
    fourth = await from_proxy(srv, v1("2001:db8::9", "TCP6"))
    await fourth.register("proxied4")
    addresses = {c.address for c in srv.sessions.connections if c.session.account is not None}
    assert addresses == {"198.51.100.1", "198.51.100.2", "2001:db8::9"}


@pytest.mark.trio
async def test_a_proxy_header_from_anyone_else_is_refused(limited: Make) -> None:
    srv = await limited(trusted=(), proxies=(PROXY,))
    client = await connect_from(srv, "127.0.21.2", hello=False)  # no proxy of the host's
    await client.send_raw(v1("198.51.100.1"))
    await refused(client)
    assert all(c.address != "198.51.100.1" for c in srv.sessions.connections)
    # And the host's proxy without a header (or with a broken one) is cut off.
    for sent in (b"", b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n"):
        bare = await connect_from(srv, PROXY, hello=False)
        with pytest.raises((EOFError, trio.BrokenResourceError)):
            await bare.send_raw(sent + encode_map({"type": "hello", "version": 1, "client": "x"}))
            await bare.expect("welcome")


def test_the_header_parser_takes_exactly_the_header() -> None:
    rest = b"\x00\x00\x00\x05after"
    assert parse_proxy_header(v1("192.0.2.1") + rest) == (len(v1("192.0.2.1")), "192.0.2.1")
    assert parse_proxy_header(v2("192.0.2.2") + rest) == (len(v2("192.0.2.2")), "192.0.2.2")
    assert parse_proxy_header(b"PROXY UNKNOWN\r\n") == (15, None)  # the proxy's own
    assert parse_proxy_header(b"PROXY TCP4 192.0.2.1") is None  # more to come
    assert parse_proxy_header(v2("192.0.2.2")[:20]) is None
    for bad in (
        b"GET / HTTP/1.1\r\n",
        b"PROXY TCP4 192.0.2.1 192.0.2.2 1\r\n",
        b"PROXY TCP4 ::1 ::1 1 2\r\n",  # an IPv6 address said to be IPv4
        b"PROXY TCP4 192.0.2.1 192.0.2.2 1 99999\r\n",
        b"PROXY " + b"x" * 120,  # no end within 107 bytes
        V2_SIGNATURE + bytes([0x31, 0x11, 0, 12]) + bytes(12),  # version 3
    ):
        with pytest.raises(ProxyHeaderError):
            parse_proxy_header(bad)
