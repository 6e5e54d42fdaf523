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
from gbmj.replay.verify import Trust
from gbmj_server.config import ServerConfig
from gbmj_server.export import stored_replay
from gbmj_server.signing import Signer, load_signer
from gbmj_server.storage import Storage
from gbmj_server.storage.matches import ActionRow


@dataclass
class World:
    path: Path
    store: Storage
    free: RecordedMatch
    stake: RecordedMatch
    running: RecordedMatch
    private: RecordedMatch
    signer: Signer  # the key of the server that kept the matches

    @property
    def trust(self) -> Trust:
        """The server's certificate, trusted as a client that pinned it trusts it."""
        return Trust({self.signer.fingerprint: "the test server"}, "the test's pin")

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
            ActionRow(running.match_id, 2, 0, 1, "deal", None, 0, 90),
            ActionRow(running.match_id, 2, 1, 1, "discard", 27, 3000, 91),
        ]
    )
    private = record_match(
        store, sitters(store, "carol"), b"history-private", public=False, table_name="private"
    )
    signer = load_signer(ServerConfig(db=path))  # the self-signed pair beside the database
    yield World(path, store, free, stake, running, private, signer)
    store.close()


def host_replay(world: World, match: RecordedMatch) -> Replay:
    """The host's export of a match (``gbmj-server admin export``)."""
    target = ReplayId("match", match.match_id)
    return stored_replay(world.store, target, "gbmj-server test", world.signer)


def player_replay(world: World, match: RecordedMatch) -> Replay:
    """A player's export of a match, built from the protocol's messages, signed as the
    server's history handlers sign them, as ``gbmj export`` builds it (the hands scored
    by replaying them)."""
    found = world.store.match_detail(match.match_id)
    assert found is not None
    detail = world.signer.match_detail(found.detail)
    logs = [world.store.hand_log(h.hand_id) for h in found.detail.hands]
    signed = [world.signer.hand_log(f.log, f.result) for f in logs if f is not None]
    return replay_file(
        "gbmj-server/0.1.0 test",
        "gbmj/0.1.0",
        match_from_detail(detail, detail.signature),
        [hand_from_log(log, signature=log.signature) for log in signed],
        certificate=detail.certificate,
    )
