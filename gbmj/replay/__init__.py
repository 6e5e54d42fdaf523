"""Replay files: a match or a hand in a documented, versioned JSON format
(docs/replay-format.md) that anyone can replay and check without a server.

- ``format``: the file's records, ``dumps`` and ``loads``;
- ``build``: files from what a server tells (``match_detail``, ``hand_log``), and a
  file's hand replayed with the rules (``hand_state``);
- ``verify``: every check of a file, as a ``Report``.

Pure like the rest of ``gbmj``: text in, text out; reading and writing files is the
caller's (``gbmj verify``, ``gbmj export``, ``gbmj-server admin export``).
"""

from .build import (
    ReplayId,
    hand_from_log,
    hand_state,
    match_from_detail,
    parse_id,
    recorded_result,
    replay_file,
    result_of,
    steps_of,
)
from .format import FORMAT, VERSION, Replay, ReplayFormatError, ReplayHand, dumps, loads
from .verify import Check, Report, verify, verify_text

__all__ = [
    "FORMAT",
    "VERSION",
    "Check",
    "Replay",
    "ReplayFormatError",
    "ReplayHand",
    "ReplayId",
    "Report",
    "dumps",
    "hand_from_log",
    "hand_state",
    "loads",
    "match_from_detail",
    "parse_id",
    "recorded_result",
    "replay_file",
    "result_of",
    "steps_of",
    "verify",
    "verify_text",
]
