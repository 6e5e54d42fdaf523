"""Replay files: a match or a hand in a documented, versioned JSON format
(docs/replay-format.md) that anyone can replay and check without a server.

- ``format``: the file's records, ``dumps`` and ``loads``;
- ``build``: files from what a server tells (``match_detail``, ``hand_log``), and a
  file's hand replayed with the rules (``hand_state``);
- ``signing``: what the server signs of a match and of each hand (the statements), and
  the check of a signature against the file's certificate;
- ``verify``: every check of a file, as a ``Report``: signed by a server the reader
  trusts (``Trust``), each hand bound to its match, the rules, and the commitments the
  reader's client kept (``Promises``).

Pure like the rest of ``gbmj``: text in, text out; reading and writing files is the
caller's (``gbmj verify``, ``gbmj export``, ``gbmj-server admin export``).
"""

from .build import (
    ReplayId,
    hand_from_log,
    hand_state,
    match_from_detail,
    parse_id,
    replay_file,
    result_of,
    steps_of,
)
from .format import (
    FORMAT,
    VERSION,
    Replay,
    ReplayFormatError,
    ReplayHand,
    ReplayResult,
    dumps,
    loads,
)
from .verify import Check, Promises, Report, Trust, verify, verify_text

__all__ = [
    "FORMAT",
    "VERSION",
    "Check",
    "Promises",
    "Replay",
    "ReplayFormatError",
    "ReplayHand",
    "ReplayId",
    "ReplayResult",
    "Report",
    "Trust",
    "dumps",
    "hand_from_log",
    "hand_state",
    "loads",
    "match_from_detail",
    "parse_id",
    "replay_file",
    "result_of",
    "steps_of",
    "verify",
    "verify_text",
]
