"""The game port's limits (docs/hosting.md, "Limits"), each over real TCP with a real
SQLite file: the refusal's code, that the refused request changed nothing, and that
everyone else went on. The clients connect from loopback addresses of their own
(127.0.x.y), which the server counts apart and does not trust."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
import trio
import trio.testing

from gbmj_server.config import Limits
from gbmj_server.net.budget import Buffers
from gbmj_server.net.dispatch import MAX_ERRORS
from gbmj_server.net.guard import Guard
from gbmj_server.server import Server
from gbmj_server.storage.threads import HASH_THREADS
from server.conftest import Make, table_of
from server.wireclient import WireClient, connect_from, play, seat_four, solo_table

pytestmark = pytest.mark.trio


async def closed(client: WireClient) -> bool:
    """The server closes ``client`` (what it sent before is read first; a close with
    the client's bytes unread resets the connection)."""
    with pytest.raises((EOFError, trio.BrokenResourceError)):
        await client.expect("never")
    return True


async def guest(srv: Server, address: str) -> WireClient:
    client = await connect_from(srv, address)
    await client.ok("guest")
    return client


# -- connections ---------------------------------------------------------------------------


async def test_an_address_gets_so_many_connections_and_is_told_why(limited: Make) -> None:
    srv = await limited(connections_per_address=2)
    first = await connect_from(srv, "127.0.4.1")
    second = await connect_from(srv, "127.0.4.1")  # held (a dropped client closes)
    third = await connect_from(srv, "127.0.4.1", hello=False)
    refused = await third.expect("error")
    assert refused["code"] == "server_busy" and "your address" in refused["message"]
    assert await closed(third)
    assert srv.guard.open == 2
    elsewhere = await guest(srv, "127.0.4.2")  # another address is not held up
    await first.aclose()
    with trio.fail_after(5):  # the slot comes back once the server sees the close
        while True:
            try:
                again = await connect_from(srv, "127.0.4.1")
                break
            except EOFError:
                await trio.sleep(0.02)
    for client in (again, second, elsewhere):
        assert (await client.ok("ping"))["type"] == "pong"


async def test_a_full_server_pushes_out_the_oldest_connection_not_signed_in(
    limited: Make,
) -> None:
    srv = await limited(max_connections=3)
    player = await guest(srv, "127.0.5.1")
    idle = await connect_from(srv, "127.0.5.2")  # greeted, never signs in
    silent = await connect_from(srv, "127.0.5.3", hello=False)
    newcomer = await guest(srv, "127.0.5.4")  # full: the oldest not signed in goes
    assert await closed(idle)
    later = await guest(srv, "127.0.5.5")  # and then the next
    assert await closed(silent)
    # Everyone is signed in now: a newcomer is refused, and told why.
    refused = await connect_from(srv, "127.0.5.6", hello=False)
    reply = await refused.expect("error")
    assert reply["code"] == "server_busy" and "full" in reply["message"]
    assert await closed(refused)
    for client in (player, newcomer, later):
        assert (await client.ok("ping"))["type"] == "pong"
    assert srv.guard.open == 3


async def test_deadlines_close_connections_that_do_not_greet_or_sign_in(limited: Make) -> None:
    srv = await limited(hello_timeout=0.3, sign_in_timeout=0.3)
    player = await guest(srv, "127.0.6.1")
    silent = await connect_from(srv, "127.0.6.2", hello=False)
    greeted = await connect_from(srv, "127.0.6.3")
    reply = await silent.expect("error")
    assert reply["code"] == "not_expected" and reply["message"] == "no hello in time"
    assert await closed(silent)
    reply = await greeted.expect("error")
    assert reply["code"] == "not_expected" and reply["message"] == "no sign-in in time"
    assert await closed(greeted)
    assert (await player.ok("ping"))["type"] == "pong"  # signed in: no deadline
    # Signed out again, a client is due to sign in anew within the same time.
    await player.ok("logout")
    reply = await player.expect("error")
    assert reply["message"] == "no sign-in in time"
    assert await closed(player)


async def test_a_frame_must_arrive_whole_in_time(limited: Make) -> None:
    srv = await limited(frame_timeout=0.3)
    player = await guest(srv, "127.0.7.1")
    slow = await guest(srv, "127.0.7.2")
    await slow.send_raw((100).to_bytes(4, "big") + b"\x80")  # 1 of 100 bytes
    reply = await slow.expect("error")
    assert reply["code"] == "not_expected" and reply["message"] == "a frame took too long"
    assert await closed(slow)
    assert (await player.ok("ping"))["type"] == "pong"


async def test_the_buffer_budget_drops_the_connection_holding_longest(limited: Make) -> None:
    srv = await limited(buffers_total=100_000)
    player = await guest(srv, "127.0.8.1")
    first = await connect_from(srv, "127.0.8.2")
    second = await connect_from(srv, "127.0.8.3")
    header = (65_536).to_bytes(4, "big")
    await first.send_raw(header + b"\x00" * 60_000)
    await second.ok("ping")  # the first's bytes are in (the server reads in order)
    await second.send_raw(header + b"\x00" * 60_000)  # 120,000 held: over
    assert await closed(first)
    await second.send_raw(b"\x00" * 5_536)  # the second's frame ends: read, refused
    assert (await second.expect("error"))["code"] == "bad_msgpack"
    assert (await player.ok("ping"))["type"] == "pong"
    assert srv.guard.buffers.held == 0


async def test_buffers_drop_the_oldest_holder_and_forget_those_that_hold_nothing() -> None:
    class Holder:
        def __init__(self) -> None:
            self.reason = ""

        def close(self, reason: str) -> None:
            self.reason = reason

    budget = Buffers(100)
    a, b, c = Holder(), Holder(), Holder()
    budget.update(a, 60)
    budget.update(b, 30)
    budget.update(a, 0)  # a held nothing for a moment...
    budget.update(a, 50)  # ...so b has held longest now
    assert budget.held == 80 and not b.reason
    budget.update(c, 40)
    assert b.reason and not a.reason and not c.reason
    assert budget.held == 90 and len(budget) == 2
    budget.forget(a)
    assert budget.held == 40


# -- requests ------------------------------------------------------------------------------


async def test_requests_over_the_rate_are_refused_and_a_flood_is_closed(limited: Make) -> None:
    srv = await limited(request_rate=0.001, request_burst=12)
    other = await guest(srv, "127.0.9.2")
    client = await guest(srv, "127.0.9.1")  # one token spent: 11 left
    await client.ok("list_tables")  # a table list costs ten
    reply = await client.request("list_tables")
    assert reply["code"] == "rate_limited" and reply["id"] is not None  # the id echoed
    assert (await client.ok("ping"))["type"] == "pong"  # one token was left for this
    assert (await client.request("ping"))["code"] == "rate_limited"
    for n in range(MAX_ERRORS):
        await client.send({"type": "ping", "id": 500 + n})
    assert await closed(client)
    assert (await other.ok("ping"))["type"] == "pong"  # its own bucket
    with trio.fail_after(5):  # a closed connection's bucket goes with it
        while len(srv.guard.requests) != 1:
            await trio.sleep(0.02)


async def test_answers_to_prompts_are_never_throttled_what_is_unprompted_is(
    limited: Make,
) -> None:
    srv = await limited(request_rate=0.001, request_burst=12)
    human, table_id = await solo_table(partial(connect_from, srv, "127.0.9.3"))
    # Seven requests to sit down with three bots: five tokens are left, and a match
    # asks for many more answers than that, each answered at once.
    await play(human, table_id, prompts=30)
    pings = [(await human.request("ping"))["type"] for _ in range(6)]
    assert pings[-1] == "error" and pings.count("pong") == 5  # unprompted: the bucket's
    # A second answer to a prompt already answered is unprompted too.
    prompt = await human.expect("prompt")
    action = {"type": "action", "table_id": table_id, "seq": prompt["seq"]}
    choice = {k: v for k, v in prompt["actions"][0].items() if k != "type"}
    await human.send({**action, **choice, "id": 900})
    again = await human.request("action", table_id=table_id, seq=prompt["seq"], **choice)
    assert again["code"] == "rate_limited"


async def test_a_resync_pushes_nothing_to_the_others_at_the_table(connect) -> None:
    clients, table_id = await seat_four(connect)
    await clients[2].expect("event")  # the match runs
    await clients[2].ok("join_table", table_id=table_id)  # all sent so far has arrived
    told = len([x for x in clients[2].seen if x["type"] == "presence"])
    for _ in range(5):  # resyncs: a snapshot each, for the one who asked
        snapshot = await clients[1].ok("join_table", table_id=table_id)
        assert snapshot["type"] == "snapshot"
    await clients[2].ok("join_table", table_id=table_id)
    assert len([x for x in clients[2].seen if x["type"] == "presence"]) == told
    # A change is told: the player goes, and comes back.
    await clients[1].aclose()
    gone = await clients[2].expect("presence")
    assert gone["presence"] == "offline"
    back = await connect()
    await back.ok("login", name="player1", password="secret-pw")
    assert (await clients[2].expect("presence"))["presence"] == "online"


# -- accounts --------------------------------------------------------------------------------


async def test_new_accounts_per_address_are_limited(limited: Make) -> None:
    srv = await limited(registrations_per_hour=2)
    client = await connect_from(srv, "127.0.10.1")
    for name in ("maker1", "maker2"):
        await client.register(name)
        await client.ok("logout")
    reply = await client.request("register", name="maker3", password="secret-pw")
    assert reply["code"] == "rate_limited"
    assert (await client.request("login", name="maker3", password="secret-pw"))["code"] == (
        "bad_credentials"  # nothing was made
    )
    elsewhere = await connect_from(srv, "127.0.10.2")
    await elsewhere.register("maker3")


async def test_guests_per_address_are_limited(limited: Make) -> None:
    srv = await limited(guests_per_hour=2)
    client = await connect_from(srv, "127.0.11.1")
    for _ in range(2):
        await client.ok("guest")
        await client.ok("logout")
    assert srv.services is not None
    storage = srv.services.store.storage
    before = len(storage.list_accounts(include_guests=True))
    assert (await client.request("guest"))["code"] == "rate_limited"
    assert len(storage.list_accounts(include_guests=True)) == before
    await guest(srv, "127.0.11.2")


async def test_password_checks_of_one_address_take_turns() -> None:
    guard = Guard(Limits())
    running: dict[str, int] = {}
    most: dict[str, int] = {}
    together = 0

    async def check(address: str) -> str:
        nonlocal together
        running[address] = running.get(address, 0) + 1
        most[address] = max(most.get(address, 0), running[address])
        together = max(together, sum(running.values()))
        await trio.sleep(0.01)
        running[address] -= 1
        return address

    async with trio.open_nursery() as nursery:
        for address in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2"):
            nursery.start_soon(guard.hash_in_turn, address, lambda a=address: check(a))
    assert most == {"10.0.0.1": 1, "10.0.0.2": 1}  # one at a time per address
    assert together == 2  # two addresses at once
    assert not guard._hashing  # nothing kept once done


async def test_sign_ins_from_clean_addresses_go_before_guesses_and_new_accounts() -> None:
    guard = Guard(Limits())
    releases = [trio.Event() for _ in range(HASH_THREADS)]
    order: list[str] = []

    async def check(what: str) -> None:
        order.append(what)

    guard.password_addresses.failed("10.0.1.9", trio.current_time())  # a recent guess
    async with trio.open_nursery() as nursery:
        for n in range(HASH_THREADS):  # every hashing thread busy
            nursery.start_soon(guard.hash_in_turn, f"10.0.1.{n + 1}", releases[n].wait)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(
            partial(guard.hash_in_turn, "10.0.1.8", partial(check, "new"), new_account=True)
        )
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(guard.hash_in_turn, "10.0.1.9", partial(check, "guess"))
        await trio.testing.wait_all_tasks_blocked()
        cancelled = trio.CancelScope()

        async def given_up() -> None:
            with cancelled:
                await guard.hash_in_turn("10.0.1.7", partial(check, "gave up"))

        nursery.start_soon(given_up)
        nursery.start_soon(guard.hash_in_turn, "10.0.1.6", partial(check, "player"))
        await trio.testing.wait_all_tasks_blocked()
        cancelled.cancel()  # a sign-in given up while waiting loses its place, no slot
        await trio.testing.wait_all_tasks_blocked()
        # One thread frees up: the waiting checks take it one after another, in their
        # order (two freed at once would run two side by side, in either order).
        releases[0].set()
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["player", "new", "guess"]
        for release in releases[1:]:
            release.set()
    assert guard._hash_gate.free == HASH_THREADS


async def test_lobby_chat_is_limited_per_address_too(limited: Make) -> None:
    srv = await limited(chat_lines=2)
    watcher = await guest(srv, "127.0.12.9")
    await watcher.ok("watch_lobby", on=True)
    first = await guest(srv, "127.0.12.1")
    await first.ok("chat_send", channel="lobby", text="one")
    await first.ok("chat_send", channel="lobby", text="two")
    fresh = await guest(srv, "127.0.12.1")  # a fresh guest from the same address
    reply = await fresh.request("chat_send", channel="lobby", text="three")
    assert reply["code"] == "rate_limited"
    other = await guest(srv, "127.0.12.2")
    await other.ok("chat_send", channel="lobby", text="four")
    lines = [(await watcher.expect("chat"))["text"] for _ in range(3)]
    assert lines == ["one", "two", "four"]


# -- tables ----------------------------------------------------------------------------------


async def test_tables_and_bot_tables_per_address_and_in_all(limited: Make) -> None:
    srv = await limited(tables_per_address=2, max_tables=4, bot_tables_per_address=1)
    a1, a2, a3 = [await guest(srv, "127.0.13.1") for _ in range(3)]
    t1 = await a1.create_table()
    t2 = await a2.create_table()
    reply = await a3.request("create_table", settings=table_settings())
    assert reply["code"] == "rate_limited"
    assert len(srv.tables) == 2  # nothing made
    b1 = await guest(srv, "127.0.13.2")
    await b1.create_table()
    c1 = await guest(srv, "127.0.13.3")
    await c1.create_table()
    d1 = await guest(srv, "127.0.13.4")
    reply = await d1.request("create_table", settings=table_settings())
    assert reply["code"] == "server_busy" and len(srv.tables) == 4
    # Bots: one table with bots per address; more bots at that table are fine.
    await a1.ok("sit", table_id=t1, seat=0)
    for seat in (1, 2, 3):
        await a1.ok("add_bot", table_id=t1, seat=seat, level="easy")
    reply = await a2.request("add_bot", table_id=t2, seat=1, level="easy")
    assert reply["code"] == "rate_limited"
    assert table_of(srv, t2).seats[1] is None  # nothing seated
    # ...and a1's match goes on meanwhile.
    await a1.ok("ready", table_id=t1, ready=True)
    await play(a1, t1, prompts=3)


async def test_the_server_runs_so_many_tables_with_bots(limited: Make) -> None:
    srv = await limited(max_bot_tables=1)
    owner = await guest(srv, "127.0.14.1")
    t1 = await owner.create_table()
    await owner.ok("add_bot", table_id=t1, seat=1, level="easy")
    other = await guest(srv, "127.0.14.2")
    t2 = await other.create_table()
    reply = await other.request("add_bot", table_id=t2, seat=1, level="easy")
    assert reply["code"] == "server_busy"
    assert table_of(srv, t2).seats[1] is None
    await owner.ok("remove_bot", table_id=t1, seat=1)  # the place is free again
    await other.ok("add_bot", table_id=t2, seat=1, level="easy")


async def test_an_address_the_host_trusts_has_no_per_address_caps(limited: Make) -> None:
    srv = await limited(tables_per_address=1, bot_tables_per_address=1)
    assert srv.port is not None
    made = []
    for _ in range(2):  # from 127.0.0.1, which the tests' config trusts (limits.trusted)
        client = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
        await client.hello()
        await client.ok("guest")
        table_id = await client.create_table()
        await client.ok("add_bot", table_id=table_id, seat=1, level="easy")
        made.append(table_id)
    assert len(made) == 2


async def test_table_passwords_slow_down_the_guessing_address(limited: Make) -> None:
    srv = await limited()
    owner = await guest(srv, "127.0.15.1")
    table_id = await owner.create_table(password="open-sesame")
    guesser = await guest(srv, "127.0.15.2")
    for n in range(6):  # five are free, the sixth starts a wait
        reply = await guesser.request("join_table", table_id=table_id, password=f"no{n}")
        assert reply["code"] == "wrong_password"
    reply = await guesser.request("join_table", table_id=table_id, password="open-sesame")
    assert reply["code"] == "rate_limited"  # even the right one, from there
    assert len(table_of(srv, table_id).members) == 1
    friend = await guest(srv, "127.0.15.3")  # elsewhere, the password works at once
    assert (await friend.ok("join_table", table_id=table_id, password="open-sesame"))[
        "type"
    ] == "snapshot"


def table_settings(**over: Any) -> dict[str, Any]:
    base = {
        "name": "test table",
        "stake": 0,
        "rounds": 1,
        "bots_allowed": True,
        "timers": {"on": False, "first_discard": 30, "turn": 15, "claim_window": 5},
    }
    return {**base, **over}


async def test_a_limit_of_none_allows_none(limited: Make) -> None:
    srv = await limited(registrations_per_hour=0, guests_per_hour=0, chat_lines=0)
    client = await connect_from(srv, "127.0.16.1")
    assert (await client.request("guest"))["code"] == "rate_limited"
    reply = await client.request("register", name="nobody", password="secret-pw")
    assert reply["code"] == "rate_limited"
    assert srv.services is not None
    assert srv.services.store.storage.list_accounts(include_guests=True) == []
    assert srv.port is not None  # the host's own address has no per-address caps...
    host = WireClient(await trio.open_tcp_stream("127.0.0.1", srv.port))
    await host.hello()
    await host.ok("guest")
    reply = await host.request("chat_send", channel="lobby", text="hello")
    assert reply["code"] == "rate_limited"  # ...but no chat is no chat
