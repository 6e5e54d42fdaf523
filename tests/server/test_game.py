"""Full matches over real TCP: four clients, spectators, disconnects, escapes, bad input,
and no concealed tile of another player in any frame."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from gbmj.game.hand_state import HandState
from gbmj.game.wall import verify_commitment
from gbmj_server.config import Limits, ServerConfig
from gbmj_server.server import Server
from gbmj_server.storage.logs import read_log
from server.conftest import play_of, start, table_of
from server.wireclient import Pause, WireClient, play, seat_four, simple_choice

pytestmark = pytest.mark.trio


def seat_of(server: Server, table_id: int) -> list[int]:
    """The engine seat of each table seat in the running match's first round."""
    match = play_of(server, table_id).st.match
    return [match.seat_of(p) for p in range(4)]


def assert_nothing_hidden(messages: list[dict[str, Any]], me: int | None) -> int:
    """No message shows a concealed tile of a seat other than ``me`` (None: spectator)
    while a hand is in play. Returns how many game messages were checked."""
    checked = 0
    for m in messages:
        if m["type"] == "event":
            checked += 1
            ev = m["event"]
            if ev.get("seat") != me:
                if ev["kind"] == "deal":
                    assert "tiles" not in ev, m
                if ev["kind"] in ("draw", "concealed_kong"):
                    assert "tile" not in ev, m
        elif m["type"] == "snapshot" and "game" in m:
            checked += 1
            for seat in m["game"]["seats"]:
                if seat["seat"] != me:
                    assert "concealed" not in seat and "drawn" not in seat, m
                    assert all(meld is None or not meld["concealed"] for meld in seat["melds"])
                else:
                    assert len(seat["concealed"]) == seat["concealed_count"]
        elif m["type"] == "prompt":
            assert me is not None, m
    return checked


@pytest.mark.slow
async def test_four_clients_play_a_match_to_its_end(connect, server: Server) -> None:
    watcher = await connect()
    await watcher.register("watcher")
    clients, table_id = await seat_four(connect, rounds=1)
    seats = seat_of(server, table_id)  # one round: no seat changes
    await watcher.ok("spectate", table_id=table_id)
    results: list[list[dict[str, Any]]] = [[] for _ in range(4)]

    async def run(i: int) -> None:
        results[i] = await play(clients[i], table_id)

    async with trio.open_nursery() as nursery:
        for i in range(4):
            nursery.start_soon(run, i)
    standings = (await watcher.expect("match_result"))["standings"]

    # Everyone saw the same four hand results; points sum to zero; the wall checks out.
    assert all(len(r) == 4 for r in results)
    for hand in zip(*results, strict=True):
        assert all(h == hand[0] for h in hand)
        result = hand[0]
        assert sum(result["points"]) == 0
        number = 4 * (result["round_number"] - 1) + result["hand_number"]
        assert verify_commitment(
            result["commitment"], result["wall_order"], result["salt"], result["match_id"], number
        )
        if result["outcome"] == "win":
            assert result["total"] >= 8 and result["fans"]
    assert [(h["round_number"], h["hand_number"]) for h in results[0]] == [
        (1, n) for n in (1, 2, 3, 4)
    ]
    final = results[0][-1]["scores"]
    assert sorted(s["points"] for s in standings) == sorted(final)
    # Standings name each player at the seat of the hands (the seat every event speaks).
    assert {s["name"]: (s["seat"], s["points"]) for s in standings} == {
        f"player{p}": (seats[p], final[seats[p]]) for p in range(4)
    }
    assert [s["rank"] for s in standings] == sorted(s["rank"] for s in standings)

    # Every hand starts with a fresh snapshot for every member, naming who sits where
    # (the first seating is drawn at random and seats change between rounds).
    for i, client in enumerate(clients):
        snapshots = [m for m in client.seen if m["type"] == "snapshot" and "game" in m]
        assert len(snapshots) >= 4
        for snap in snapshots:
            assert snap["seat"] == seats[i]
            names = [p["name"] for p in snap["players"]]
            assert names == [f"player{seats.index(s)}" for s in range(4)], names
    watched = [m for m in watcher.seen if m["type"] == "snapshot" and "game" in m]
    assert len(watched) >= 4

    # Nobody, spectator included, ever saw another seat's concealed tiles mid-hand.
    for i, client in enumerate(clients):
        assert assert_nothing_hidden(client.seen, seats[i]) > 100
    assert assert_nothing_hidden(watcher.seen, None) > 100

    # The database holds the match and every hand's log, which replays to its result.
    storage = server.store.storage
    match_id = storage.match_ids()[-1]
    record = storage.match(match_id)
    assert record.end_reason == "finished"
    assert record.standings == standings
    assert [(p.name, p.points) for p in record.players] == [
        (f"player{p}", final[seats[p]]) for p in range(4)
    ]
    hands = storage.hands(match_id)
    assert [h.number for h in hands] == [1, 2, 3, 4]
    for stored, result in zip(hands, results[0], strict=True):
        replayed = HandState.from_dict(read_log(stored.event_log)["hand"])
        assert list(replayed.result.points) == result["points"]
        assert stored.result["points"] == result["points"]


@pytest.mark.slow
async def test_disconnect_mid_hand_then_resume_on_another_client(connect, server: Server) -> None:
    clients, table_id = await seat_four(connect, rounds=1)
    seats = seat_of(server, table_id)
    token = None
    for message in clients[1].seen:
        if message["type"] == "session":
            token = message["token"]
    pause = Pause()

    async with trio.open_nursery() as nursery:
        for i in (0, 2, 3):
            nursery.start_soon(lambda i=i: play(clients[i], table_id, pause=pause))
        await play(clients[1], table_id, prompts=3)
        pause.event = trio.Event()  # hold the others: the hand stays in play
        await clients[1].aclose()
        table = table_of(server, table_id)
        with trio.fail_after(5):
            while table.seats[1].connected:
                await trio.sleep(0.01)
        assert play_of(server, table_id).st.in_hand

        back = await connect()
        session = await back.ok("resume", token=token)
        assert session["type"] == "session" and session["profile"]["name"] == "player1"
        snapshot = await back.expect("snapshot")
        me = seats[1]
        assert snapshot["seat"] == me and "game" in snapshot
        own = snapshot["game"]["seats"][me]
        assert len(own["concealed"]) == own["concealed_count"] >= 1
        assert snapshot["players"][me]["presence"] == "online"
        assert snapshot["players"][me]["name"] == "player1"
        assert_nothing_hidden([snapshot], me)
        pause.event.set()
        pause.event = None
        await play(back, table_id)  # prompts come to the new client; the match ends
    assert_nothing_hidden(back.seen, seats[1])
    assert any(m["type"] == "prompt" for m in back.seen)


@pytest.mark.slow
async def test_spectator_joining_mid_hand_sees_only_public_things(connect, server: Server) -> None:
    clients, table_id = await seat_four(connect, rounds=1)
    pause = Pause()
    watcher = await connect()
    await watcher.register("watcher")
    async with trio.open_nursery() as nursery:
        for i in (1, 2, 3):
            nursery.start_soon(lambda i=i: play(clients[i], table_id, pause=pause))
        await play(clients[0], table_id, prompts=2)
        snap = await watcher.ok("spectate", table_id=table_id)
        assert snap["type"] == "snapshot" and "seat" not in snap and "game" in snap
        await play(clients[0], table_id)
    assert (await watcher.expect("match_result"))["table_id"] == table_id
    # Events follow the snapshot in order, without gaps.
    seqs = [m["seq"] for m in watcher.seen if m["type"] == "event"]
    assert seqs[0] == snap["seq"] + 1 and seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert assert_nothing_hidden(watcher.seen, None) > 50
    # A spectator cannot act.
    reply = await watcher.request("action", table_id=table_id, seq=0, kind="pass")
    assert reply["code"] in ("not_seated", "not_expected")


@pytest.mark.slow
async def test_an_escape_ends_the_hand_and_a_bot_takes_the_seat(connect, server: Server) -> None:
    a, b = await connect(), await connect()
    await a.register("alice")
    await b.register("bobby")
    table_id = await a.create_table(rounds=1)
    await b.ok("join_table", table_id=table_id)
    await a.ok("sit", table_id=table_id, seat=0)
    await b.ok("sit", table_id=table_id, seat=1)
    await a.ok("add_bot", table_id=table_id, seat=2, level="normal")
    await a.ok("add_bot", table_id=table_id, seat=3, level="normal")
    await a.ok("ready", table_id=table_id, ready=True)
    await b.ok("ready", table_id=table_id, ready=True)
    await a.expect("event", where=lambda m: m["event"]["kind"] == "hand_start")
    alice = seat_of(server, table_id)[0]
    await a.ok("leave_table", table_id=table_id)  # an escape: the hand ends at once
    escape = await b.expect("event", where=lambda m: m["event"]["kind"] == "escape")
    assert escape["event"]["seat"] == alice
    result = await b.expect("hand_result")
    assert result["outcome"] == "escape" and result["escaper"] == alice
    assert result["points"] == [-80 if s == alice else 0 for s in range(4)]
    assert "winner" not in result
    seat0 = table_of(server, table_id).seats[0]
    assert seat0 is not None and seat0.is_bot
    results = await play(b, table_id)  # a bot in seat 0 now
    assert len(results) == 3
    final = next(m for m in b.seen if m["type"] == "match_result")
    storage = server.store.storage
    record = storage.match(storage.match_ids()[-1])
    assert record.end_reason == "finished"
    escaper = next(p for p in record.players if p.name == "alice")
    stand_in = [p for p in record.players if p.slot == 0 and p.bot_level is not None]
    assert escaper.left_reason == "left" and escaper.points == -80 and stand_in
    # The escaper has a line of their own, with the penalty; the stand-in its own.
    lines = {s["name"]: s for s in final["standings"]}
    assert lines["alice"]["points"] == -80 and lines["alice"]["left"] == "left"
    assert "seat" not in lines["alice"] and len(final["standings"]) == 5


async def test_the_last_human_escaping_pays_and_the_history_counts_the_hand(
    connect, server: Server
) -> None:
    """A solo match escaped: the escaper pays 80 points and their coins though no human
    is left to play on (the match ends abandoned), and the history lists the hand."""
    human = await connect()
    await human.register("escaper")
    table_id = await human.create_table(rounds=1, stake=1)
    await human.ok("sit", table_id=table_id, seat=0)
    for seat in (1, 2, 3):
        await human.ok("add_bot", table_id=table_id, seat=seat, level="normal")
    await human.ok("ready", table_id=table_id, ready=True)
    await human.expect("prompt")
    await human.ok("leave_table", table_id=table_id)
    with trio.fail_after(10):
        while True:
            listed = (await human.ok("list_matches", offset=0, limit=5))["matches"]
            if listed and listed[0].get("ended_at"):
                break
            await trio.sleep(0.05)
    assert listed[0]["points"] == -80 and listed[0]["hands"] == 1
    assert listed[0]["coins"] == -80  # 80 points at stake 1


@pytest.mark.slow
async def test_bad_input_gets_errors_and_the_game_goes_on(connect, server: Server) -> None:
    clients, table_id = await seat_four(connect, rounds=1)
    watcher = await connect()
    await watcher.register("watcher")
    await watcher.ok("spectate", table_id=table_id)
    table, game = table_of(server, table_id), play_of(server, table_id)
    # Let the table reach a turn prompt (claim windows answered by the simple policy).
    prompt, actor = None, None
    with trio.fail_after(10):
        while prompt is None:
            for i, client in enumerate(clients):
                for message in list(client.inbox):
                    if message["type"] == "prompt" and message["seq"] == table.seq:
                        if message["timer"] in ("turn", "first_discard"):
                            prompt, actor = message, i
                        else:
                            client.inbox.remove(message)
                            await client.send(
                                {
                                    "type": "action",
                                    "table_id": table_id,
                                    "seq": message["seq"],
                                    "kind": "pass",
                                }
                            )
            if prompt is None:
                await trio.sleep(0.01)
                for client in clients:
                    await client.drain(0.01)
    me, other = clients[actor], clients[(actor + 1) % 4]
    seq, state_before = table.seq, game.st.hand.snapshot()
    discards = {a["tile"] for a in prompt["actions"] if a["kind"] == "discard"}
    missing = next(t for t in range(34) if t not in discards)

    def act(**fields: Any) -> dict[str, Any]:
        return {"table_id": table_id, "seq": prompt["seq"], **fields}

    assert (await other.request("action", **act(kind="discard", tile=0)))["code"] == (
        "not_your_turn"
    )
    assert (await me.request("action", **act(kind="discard", tile=missing)))["code"] == (
        "illegal_action"
    )
    assert (await me.request("action", **act(kind="pung")))["code"] == "illegal_action"
    if not any(a["kind"] == "win" for a in prompt["actions"]):
        assert (await me.request("action", **act(kind="win")))["code"] == "false_win"
    reply = await me.request("action", table_id=table_id, seq=prompt["seq"] + 99, kind="pass")
    assert reply["code"] == "stale"
    reply = await watcher.request("action", **act(kind="discard", tile=min(discards)))
    assert reply["code"] == "not_seated"
    await me.send_raw(b"\x00\x00\x00\x02\xc1\xc1")
    assert (await me.expect("error"))["code"] == "bad_msgpack"
    assert table.seq == seq and game.st.hand.snapshot() == state_before  # nothing changed
    # The right answer still works, and the match plays on to its end for everyone.
    assert (await me.request("action", **act(kind="discard", tile=min(discards))))["type"] == "ok"
    assert table.seq > seq
    async with trio.open_nursery() as nursery:
        for client in clients:
            nursery.start_soon(play, client, table_id)


@pytest.mark.slow
async def test_a_client_that_stops_reading_does_not_delay_its_table(tmp_path) -> None:
    from gbmj_server.storage import Storage

    limits = Limits(outbox_frames=64, request_rate=10**6, request_burst=10**6)
    config = ServerConfig(bot_delay=0, hand_pause=0, limits=limits)
    srv = Server(Storage(tmp_path / "db.sqlite3"), config)
    async with trio.open_nursery() as nursery:
        await start(nursery, srv)
        port = srv.port

        opened = 0

        async def connect() -> WireClient:
            nonlocal opened
            opened += 1
            sock = trio.socket.socket()
            if opened == 4:  # the sleeper: a small buffer, so that it is soon full
                sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_RCVBUF, 4096)
            await sock.connect(("127.0.0.1", port))
            client = WireClient(trio.SocketStream(sock))
            await client.hello()
            return client

        clients, table_id = await seat_four(connect, rounds=2)
        sleeper = clients[3]
        await sleeper.ok("auto_play", table_id=table_id, on=True)
        # From now on the sleeper reads nothing: its outbox fills and the server drops
        # it, playing its seat; the other three finish their match regardless.
        with trio.fail_after(60):
            async with trio.open_nursery() as players:
                for client in clients[:3]:
                    players.start_soon(play, client, table_id)
        assert not any(c.session.name == "player3" for c in srv.sessions.connections)
        nursery.cancel_scope.cancel()
        nursery.cancel_scope.cancel()


def pung_first(prompt: dict[str, Any]) -> dict[str, Any]:
    """A legal answer that pungs whenever it may (else ``simple_choice``)."""
    for action in prompt["actions"]:
        if action["kind"] == "pung":
            return dict(action)
    return simple_choice(prompt)


@pytest.mark.slow
async def test_a_spectator_joining_after_a_pung_sees_the_claimed_discard_in_its_pool(
    connect, server: Server
) -> None:
    """The snapshot's pool says which discards another seat claimed, and where each lay
    (as a live viewer saw it struck through in the pool)."""
    clients, table_id = await seat_four(connect, rounds=1)
    pause = Pause()
    pungs: list[dict[str, Any]] = []

    def choose(prompt: dict[str, Any]) -> dict[str, Any]:
        if pungs and pause.event is None:
            pause.event = trio.Event()  # hold everyone at their next prompt
        return pung_first(prompt)

    async def watch_for_a_pung() -> None:
        while not pungs:
            await trio.sleep(0.01)
            pungs.extend(
                m["event"]
                for m in clients[0].seen
                if m["type"] == "event" and m["event"]["kind"] == "pung"
            )

    watcher = await connect()
    await watcher.register("watcher")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(lambda c=client: play(c, table_id, pause=pause, choose=choose))
            await watch_for_a_pung()
            while pause.event is None:
                await trio.sleep(0.01)
            snap = await watcher.ok("spectate", table_id=table_id)
            nursery.cancel_scope.cancel()
        while not any(m.get("seq", -1) >= snap["seq"] for m in clients[0].seen):
            await clients[0]._fill()  # every event up to the snapshot, to compare
    pung = pungs[0]
    giver = snap["game"]["seats"][pung["from_seat"]]
    assert [pung["claimed_tile"]] == [tile for _, tile in giver["claimed"]][:1]
    played = [
        m["event"]["tile"]
        for m in clients[0].seen
        if m["type"] == "event"
        and m["event"]["kind"] == "discard"
        and m["event"]["seat"] == pung["from_seat"]
        and m["seq"] <= snap["seq"]
    ]
    place, tile = giver["claimed"][0]
    assert played[place] == tile  # where it lay in the pool as played
    assert len(giver["discards"]) + len(giver["claimed"]) == len(played)
    # the others' pools say nothing was claimed from them, unless it was
    claims = [
        m["event"]["from_seat"]
        for m in clients[0].seen
        if m["type"] == "event"
        and m["event"]["kind"] in ("chow", "pung", "exposed_kong")
        and m["seq"] <= snap["seq"]
    ]
    for seat in snap["game"]["seats"]:
        assert len(seat.get("claimed") or ()) == claims.count(seat["seat"])
