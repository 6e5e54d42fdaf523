"""The shared limits policy (gbmj_server.limits): address keys, token buckets, backoff
on failures and concurrent holds, driven by an explicit clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gbmj_server.limits import Backoff, Counter, TokenBucket, address_key


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # IPv4-mapped: the IPv4 address
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::FFFF", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next /64 is another address
        ("fe80::1%eth0", "fe80::/64"),
        ("::1", "::/64"),
        ("?", "?"),
        ("not an address", "not an address"),
    ],
)
def test_address_key_counts_ipv4_as_is_and_ipv6_by_its_64_prefix(address: str, key: str) -> None:
    assert address_key(address) == key


def test_a_whole_ipv6_64_is_one_address_for_a_limit() -> None:
    bucket = TokenBucket(rate=1.0, burst=2)
    hosts = [f"2001:db8:0:7::{n:x}" for n in range(1, 6)]
    allowed = [bucket.allow(address_key(h), now=0.0) for h in hosts]
    assert allowed == [True, True, False, False, False]
    assert bucket.allow(address_key("2001:db8:0:8::1"), now=0.0)  # another /64


def test_token_bucket_allows_the_burst_then_the_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.allow("a", 0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.allow("b", 0.0)  # keys are separate
    assert not bucket.allow("a", 0.4)  # 0.8 of a token back
    assert bucket.allow("a", 0.5)  # one token back
    assert not bucket.allow("a", 0.5)
    # At most the burst saved up, however long it waited.
    assert [bucket.allow("a", 100.0) for _ in range(4)] == [True, True, True, False]


def test_token_bucket_costs_and_a_refusal_costs_nothing() -> None:
    bucket = TokenBucket(rate=1.0, burst=5)
    assert bucket.allow("a", 0.0, cost=4)
    assert not bucket.allow("a", 0.0, cost=2)  # one left: refused, still one left
    assert bucket.allow("a", 0.0, cost=1)
    assert not bucket.allow("a", 0.0)


def test_token_bucket_prunes_full_buckets_and_stays_bounded_under_a_flood() -> None:
    bucket = TokenBucket(rate=1.0, burst=2, max_keys=100)
    for n in range(100):
        bucket.allow(f"old-{n}", 0.0)
    # Much later every old bucket is full again: it carries nothing and goes first.
    assert bucket.allow("new", 10.0)
    assert len(bucket) == 1
    for n in range(10_000):  # a flood of fresh keys at one instant
        bucket.allow(f"flood-{n}", 20.0)
        assert len(bucket) <= 100
    # The flood evicts the least recently seen, never the one just used.
    bucket.allow("hot", 20.0)
    bucket.allow("hot", 20.0)
    assert not bucket.allow("hot", 20.0)


def test_backoff_is_free_then_doubles_up_to_its_cap() -> None:
    backoff = Backoff(free=3, base=1.0, cap=8.0, forget=600.0)
    now = 0.0
    for _ in range(3):
        assert backoff.wait("k", now) == 0
        backoff.failed("k", now)
    assert backoff.wait("k", now) == 0  # three free failures
    waits = []
    for _ in range(6):
        backoff.failed("k", now)
        waits.append(backoff.wait("k", now))
        now += waits[-1]  # try again the moment it is allowed
        assert backoff.wait("k", now) == 0
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_backoff_wait_counts_down_and_keys_are_separate() -> None:
    backoff = Backoff(free=0, base=10.0, cap=60.0, forget=600.0)
    key = "alice 192.0.2.1"  # a (name, address) pair, as the password checks use it
    backoff.failed(key, 100.0)
    assert backoff.wait(key, 100.0) == 10.0
    assert backoff.wait(key, 104.0) == 6.0
    assert backoff.wait(key, 110.0) == 0
    assert backoff.wait("alice 198.51.100.9", 100.0) == 0  # the owner elsewhere


def test_backoff_forgets_after_quiet_and_a_success_clears_at_once() -> None:
    backoff = Backoff(free=1, base=5.0, cap=5.0, forget=60.0)
    backoff.failed("k", 0.0)
    backoff.failed("k", 0.0)
    assert backoff.wait("k", 1.0) == 4.0
    backoff.failed("k", 30.0)  # the forget clock runs from the last failure
    assert backoff.wait("k", 89.0) == 0  # the wait is over, the record still there
    backoff.failed("k", 89.0)
    assert backoff.wait("k", 89.0) == 5.0  # fourth in a row
    assert backoff.wait("k", 149.0) == 0
    backoff.failed("k", 149.0)  # forgotten by then: the first again, free
    assert backoff.wait("k", 149.0) == 0
    backoff.failed("k", 149.0)
    assert backoff.wait("k", 149.0) == 5.0
    backoff.succeeded("k")
    assert backoff.wait("k", 149.0) == 0
    assert len(backoff) == 0


def test_backoff_prunes_forgotten_keys_and_stays_bounded() -> None:
    backoff = Backoff(free=0, base=1.0, cap=4.0, forget=60.0, max_keys=50)
    for n in range(50):
        backoff.failed(f"old-{n}", 0.0)
    backoff.failed("new", 100.0)  # every old record is forgotten by now
    assert len(backoff) == 1
    for n in range(5000):
        backoff.failed(f"flood-{n}", 200.0)
        assert len(backoff) <= 50


@given(st.lists(st.tuples(st.sampled_from("abc"), st.floats(0, 50)), max_size=60))
def test_backoff_never_waits_longer_than_its_cap(events: list[tuple[str, float]]) -> None:
    backoff = Backoff(free=2, base=0.5, cap=3.0, forget=20.0)
    now = 0.0
    for key, step in events:
        now += step
        backoff.failed(key, now)
        assert 0 <= backoff.wait(key, now) <= 3.0


def test_counter_caps_holds_per_key_and_forgets_empty_keys() -> None:
    counter = Counter(cap=2)
    assert counter.acquire("a") and counter.acquire("a")
    assert not counter.acquire("a")
    assert counter.acquire("b")
    assert counter.held("a") == 2
    counter.release("a")
    assert counter.acquire("a")
    counter.release("a")
    counter.release("a")
    counter.release("b")
    assert len(counter) == 0
    with pytest.raises(ValueError, match="holds nothing"):
        counter.release("a")


@pytest.mark.parametrize(
    "make",
    [
        lambda: TokenBucket(rate=0, burst=1),
        lambda: TokenBucket(rate=1, burst=0),
        lambda: Backoff(free=-1, base=1, cap=2, forget=1),
        lambda: Backoff(free=0, base=2, cap=1, forget=1),
        lambda: Counter(cap=0),
    ],
)
def test_nonsense_settings_are_refused(make) -> None:
    with pytest.raises(ValueError):
        make()
