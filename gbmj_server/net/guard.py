"""The game port's limits policy (docs/hosting.md, "Limits"), on ``gbmj_server.limits``.

One object holds every counter the port keeps: connections (in all and per address),
requests per connection, and the throttles of accounts, guests, passwords and tables.
Addresses are counted by ``address_key`` (an IPv6 /64 is one address); the host's own
addresses (``Limits.trusted``: its SSH and web front doors) skip the per-address caps.
"""

from __future__ import annotations

import resource

from gbmj_server.config import Limits
from gbmj_server.limits import Backoff, Counter, TokenBucket, address_key

FILES_SPARE = 64  # open files kept for the database, logs and the host's own needs


def file_limit() -> int:
    """The open-file limit, raised to the hard limit where the system allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class Guard:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.trusted = frozenset(address_key(a) for a in limits.trusted)
        self.max_connections = max(1, min(limits.max_connections, file_limit() - FILES_SPARE))
        self.open = 0
        self.connections = Counter(limits.connections_per_address)
        self.requests = TokenBucket(limits.request_rate, limits.request_burst)
        # Wrong passwords per (name, address): an attacker slows down, the owner elsewhere
        # does not; and per address, looser, for one address guessing many names.
        self.passwords = Backoff(free=5, base=1.0, cap=300.0, forget=3600.0)
        self.password_addresses = Backoff(free=30, base=1.0, cap=300.0, forget=3600.0)
        self.tokens = Backoff(free=10, base=1.0, cap=60.0, forget=600.0)  # bad resume tokens
        self.table_passwords = Backoff(free=5, base=1.0, cap=300.0, forget=3600.0)
        hour = 3600.0
        self.registrations = TokenBucket(
            limits.registrations_per_hour / hour, limits.registrations_per_hour
        )
        self.guests = TokenBucket(limits.guests_per_hour / hour, limits.guests_per_hour)
        self.chat = TokenBucket(limits.chat_lines / 10.0, limits.chat_lines)

    def key(self, address: str) -> str:
        return address_key(address)

    def is_trusted(self, address: str) -> bool:
        return address_key(address) in self.trusted

    def connect(self, address: str) -> str | None:
        """Take a connection slot; the reason it is refused, or None."""
        if self.open >= self.max_connections:
            return "the server is full: try again later"
        key = address_key(address)
        if key not in self.trusted and not self.connections.acquire(key):
            return "too many connections from your address"
        self.open += 1
        return None

    def disconnect(self, address: str) -> None:
        self.open -= 1
        key = address_key(address)
        if key not in self.trusted:
            self.connections.release(key)

    def request(self, connection_id: int, now: float) -> bool:
        """One more request of a connection, within its rate."""
        return self.requests.allow(str(connection_id), now)

    def per_address(self, bucket: TokenBucket, address: str, now: float) -> bool:
        """One more of a per-address allowance (the host's own addresses have no cap)."""
        key = address_key(address)
        return key in self.trusted or bucket.allow(key, now)

    def wait(self, backoff: Backoff, key: str, now: float) -> float:
        return backoff.wait(key, now)
