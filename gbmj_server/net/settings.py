"""Table settings (SPEC §2.2, §2.3): immutable, read from and written to the wire form
of ``protocol.messages.TableSettings`` (the password travels beside it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gbmj_server.net.errors import RequestError


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the owner of a table chooses. Timers are in seconds; ``timers_on=False`` turns
    every clock off (friendly tables). ``stake`` is coins per point
    (SPEC §2.5)."""

    name: str = "table"
    stake: int = 0
    rounds: int = 4
    bots_allowed: bool = True
    timers_on: bool = True
    first_discard: int = 30
    turn: int = 15
    claim_window: int = 5
    password: str = ""  # empty: an open table
    when_broke: str = "bot"  # a player stood up for want of coins: "bot" or "pause"

    def seconds(self, timer: str) -> float | None:
        """The length of a decision of timer class ``timer``; None when timers are off."""
        if not self.timers_on:
            return None
        return float(getattr(self, timer))

    @classmethod
    def from_wire(cls, settings: dict[str, Any], password: str | None) -> TableSettings:
        """From a validated ``TableSettings`` map (the protocol checked types and ranges)."""
        name = settings["name"].strip()
        if not name or not name.isprintable():
            raise RequestError("out_of_range", "settings.name must be printable text")
        timers = settings["timers"]
        return cls(
            name=name,
            stake=settings["stake"],
            rounds=settings["rounds"],
            bots_allowed=settings["bots_allowed"],
            timers_on=timers["on"],
            first_discard=timers["first_discard"],
            turn=timers["turn"],
            claim_window=timers["claim_window"],
            password=password or "",
            when_broke=settings.get("when_broke") or "bot",
        )

    def to_wire(self) -> dict[str, Any]:
        """The public settings (never the password)."""
        return {
            "name": self.name,
            "stake": self.stake,
            "rounds": self.rounds,
            "bots_allowed": self.bots_allowed,
            "when_broke": self.when_broke,
            "timers": {
                "on": self.timers_on,
                "first_discard": self.first_discard,
                "turn": self.turn,
                "claim_window": self.claim_window,
            },
        }
