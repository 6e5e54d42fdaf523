"""``gbmj-server admin export ID [--out FILE]``: a match or a hand from the database to
a replay file (docs/replay-format.md), with the result the server recorded with each
hand (a player's ``gbmj export`` scores the hands by replaying them instead), signed
with the server's key as the server signs what its history tells."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

from gbmj.replay import (
    Replay,
    ReplayId,
    dumps,
    hand_from_log,
    match_from_detail,
    parse_id,
    replay_file,
)
from gbmj.replay.signing import hand_statement, match_statement
from gbmj_server.signing import Signer
from gbmj_server.storage import Storage


class NothingToExport(Exception):
    """No such match or hand, or no ended hand in it; the message says which."""


def stored_replay(store: Storage, target: ReplayId, server: str, signer: Signer) -> Replay:
    """The replay of a match (its ended hands) or of one hand, from the database, signed
    by ``signer``."""
    if target.kind == "hand":
        found = store.hand_log(target.id)
        if found is None and store.hand_log_pruned(target.id):
            raise NothingToExport(f"{target}'s log is no longer kept (hand_log_days)")
        logs = [] if found is None else [found]
        stored = None if found is None else store.match_detail(found.log.match_id)
    else:
        stored = store.match_detail(target.id)
        hand_ids = [] if stored is None else [h.hand_id for h in stored.detail.hands]
        logs = [log for log in map(store.hand_log, hand_ids) if log is not None]
    if stored is None:
        raise NothingToExport(f"no {target} in this database")
    hands = [hand_from_log(found.log, found.result) for found in logs]
    if not hands:
        raise NothingToExport(f"{target} has no ended hand whose log is kept")
    match = match_from_detail(stored.detail)
    match = replace(match, signature=signer.sign(match_statement(match)))
    return replay_file(
        server,
        f"gbmj-server/{version('gbmj')} admin export",
        match,
        [replace(h, signature=signer.sign(hand_statement(match.match_id, h))) for h in hands],
        exported_at=int(time.time()),
        certificate=signer.certificate,
    )


def admin_export(store: Storage, text: str, out: Path | None, server: str, signer: Signer) -> int:
    """The ``admin export`` command; its exit status."""
    try:
        target = parse_id(text)
        replay = stored_replay(store, target, server, signer)
        path = out or Path(target.file_name)
        path.write_text(dumps(replay), "utf-8")
    except (ValueError, NothingToExport, OSError) as exc:
        print(f"export: {exc}", file=sys.stderr)
        return 1
    m = replay.match
    print(f"wrote {path}: match {m.match_id}, {len(replay.hands)} of {m.hands_played} hands")
    return 0
