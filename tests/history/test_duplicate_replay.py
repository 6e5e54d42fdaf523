"""A duplicate match's personal-wall hands (docs/rules.md §1.6, §2.14) are recorded,
exported and verified like any other: the four walls, the commitment bound to the
hand's place, each seat's deal and draws from its own wall; a moved tile is caught."""

from __future__ import annotations

import json
from pathlib import Path

from recorder import record_match, sitters

from gbmj.game.duplicate import deals_from_seed
from gbmj.replay import ReplayId, dumps, hand_state, loads, verify_text
from gbmj.replay.verify import Trust
from gbmj_server.config import ServerConfig
from gbmj_server.export import stored_replay
from gbmj_server.signing import load_signer
from gbmj_server.storage import Storage


def test_a_personal_wall_match_exports_replays_and_verifies(tmp_path: Path) -> None:
    path = tmp_path / "gbmj.sqlite3"
    store = Storage(path)
    try:
        deals = deals_from_seed(b"duplicate replay", 5)
        recorded = record_match(store, sitters(store, "dana"), b"unused", deals=deals)
        signer = load_signer(ServerConfig(db=path))
        replay = stored_replay(
            store, ReplayId("match", recorded.match_id), "gbmj-server test", signer
        )
        assert len(replay.hands) == 5
        for hand, state, deal in zip(replay.hands, recorded.states, deals, strict=True):
            assert len(hand.wall.order) == 136
            assert hand.wall.commitment == deal.walls(recorded.match_id, hand.number).commitment
            assert hand_state(hand, match_id=recorded.match_id).snapshot() == state.snapshot()
        trust = Trust({signer.fingerprint: "the test server"}, "the test's pin")
        report = verify_text(dumps(replay), trust)
        assert report.ok, report.text()
        checked = {c.what for c in report.checks if c.where.startswith("hand 1 ")}
        assert {"wall", "commitment", "dice", "deal", "draws", "actions", "result"} <= checked
        assert any("own wall" in c.detail for c in report.checks if c.what == "draws")

        # Two tiles of seat 0's wall swapped (re-signing would not help: the commitment).
        data = json.loads(dumps(replay))
        order = data["hands"][0]["wall"]["order"]
        i = next(i for i in range(1, 34) if order[i] != order[0])
        order[0], order[i] = order[i], order[0]
        bad = verify_text(json.dumps(data), trust)
        assert not bad.ok
        assert "hand 1" in bad.text()
        assert loads(json.dumps(data)).hands[0].wall.order[0] != replay.hands[0].wall.order[0]
    finally:
        store.close()
