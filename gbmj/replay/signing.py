"""The server's signature on a replay file (docs/replay-format.md, "The signature").

A file proves nothing by being consistent with itself: anyone can write a consistent
file. What vouches for it is the server's signature: the server signs each record it
sends for a replay (the match's, ``match_detail``; each hand's, ``hand_log``) with the
key of its certificate, whose fingerprint it prints at start and its clients pin
(``protocol.tls``). The file carries the certificate and the signatures, so it is
checked with nothing but the file and the fingerprint one trusts.

What is signed is a *statement*: a label and the record's fields in canonical JSON
(keys sorted, no spaces, ASCII). A hand's statement names its match's id, so a hand
signed for one match does not pass in another's file; it leaves out what the rules
derive from the hand (the outcome, the fans, their total): ``verify`` scores those
again. The server writes statements with the same functions (``match_statement``,
``hand_statement``), from the same records.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa

from protocol.tls import fingerprint

from .format import ReplayHand, ReplayMatch

MATCH_LABEL = b"gbmj replay match v1\n"
HAND_LABEL = b"gbmj replay hand v1\n"
# What the rules derive from a hand's wall and actions: not signed, scored again instead.
DERIVED = ("outcome", "winner", "from_seat", "win_tile", "fans", "total")


class BadCertificate(ValueError):
    """The file's certificate is not one a signature can be checked with."""


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def match_statement(match: ReplayMatch) -> bytes:
    """What the server signs for a match: its record (standings, stake, hands played…)."""
    wire = match.to_wire("match")
    wire.pop("signature", None)
    return MATCH_LABEL + _canonical(wire)


def hand_statement(match_id: int, hand: ReplayHand) -> bytes:
    """What the server signs for a hand of match ``match_id``: the hand's record (the
    wall, the actions, the escape, the points and coins) without what the rules derive."""
    wire = hand.to_wire("hand")
    wire.pop("signature", None)
    result = wire["result"]
    for name in DERIVED:
        result.pop(name, None)
    return HAND_LABEL + _canonical({"match_id": match_id, "hand": wire})


def certificate_of(text: str) -> tuple[x509.Certificate, str]:
    """The certificate in base64 DER and its fingerprint; ``BadCertificate`` if it is
    not one."""
    try:
        der = base64.b64decode(text, validate=True)
        return x509.load_der_x509_certificate(der), fingerprint(der)
    except (binascii.Error, ValueError) as exc:
        raise BadCertificate(f"the file's certificate is not a certificate ({exc})") from None


def signed(certificate: x509.Certificate, statement: bytes, signature: str | None) -> bool:
    """Whether ``signature`` (base64) is the certificate's key's signature of
    ``statement``: ECDSA or RSA (PKCS #1 v1.5) with SHA-256, or Ed25519/Ed448."""
    if signature is None:
        return False
    try:
        raw = base64.b64decode(signature, validate=True)
        key = certificate.public_key()
        if isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(raw, statement, ec.ECDSA(hashes.SHA256()))
        elif isinstance(key, rsa.RSAPublicKey):
            key.verify(raw, statement, padding.PKCS1v15(), hashes.SHA256())
        elif isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
            key.verify(raw, statement)
        else:
            return False
    except (binascii.Error, ValueError, InvalidSignature, UnsupportedAlgorithm):
        return False
    return True
