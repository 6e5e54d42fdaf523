"""Who pays whom after a hand at a stake table (金币押宝, docs/rules.md §2.5).

A hand's points × the table's stake move as coins: every seat that loses points pays them
to the winner; an escaper pays ``80 × stake`` to the house. The amounts here are what the
rules ask for; the ledger caps each payment at what the payer has (a loser pays at most
what they have) inside the settlement's transaction, where the balances are known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

HOUSE = None  # the house account in a payment (bots' seats play for the house too)


@dataclass(frozen=True, slots=True)
class SeatPayment:
    """``payer`` seat owes ``payee`` seat (or ``HOUSE``) ``amount`` coins."""

    payer: int
    payee: int | None
    amount: int


def hand_payments(
    points: Sequence[int], stake: int, winner: int | None, escaper: int | None
) -> list[SeatPayment]:
    """The payments of one hand's ``points`` (by seat) at ``stake`` coins per point."""
    if stake <= 0:
        return []
    if escaper is not None:
        return [SeatPayment(escaper, HOUSE, -points[escaper] * stake)]
    if winner is None:
        return []  # a draw: nobody pays
    return [
        SeatPayment(seat, winner, -points[seat] * stake)
        for seat in range(len(points))
        if seat != winner and points[seat] < 0
    ]


def min_coins(stake: int) -> int:
    """The coins a player needs to sit at (and stay at) a table of ``stake``."""
    return 100 * stake
