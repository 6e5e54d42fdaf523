"""One database of recorded matches, shared (read only) by the history tests.

- ``free``: alice, bob and two bots at a free, public table; finished.
- ``stake``: alice, bob (left with 10 coins, so he pays short) and two bots at a stake-10
  private table; bob escapes in hand 2 and a bot takes his seat; finished.
- ``running``: carol and three bots at a public table: hand 1 settled, hand 2 in play.
- ``private``: carol and three bots at a private free table; finished.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from recorder import RecordedMatch, record_match, sitters

from gbmj.replay import Replay, ReplayId, hand_from_log, match_from_detail, replay_file
from gbmj_server.export import stored_replay
from gbmj_server.handlers.history import detail as to_detail
from gbmj_server.handlers.history import hand_log as to_hand_log
from gbmj_server.storage import Storage
from gbmj_server.storage.matches import ActionDone


@dataclass
class World:
    path: Path
    store: Storage
    free: RecordedMatch
    stake: RecordedMatch
    running: RecordedMatch
    private: RecordedMatch

    def account(self, name: str) -> int:
        account = self.store.account_by_name(name)
        assert account is not None
        return account.id


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    path = tmp_path_factory.mktemp("history") / "gbmj.sqlite3"
    store = Storage(path)
    free = record_match(store, sitters(store, "alice", "bob"), b"history-free", table_name="free")
    store.admin_adjust("bob", -9990)
    stake = record_match(
        store,
        sitters(store, "alice", "bob"),
        b"history-stake",
        stake=10,
        escape=(2, 12, 1),
        table_name="stake",
    )
    running = record_match(
        store, sitters(store, "carol"), b"history-running", public=True, stop_after=1
    )
    # Hand 2 is in play: its deal and first actions are written ahead, not settled.
    store.journal(
        [
            ActionDone(running.match_id, 2, 0, 1, "deal", None, 0, 90),
            ActionDone(running.match_id, 2, 1, 1, "discard", 27, 3000, 91),
        ]
    )
    private = record_match(
        store, sitters(store, "carol"), b"history-private", public=False, table_name="private"
    )
    yield World(path, store, free, stake, running, private)
    store.close()


def host_replay(world: World, match: RecordedMatch) -> Replay:
    """The host's export of a match (``gbmj-server admin export``)."""
    return stored_replay(world.store, ReplayId("match", match.match_id), "gbmj-server test")


def player_replay(world: World, match: RecordedMatch) -> Replay:
    """A player's export of a match, built from the protocol's messages as
    ``gbmj export`` builds it (the hands scored by replaying them)."""
    detail = world.store.match_detail(match.match_id)
    assert detail is not None
    logs = [world.store.hand_log(h.hand_id) for h in detail.hands]
    return replay_file(
        "gbmj-server/0.1.0 test",
        "gbmj/0.1.0",
        match_from_detail(to_detail(detail)),
        [hand_from_log(to_hand_log(log)) for log in logs if log is not None],
    )
