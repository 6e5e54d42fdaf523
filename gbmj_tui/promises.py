"""The commitments this client was shown before each deal, kept for ``gbmj verify``.

A server announces each hand's wall commitment before the deal (docs/rules.md §1.1).
The client keeps what it was shown, one line a hand, in a small file beside its
settings (``commitments``): the server (``host:port``, as the known-servers file names
it), the fingerprint of its certificate (``-`` over plain TCP), the match id, the hand's
number in the match and the commitment, written when the hand's result comes (which
names the match). A file is matched to the lines of its server by either: the
certificate that signed it, or the server named. ``gbmj verify`` then says, for each hand
of a file from that server, whether its wall is the one this player was promised, which
a server's signature alone cannot say.

The file stays small: past ``MAX_BYTES`` the oldest half of its lines goes.
"""

from __future__ import annotations

import os
from pathlib import Path

from gbmj_tui.config import config_path

COMMITMENTS_NAME = "commitments"
MAX_BYTES = 512 * 1024  # about 2,700 hands (TLS): the last few hundred matches
HEADER = (
    "# gbmj: the wall commitments this client was shown before each deal, for gbmj verify.\n"
    "# One line a hand: server certificate-fingerprint match-id hand-number commitment.\n"
)


def commitments_path(settings: Path | None = None) -> Path:
    """The file, beside the client's settings (``settings``: the settings file used)."""
    return (settings or config_path()).parent / COMMITMENTS_NAME


def keep(
    path: Path, server: str, certificate: str | None, match_id: int, number: int, commitment: str
) -> None:
    """Add a hand's line (``certificate``: the server's pinned fingerprint, None over
    plain TCP); past ``MAX_BYTES`` keep only the newest half of the lines. ``OSError``
    if the file cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = f"{server} {certificate or '-'} {match_id} {number} {commitment}\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        if out.tell() == 0:
            out.write(HEADER)
        out.write(line)
        size = out.tell()
    if size > MAX_BYTES:
        lines = [x for x in _read(path).splitlines(keepends=True) if not x.startswith("#")]
        aside = path.with_name(path.name + ".new")
        aside.write_text(HEADER + "".join(lines[len(lines) // 2 :]), "utf-8")
        os.replace(aside, path)


def kept(
    path: Path, servers: set[str], certificate: str | None = None
) -> dict[tuple[int, int], str]:
    """(match id, hand number) -> the commitment this client was shown, for hands of
    ``servers`` or of the server whose certificate has the fingerprint ``certificate``;
    the latest line of a hand wins, lines that are not five fields are left alone."""
    found: dict[tuple[int, int], str] = {}
    for line in _read(path).splitlines():
        fields = line.split()
        if len(fields) != 5 or line.startswith("#"):
            continue
        server, pinned, match_id, number, commitment = fields
        if server not in servers and (certificate is None or pinned.upper() != certificate):
            continue
        if match_id.isdigit() and number.isdigit():
            found[int(match_id), int(number)] = commitment.lower()
    return found


def _read(path: Path) -> str:
    """The file's text, at most twice ``MAX_BYTES`` of it (never more is written)."""
    try:
        with path.open("rb") as f:
            return f.read(2 * MAX_BYTES).decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
