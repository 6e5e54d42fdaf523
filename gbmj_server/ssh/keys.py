"""The SSH public keys a player added to their account (table ``ssh_key``, migration 3).

Synchronous, like ``Storage``: the game server calls these through its database thread
(``AsyncStorage.call``), the SSH server from its own thread on its own connection. A key
is stored as its OpenSSH line without the comment and found by its SHA-256 fingerprint.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import asyncssh

from gbmj_server.storage import Storage, StorageError
from protocol.messages import MAX_SSH_KEYS as MAX_KEYS  # per account

MAX_COMMENT = 60  # the wire's SshKeyInfo.comment


class BadKey(StorageError):
    """A key line that cannot be used (unreadable, already added, too many)."""


@dataclass(frozen=True, slots=True)
class SshKey:
    fingerprint: str  # "SHA256:..."
    algorithm: str  # "ssh-ed25519", "ssh-rsa"...
    comment: str


def parse_key(line: str) -> tuple[asyncssh.SSHKey, str]:
    """The public key in an OpenSSH line (``ssh-ed25519 AAAA... comment``) and its comment;
    ``BadKey`` if it is not one."""
    try:
        key = asyncssh.import_public_key(line.strip())
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise BadKey(f"not an OpenSSH public key line: {exc}") from None
    comment = "".join(c for c in key.get_comment() or "" if c.isprintable())
    return key, comment[:MAX_COMMENT]


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def list_keys(storage: Storage, account_id: int) -> list[SshKey]:
    rows = storage._db.execute(
        "SELECT fingerprint, public_key, comment FROM ssh_key WHERE account_id = ? "
        "ORDER BY added_at",
        (account_id,),
    ).fetchall()
    return [SshKey(r[0], r[1].split(" ", 1)[0], r[2]) for r in rows]


def add_key(storage: Storage, account_id: int, line: str) -> SshKey:
    """Add the key of an OpenSSH public key line to the account."""
    key, comment = parse_key(line)
    print_ = fingerprint(key)
    # Stored without its comment: the comment is kept apart and shown, never trusted.
    stored = key.export_public_key("openssh").decode().split()[:2]
    with storage._write() as db:  # the store's own transaction helper: one write, whole
        count = db.execute(
            "SELECT count(*) FROM ssh_key WHERE account_id = ?", (account_id,)
        ).fetchone()[0]
        if count >= MAX_KEYS:
            raise BadKey(f"at most {MAX_KEYS} keys per account")
        if db.execute(
            "SELECT 1 FROM ssh_key WHERE account_id = ? AND fingerprint = ?",
            (account_id, print_),
        ).fetchone():
            raise BadKey("this key is already added")
        db.execute(
            "INSERT INTO ssh_key (account_id, fingerprint, public_key, comment, added_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (account_id, print_, " ".join(stored), comment, time.time()),
        )
    return SshKey(print_, stored[0], comment)


def remove_key(storage: Storage, account_id: int, key_fingerprint: str) -> bool:
    """Remove a key by its fingerprint; False if the account has no such key."""
    with storage._write() as db:
        cur = db.execute(
            "DELETE FROM ssh_key WHERE account_id = ? AND fingerprint = ?",
            (account_id, key_fingerprint),
        )
    return cur.rowcount > 0


def has_key(storage: Storage, account_id: int, key: asyncssh.SSHKey) -> bool:
    """True if ``key`` is one the account added (same fingerprint and same key data)."""
    row = storage._db.execute(
        "SELECT public_key FROM ssh_key WHERE account_id = ? AND fingerprint = ?",
        (account_id, fingerprint(key)),
    ).fetchone()
    if row is None:
        return False
    stored: str = row[0]
    return stored.split() == key.export_public_key("openssh").decode().split()[:2]
