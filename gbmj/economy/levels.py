"""Levels by rating points (等级, docs/rules.md §2.7): level L starts at ``50 × (L−1) × L``."""

from __future__ import annotations

from bisect import bisect_right

from protocol.messages import MAX_LEVEL


def threshold(level: int) -> int:
    """The rating at which ``level`` (1-37) starts: 0, 100, 300, 600 … 66,600."""
    if not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"levels are 1-{MAX_LEVEL}")
    return 50 * (level - 1) * level


THRESHOLDS: tuple[int, ...] = tuple(threshold(level) for level in range(1, MAX_LEVEL + 1))


def level_of(rating: int) -> int:
    """The level of a rating (1 for 0 points, 37 from 66,600 on)."""
    return max(1, bisect_right(THRESHOLDS, rating))
