"""A cheap bound on readiness, so callers (the game engine) run ``shapes.is_complete``
less often.

``may_be_ready(counts, melds)`` is a *necessary* condition for a 13-tile hand to be ready
(one tile from complete): when it says False, no tile completes the hand, so the game
engine skips the exact check for every discard until the hand changes. It never decides
a win; ``shapes.is_complete`` and the calculator do.

Why it holds: in a complete regular hand every tile sits in a set or the pair. A single
tile of the 13 with no copy and no tile of its suit within two ranks (an *isolated*
tile) can only be completed by the winning tile itself, as a pair; so a ready regular
hand has at most one isolated tile. The other shapes need: seven pairs — no melds and
six pairs already; thirteen orphans — no melds and only terminals and honors; honors and
knitted tiles — no melds and no tile twice; knitted straight — at most one meld and eight
of the nine knitted tiles.

The bound is computed per suit from a memo keyed by the suit's nine counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

_SuitFacts = tuple[int, int, int, int, tuple[int, int, int]]
_MEMO: dict[tuple[int, ...], _SuitFacts] = {}
_MEMO_LIMIT = 100_000
_GROUP_ORDERS = tuple(permutations(range(3)))


def _suit_facts(key: tuple[int, ...]) -> _SuitFacts:
    """(isolated singles, pairs, most copies, middle tiles held, (147, 258, 369 ranks
    present)) for the nine counts of one suit."""
    isolated = pairs = middles = 0
    groups = [0, 0, 0]
    for r, n in enumerate(key):
        if not n:
            continue
        pairs += n >> 1
        groups[r % 3] += 1
        if 0 < r < 8:
            middles += 1
        if n == 1 and not any(0 <= r + d < 9 and key[r + d] for d in (-2, -1, 1, 2)):
            isolated += 1
    facts = (isolated, pairs, max(key), middles, (groups[0], groups[1], groups[2]))
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()  # a long-running server: keep memory bounded
    _MEMO[key] = facts
    return facts


def may_be_ready(counts: Sequence[int], melds: int) -> bool:
    """False only when no tile can complete these concealed tiles (with ``melds``)."""
    memo = _MEMO
    k = tuple(counts[0:9])
    a = memo.get(k) or _suit_facts(k)
    k = tuple(counts[9:18])
    b = memo.get(k) or _suit_facts(k)
    k = tuple(counts[18:27])
    c = memo.get(k) or _suit_facts(k)
    honors = counts[27:34]
    isolated = a[0] + b[0] + c[0] + honors.count(1)
    if isolated <= 1:
        return True
    if melds == 0:
        if a[1] + b[1] + c[1] + sum(n >> 1 for n in honors) >= 6:
            return True  # seven pairs
        if a[3] + b[3] + c[3] == 0:
            return True  # only terminals and honors: thirteen orphans
        if max(a[2], b[2], c[2], max(honors)) <= 1:
            return True  # honors and knitted tiles
    if melds <= 1 and max(a[4]) + max(b[4]) + max(c[4]) >= 8:
        # a knitted straight: 147, 258 and 369 each in a different suit
        ga, gb, gc = a[4], b[4], c[4]
        for x, y, z in _GROUP_ORDERS:
            if ga[x] + gb[y] + gc[z] >= 8:
                return True
    return False
