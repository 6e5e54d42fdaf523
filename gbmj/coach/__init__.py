"""The coach: hints toward the 8-fan minimum from one player's own view (no I/O).

See ``hints`` and docs/rules.md, "The coach".
"""

from __future__ import annotations

from .hints import (
    ClaimHint,
    DiscardHint,
    Hints,
    PlanHint,
    Sight,
    Useful,
    WaitHint,
    claim_hints,
    claim_meld,
    hints,
    plan_hints,
    sight,
    sight_of,
)

__all__ = [
    "ClaimHint",
    "DiscardHint",
    "Hints",
    "PlanHint",
    "Sight",
    "Useful",
    "WaitHint",
    "claim_hints",
    "claim_meld",
    "hints",
    "plan_hints",
    "sight",
    "sight_of",
]
