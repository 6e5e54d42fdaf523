"""The history in the store (docs/rules.md §2.10): who sees which matches, what a match
and a hand hold, and that nothing of a hand in play can be read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgpack
import pytest
from conftest import World
from recorder import record_match, sitters

from gbmj.bots import make_bot
from gbmj.bots.arena import play_hand
from gbmj_server.names import name_skeleton
from gbmj_server.storage import MIGRATIONS, Storage
from protocol import messages as m
from protocol.framing import encode


def ids(page_matches: tuple[object, ...]) -> list[int]:
    return [s.match_id for s in page_matches]


@pytest.mark.slow
def test_a_player_lists_only_the_matches_they_played_newest_first(world: World) -> None:
    store = world.store
    page = store.matches_of(world.account("alice"))
    assert ids(page.matches) == [world.stake.match_id, world.free.match_id]
    assert page.total == 2
    carol = store.matches_of(world.account("carol"))
    assert ids(carol.matches) == [world.private.match_id, world.running.match_id]
    dave = store.create_account("dave", "x")
    assert store.matches_of(dave.id) == m.MatchList(matches=(), total=0)


@pytest.mark.slow
def test_a_summary_has_the_seats_hands_and_the_players_rank_points_and_coins(
    world: World,
) -> None:
    store = world.store
    bob = world.account("bob")
    (stake, free) = store.matches_of(bob).matches
    stored = store.match_detail(world.stake.match_id)
    assert stored is not None and stored.detail.standings is not None
    detail = stored.detail
    # Everyone who held a seat, the bot that took bob's seat after his escape too.
    assert stake.players == ("alice", "bob", "bot-2", "bot-3", "bot-4")
    assert stake.hands == 4 and not stake.public and stake.reason == "finished"
    mine = next(s for s in detail.standings if s.name == "bob")
    assert mine.left == "left" and mine.seat is None
    assert (stake.rank, stake.points, stake.coins) == (mine.rank, mine.points, mine.coins)
    # bob's points are his hands' (the escape's -80 included), his coins what he paid.
    seats = [names.index("bob") for names in world.stake.names[:2]]
    assert stake.points == sum(
        world.store.hand_log(h).log.points[s]
        for h, s in zip(world.stake.hand_ids[:2], seats, strict=True)
    )
    assert stake.coins == sum(c[s] for c, s in zip(world.stake.coins[:2], seats, strict=True))
    assert free.public and free.coins == 0


@pytest.mark.slow
def test_paging_walks_every_match_once_newest_first(tmp_path: Path) -> None:
    with Storage(tmp_path / "pages.sqlite3") as store:
        seated = sitters(store, "erin")
        made = [
            record_match(store, seated, f"page-{i}".encode(), hands=1).match_id for i in range(7)
        ]
        record_match(store, sitters(store, "frank"), b"not-erins", hands=1)
        erin = seated[0].account_id
        assert erin is not None
        pages = [store.matches_of(erin, offset, 3) for offset in (0, 3, 6, 9)]
        assert [p.total for p in pages] == [7, 7, 7, 7]
        assert [len(p.matches) for p in pages] == [3, 3, 1, 0]
        assert [i for p in pages for i in ids(p.matches)] == made[::-1]


@pytest.mark.parametrize("offset, limit", [(-1, 20), (0, 0), (0, 51)])
def test_a_bad_page_is_refused(world: World, offset: int, limit: int) -> None:
    with pytest.raises(ValueError, match="limit 1 to 50"):
        world.store.matches_of(world.account("alice"), offset, limit)


def test_who_may_read_which_match(world: World) -> None:
    store = world.store
    alice, carol = world.account("alice"), world.account("carol")
    free, stake = world.free.match_id, world.stake.match_id
    running, private = world.running.match_id, world.private.match_id
    assert store.may_read(alice, free) and store.may_read(alice, stake)  # played them
    assert store.may_read(carol, free)  # public and ended: anyone
    assert store.may_read(None, free)
    assert not store.may_read(carol, stake)  # a stake table's history is private
    assert not store.may_read(alice, private)
    assert store.may_read(carol, running)  # her own match, while it runs
    assert not store.may_read(alice, running)  # public, but not ended yet
    assert not store.may_read(alice, 10_000)
    # A hand is read as its match is.
    assert store.may_read_hand(carol, world.free.hand_ids[0])
    assert not store.may_read_hand(carol, world.stake.hand_ids[0])
    assert not store.may_read_hand(alice, world.running.hand_ids[0])
    assert not store.may_read_hand(carol, 10_000)


def test_nothing_of_a_hand_in_play_can_be_read(world: World) -> None:
    store = world.store
    match_id = world.running.match_id
    in_play = store._db.execute(
        "SELECT count(*) FROM match_action WHERE match_id = ? AND hand = 2", (match_id,)
    ).fetchone()[0]
    assert in_play == 2  # hand 2's deal and first discard are on disk
    stored = store.match_detail(match_id, world.account("carol"))
    assert stored is not None and stored.table_id is not None
    detail = stored.detail
    assert [h.number for h in detail.hands] == [1] and detail.match.hands == 1
    assert detail.standings is None and detail.match.ended_at is None
    assert (
        detail.match.rank is None
        and detail.match.points == world.running.scores[0][world.running.names[0].index("carol")]
    )
    hand_ids = [
        r[0] for r in store._db.execute("SELECT id FROM hand WHERE match_id = ?", (match_id,))
    ]
    assert hand_ids == world.running.hand_ids  # hand 2 has no id: no request can name it
    found = store.hand_log(hand_ids[0])
    assert found is not None and found.log.number == 1


def test_a_hand_log_is_the_hand_as_it_was_played(world: World) -> None:
    for hand_id, state, names in zip(
        world.free.hand_ids, world.free.states, world.free.names, strict=True
    ):
        found = world.store.hand_log(hand_id)
        assert found is not None
        log, recorded = found.log, found.result
        wall = state.wall
        assert log.wall_order == tuple(int(t) for t in wall.order)
        assert (log.salt, log.commitment) == (wall.salt.hex(), wall.commitment)
        assert log.dice == wall.dice and log.dealer == state.dealer
        assert log.prevailing_wind == state.prevailing_wind
        assert [(a.seat, a.kind, a.tile) for a in log.actions] == [
            (seat, a.kind.value, None if a.tile is None else int(a.tile))
            for seat, a in state.log
            if a is not None
        ]
        assert [a.ms for a in log.actions] == [700 * (i + 1) for i in range(len(log.actions))]
        assert log.players == tuple(names) and log.escape is None
        assert state.result is not None and log.points == state.result.points
        assert log.coins is None  # a free table
        assert recorded.outcome == state.result.outcome and recorded.winner == state.result.winner


def test_a_stake_hand_log_has_the_coins_the_ledger_moved(world: World) -> None:
    found = [world.store.hand_log(h) for h in world.stake.hand_ids]
    logs = [f.log for f in found if f]
    assert [log.coins for log in logs] == [tuple(c) for c in world.stake.coins]
    escape = logs[1]
    assert escape.escape == world.stake.names[1].index("bob")
    assert found[1] is not None and found[1].result.outcome == "escape"
    # bob had 10 coins left: the escape's 800 took what he had.
    bob_seat = world.stake.names[0].index("bob")
    paid = -sum(c[bob_seat] for c in world.stake.coins[:1])
    assert escape.coins is not None and escape.coins[escape.escape] == -(10 - paid)


def test_the_history_reads_make_valid_protocol_messages(world: World) -> None:
    """Storage returns the protocol's records: each passes the codec's checks as it is."""
    store = world.store
    alice = world.account("alice")
    encode(store.matches_of(alice))
    for match in (world.free, world.stake, world.running):
        stored = store.match_detail(match.match_id, alice)
        assert stored is not None
        encode(stored.detail)
        for hand_id in match.hand_ids:
            found = store.hand_log(hand_id)
            assert found is not None
            encode(found.log)


def first_format_database(path: Path) -> None:
    """A database as the server before migration 5 left it: one finished match of alice
    and three bots, kept in ``match_seat`` with a list of points as standings, its hand
    naming players by lobby seat and keeping the events beside the log."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.create_function("name_skeleton", 1, name_skeleton)
    for script in MIGRATIONS[:4]:
        db.executescript(script)
    db.execute("INSERT INTO schema_version VALUES (4)")
    db.execute(
        "INSERT INTO account (id, name, kind, password_hash, created_at) "
        "VALUES (1, 'alice', 'player', 'x', 0)"
    )
    db.execute("INSERT INTO wallet (account_id, balance) VALUES (1, 10000)")
    db.execute(
        "INSERT INTO match (id, table_name, settings, started_at, ended_at, end_reason, "
        "standings) VALUES (7, 'old', '{\"stake\": 0}', 1.0, 2.0, 'finished', ?)",
        ("[-8, 24, -8, -8]",),
    )
    for seat, name in enumerate(["alice", "bot-1", "bot-2", "bot-3"]):
        db.execute(
            "INSERT INTO match_seat VALUES (7, ?, ?, ?, ?)",
            (seat, 1 if seat == 0 else None, name, int(seat != 0)),
        )
    state = play_hand([make_bot("normal", s) for s in range(4)], b"first-format")
    assert state.result is not None
    result = {
        "outcome": state.result.outcome.value,
        "winner": state.result.winner,
        "points": list(state.result.points),
        "players": [2, 0, 3, 1],  # lobby seats by engine seat
        "total": 0 if state.result.score is None else state.result.score.total,
        "commitment": state.wall.commitment,
    }
    blob = msgpack.packb({"hand": state.to_dict(), "events": []}, use_bin_type=True)
    db.execute(
        "INSERT INTO hand (id, match_id, number, round, hand_number, result, event_log, "
        "played_at) VALUES (70, 7, 1, 1, 1, ?, ?, 1.5)",
        (json.dumps(result), blob),
    )
    db.close()


def test_matches_of_the_first_format_are_in_the_history(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    first_format_database(path)
    with Storage(path) as store:
        (match,) = store.matches_of(1).matches
        assert match.match_id == 7 and match.players == ("alice", "bot-1", "bot-2", "bot-3")
        assert (match.rank, match.points) == (2, -8)
        stored = store.match_detail(7, 1)
        assert stored is not None and stored.detail.standings is not None
        detail = stored.detail
        assert [(s.name, s.rank, s.points) for s in detail.standings] == [
            ("bot-1", 1, 24),
            ("alice", 2, -8),
            ("bot-2", 2, -8),
            ("bot-3", 2, -8),
        ]
        assert detail.hands[0].players == ("bot-2", "alice", "bot-3", "bot-1")
        found = store.hand_log(70)
        assert found is not None and found.log.players == detail.hands[0].players
        assert all(a.ms == 0 for a in found.log.actions)  # no times were kept then
        assert store.may_read(1, 7)


def test_the_history_walks_indexes_never_a_whole_table(world: World) -> None:
    """Every statement the history runs searches by an index or a primary key (so a page
    costs the same with 10,000 matches: bench/history.py measures it)."""
    store = world.store
    alice = world.account("alice")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    try:
        store.matches_of(alice, 1, 20)
        store.match_detail(world.stake.match_id, alice)
        store.hand_log(world.stake.hand_ids[1])
        store.may_read(alice, world.free.match_id)
        store.may_read_hand(alice, world.free.hand_ids[0])
    finally:
        store._db.set_trace_callback(None)
    assert len(set(statements)) >= 10
    for sql in dict.fromkeys(statements):
        plan = [row[-1] for row in store._db.execute(f"EXPLAIN QUERY PLAN {sql}")]
        assert not [step for step in plan if step.startswith("SCAN")], (sql, plan)
