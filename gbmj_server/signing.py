"""The server's signature on what it tells of a match for a replay file
(docs/replay-format.md, "The signature"; the statements are ``gbmj.replay.signing``'s).

The key is the TLS certificate's (``gbmj_server.tls``): the certificate the clients pin
vouches for the files too, and its fingerprint, printed at start, names the server a
file came from. A server that serves plain TCP still signs: with the self-signed
certificate next to its database (made on first start as a TLS server would make it),
whose fingerprint it prints at start for its players to check files with
(``gbmj verify --key``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gbmj.replay import ReplayResult, hand_from_log, match_from_detail
from gbmj.replay.signing import hand_statement, match_statement
from gbmj_server.config import ServerConfig
from gbmj_server.tls import CERT_NAME, KEY_NAME, TlsError, make_self_signed
from protocol import messages as m
from protocol.tls import fingerprint


@dataclass(frozen=True, slots=True)
class Signer:
    """The key that signs, and the certificate that names it."""

    key: Any  # a private key of ``cryptography``: EC, RSA, Ed25519 or Ed448
    certificate: str  # base64 DER, as files and ``match_detail`` carry it
    fingerprint: str  # of the certificate, as ``protocol.tls`` writes it
    cert: Path

    @property
    def banner(self) -> str:
        """The line printed at start."""
        return f"replays: signed with certificate {self.fingerprint} ({self.cert})"

    def sign(self, statement: bytes) -> str:
        """The base64 signature of ``statement`` (``gbmj.replay.signing.signed`` checks
        it): ECDSA or RSA (PKCS #1 v1.5) with SHA-256, or Ed25519/Ed448."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

        key = self.key
        if isinstance(key, ec.EllipticCurvePrivateKey):
            raw = key.sign(statement, ec.ECDSA(hashes.SHA256()))
        elif isinstance(key, rsa.RSAPrivateKey):
            raw = key.sign(statement, padding.PKCS1v15(), hashes.SHA256())
        else:
            raw = key.sign(statement)
        return base64.b64encode(raw).decode("ascii")

    def match_detail(self, detail: m.MatchDetail) -> m.MatchDetail:
        """``detail`` with the certificate and the signature of the match's record."""
        signature = self.sign(match_statement(match_from_detail(detail)))
        return replace(detail, certificate=self.certificate, signature=signature)

    def hand_log(self, log: m.HandLog, recorded: ReplayResult) -> m.HandLog:
        """``log`` with the signature of the hand's record (``recorded``: the result the
        server recorded with the hand, which saves replaying it)."""
        hand = hand_from_log(log, recorded)
        return replace(log, signature=self.sign(hand_statement(log.match_id, hand)))


SIGNING_KEYS = ("ec", "rsa", "ed25519", "ed448")


def load_signer(config: ServerConfig) -> Signer:
    """The signer of this server: the host's own TLS certificate and key if the config
    names them, else the self-signed pair next to the database (made if missing, even
    for a plain TCP server). ``TlsError`` if they cannot be read or made, or the key
    cannot sign."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import Encoding, load_pem_private_key

    if config.tls_cert is not None and config.tls_key is not None:
        cert, key_path = config.tls_cert, config.tls_key
    else:
        cert, key_path = config.db_path.parent / CERT_NAME, config.db_path.parent / KEY_NAME
        if not cert.exists():
            make_self_signed(cert, key_path)
    try:
        certificate = x509.load_pem_x509_certificates(cert.read_bytes())[0]
        key = load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise TlsError(f"cannot sign replays with {cert} and {key_path}: {exc}") from None
    kinds = (
        ec.EllipticCurvePrivateKey,
        rsa.RSAPrivateKey,
        ed25519.Ed25519PrivateKey,
        ed448.Ed448PrivateKey,
    )
    if not isinstance(key, kinds):
        raise TlsError(f"the key {key_path} cannot sign replays (one of {', '.join(SIGNING_KEYS)})")
    der = certificate.public_bytes(Encoding.DER)
    text = base64.b64encode(der).decode("ascii")
    if len(text) > m.CERTIFICATE.max_len:
        raise TlsError(
            f"the certificate {cert} is too long to travel with replays "
            f"({len(text)} base64 characters, at most {m.CERTIFICATE.max_len})"
        )
    return Signer(key, text, fingerprint(der), cert)
