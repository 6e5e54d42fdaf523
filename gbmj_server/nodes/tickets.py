"""Redirect tickets: a node that does not hold a table sends the player to the node
that does with a ticket, so the player does not sign in again there.

A ticket names the account and the table, runs out after ``TICKET_TTL`` seconds and is
signed with HMAC-SHA256 under the key every node reads from the database
(``Storage.ticket_key``); its random nonce is written when it is redeemed, so it is
good once (``Storage.use_ticket``). Nothing secret is in it: only the signature makes
it worth anything, and only for a moment.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

TICKET_TTL = 30.0  # seconds a ticket is good for


class TicketRefused(Exception):
    """Not a ticket of this server, or run out."""


@dataclass(frozen=True, slots=True)
class Ticket:
    account_id: int
    table_id: int
    expires_at: float
    nonce: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(key: bytes, body: str) -> str:
    return _b64(hmac.new(key, body.encode(), hashlib.sha256).digest())


def make_ticket(key: bytes, account_id: int, table_id: int, now: float) -> str:
    """A ticket for ``account_id`` to ``table_id``, good until ``now + TICKET_TTL``."""
    fields: dict[str, object] = {"a": account_id, "t": table_id, "e": round(now + TICKET_TTL, 3)}
    fields["n"] = secrets.token_urlsafe(12)
    body = _b64(json.dumps(fields, separators=(",", ":")).encode())
    return f"{body}.{_sign(key, body)}"


def read_ticket(key: bytes, ticket: str, now: float) -> Ticket:
    """What a ticket says, if signed with ``key`` and not run out; ``TicketRefused``."""
    body, _, signature = ticket.partition(".")
    if not hmac.compare_digest(signature.encode(), _sign(key, body).encode()):
        raise TicketRefused("not a ticket of this server")
    try:
        fields = json.loads(_unb64(body))
        read = Ticket(int(fields["a"]), int(fields["t"]), float(fields["e"]), str(fields["n"]))
    except (ValueError, KeyError, TypeError):
        raise TicketRefused("not a ticket of this server") from None
    if now > read.expires_at:
        raise TicketRefused("the ticket ran out: sign in again")
    return read
