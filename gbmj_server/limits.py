"""One limits policy for every front door (the game port, SSH, the web page).

Pure: no clock and no event loop here. Every method takes ``now`` (seconds, from the
caller's clock), so trio's ``MockClock``, asyncio's loop time and ``time.monotonic`` all
drive it. Memory is bounded: each table keeps at most ``max_keys`` keys; when it is full,
the least recently seen records that carry no information any more (a full bucket, a
forgotten failure) are pruned, and if a flood of fresh keys still fills it, the least
recently seen key goes. A
dropped key starts again from nothing, which only ever errs towards letting one key in.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")

MAX_KEYS = 10_000  # keys a table remembers before it prunes and then evicts
IPV6_PREFIX = 64  # one IPv6 /64 is one subscriber: it counts as one address


def address_key(address: str) -> str:
    """The key an address is counted under: an IPv4 address as is (also when written as
    an IPv4-mapped IPv6 address), an IPv6 address as its /64 network. Anything that is no
    IP address (a Unix socket's name, "?") is its own key."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone (fe80::1%eth0)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


class _Table(Generic[V]):
    """Per-key records in least-recently-seen order, at most ``max_keys`` of them."""

    def __init__(self, max_keys: int) -> None:
        if max_keys < 1:
            raise ValueError("max_keys must be at least 1")
        self.max_keys = max_keys
        self.records: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str) -> V | None:
        return self.records.get(key)

    def put(self, key: str, value: V, stale: Callable[[V], bool]) -> None:
        """Store ``value`` as the most recent; make room first if the table is full
        (``stale(record) -> bool`` says which records can go without losing anything)."""
        records = self.records
        if key not in records and len(records) >= self.max_keys:
            # Oldest first: the least recently seen are the likeliest stale, so this
            # stops at the first live one (constant work per insert, amortised).
            while records and stale(next(iter(records.values()))):
                records.popitem(last=False)
            if len(records) >= self.max_keys:
                records.popitem(last=False)
        records[key] = value
        records.move_to_end(key)

    def drop(self, key: str) -> None:
        self.records.pop(key, None)

    def __len__(self) -> int:
        return len(self.records)


@dataclass(frozen=True, slots=True)
class _Bucket:
    tokens: float
    at: float


class TokenBucket:
    """``rate`` tokens a second per key, at most ``burst`` saved up; each request costs
    ``cost`` tokens and is refused (costing nothing) when the key has fewer."""

    def __init__(self, rate: float, burst: float, max_keys: int = MAX_KEYS) -> None:
        if rate <= 0 or burst <= 0:
            raise ValueError("rate and burst must be positive")
        self.rate = rate
        self.burst = burst
        self._table: _Table[_Bucket] = _Table(max_keys)

    def _tokens(self, bucket: _Bucket | None, now: float) -> float:
        if bucket is None:
            return self.burst
        return min(self.burst, bucket.tokens + max(0.0, now - bucket.at) * self.rate)

    def allow(self, key: str, now: float, cost: float = 1) -> bool:
        tokens = self._tokens(self._table.get(key), now)
        if tokens < cost:
            return False
        self._table.put(
            key, _Bucket(tokens - cost, now), lambda b: self._tokens(b, now) >= self.burst
        )
        return True

    def forget(self, key: str) -> None:
        """``key`` is gone for good (a closed connection's bucket)."""
        self._table.drop(key)

    def __len__(self) -> int:
        return len(self._table)


@dataclass(frozen=True, slots=True)
class _Failures:
    count: int
    last: float


class Backoff:
    """Failed attempts per key. The first ``free`` failures cost nothing; each further one
    doubles a wait, from ``base`` up to ``cap`` seconds, counted from that failure, during
    which the key may not try. ``forget`` seconds after its last failure a key starts
    afresh; a success clears it at once."""

    def __init__(
        self, free: int, base: float, cap: float, forget: float, max_keys: int = MAX_KEYS
    ) -> None:
        if free < 0 or base <= 0 or cap < base or forget <= 0:
            raise ValueError("need free >= 0, 0 < base <= cap and forget > 0")
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = forget
        self._table: _Table[_Failures] = _Table(max_keys)

    def _live(self, key: str, now: float) -> _Failures | None:
        record = self._table.get(key)
        if record is not None and now - record.last >= self.forget:
            self._table.drop(key)
            return None
        return record

    def delay(self, failures: int) -> float:
        """The wait that the ``failures``-th failure in a row imposes."""
        over = failures - self.free
        if over <= 0:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(over - 1, 64))

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: it may try now)."""
        record = self._live(key, now)
        if record is None:
            return 0.0
        delay = self.delay(record.count)
        # clamped: ``last + delay - now`` may round a hair above the delay itself
        return min(delay, max(0.0, record.last + delay - now))

    def failures(self, key: str, now: float) -> int:
        """The failures of ``key`` not forgotten yet."""
        record = self._live(key, now)
        return 0 if record is None else record.count

    def failed(self, key: str, now: float) -> None:
        record = self._live(key, now)
        count = 1 if record is None else record.count + 1
        self._table.put(key, _Failures(count, now), lambda r: now - r.last >= self.forget)

    def succeeded(self, key: str) -> None:
        self._table.drop(key)

    def __len__(self) -> int:
        return len(self._table)


class Counter:
    """Things held at once per key (connections, sessions of one address), at most
    ``cap`` each. Only keys holding something are kept, so memory follows the holds."""

    def __init__(self, cap: int) -> None:
        if cap < 1:
            raise ValueError("cap must be at least 1")
        self.cap = cap
        self._held: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        """Take one hold for ``key``; False (nothing taken) when it holds ``cap``."""
        held = self._held.get(key, 0)
        if held >= self.cap:
            return False
        self._held[key] = held + 1
        return True

    def release(self, key: str) -> None:
        """Give one hold back (a key holding nothing is a mistake of the caller)."""
        held = self._held.get(key, 0)
        if held <= 0:
            raise ValueError(f"release of {key!r}, which holds nothing")
        if held == 1:
            del self._held[key]
        else:
            self._held[key] = held - 1

    def held(self, key: str) -> int:
        return self._held.get(key, 0)

    def __len__(self) -> int:
        return len(self._held)
