"""Password hashing: argon2id through argon2-cffi; the password itself is never stored.

Hashing is deliberately slow (tens of milliseconds): the server calls these functions in
a worker thread with its own capacity limiter, never on the trio loop.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_HASHER = PasswordHasher()  # argon2id with the library's current recommended costs


def hash_password(password: str) -> str:
    """The argon2id hash (PHC string, salt included) of ``password``."""
    return _HASHER.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """True if ``password`` matches ``password_hash``; a malformed hash never matches."""
    try:
        return _HASHER.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True if the hash was made with weaker parameters than today's defaults."""
    return _HASHER.check_needs_rehash(password_hash)
