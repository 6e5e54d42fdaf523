"""Where TLS sits: under the frames. A gbmj server serves TLS on its game port by default
(a plain TCP port only when its host says so); the frames and messages are the same
either way, the first one still ``hello``.

The server's certificate is usually self-signed, so a client trusts it the way SSH
trusts a host key: it pins the certificate's fingerprint on the first connection and
refuses a changed one. Both sides write the fingerprint the same way (``fingerprint``),
so a player can compare the one the client shows with the one the server printed.
"""

from __future__ import annotations

import hashlib

FINGERPRINT_PREFIX = "SHA256:"


def fingerprint(der: bytes) -> str:
    """``SHA256:AB:CD:...``: the SHA-256 of a certificate's DER bytes, in the colon hex
    that ``openssl x509 -noout -fingerprint -sha256`` prints, so a host can check it."""
    return FINGERPRINT_PREFIX + hashlib.sha256(der).digest().hex(":").upper()
