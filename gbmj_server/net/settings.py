"""Table settings (SPEC §2.2, §2.3): validated from the wire, immutable once made."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from gbmj_server.net.errors import RequestError

STAKES = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
MAX_NAME = 32
MAX_PASSWORD = 64
MAX_TIMER_S = 600


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the owner of a table chooses. Timers are in seconds; ``timers=False`` turns
    every clock off (friendly tables). ``stake`` is stored now and used by the coins
    issue."""

    name: str = "table"
    stake: int = 0
    rounds: int = 4
    timers: bool = True
    first_discard_s: int = 30
    turn_s: int = 15
    claim_window_s: int = 5
    password: str = ""  # empty: no password
    bots: bool = True

    def seconds(self, timer: str) -> float | None:
        """The length of a decision of timer class ``timer``; None when timers are off."""
        if not self.timers:
            return None
        return float(
            {
                "first_discard": self.first_discard_s,
                "turn": self.turn_s,
                "claim_window": self.claim_window_s,
            }[timer]
        )

    def public(self) -> dict[str, Any]:
        """The settings as everyone may see them (the password only as a flag)."""
        data = asdict(self)
        del data["password"]
        data["has_password"] = bool(self.password)
        return data

    def stored(self) -> dict[str, Any]:
        """The settings recorded with a match (never the password)."""
        return self.public()

    def updated(self, data: Any) -> TableSettings:
        """A copy with the fields of ``data`` (a map from the wire) applied and checked."""
        if not isinstance(data, dict):
            raise RequestError("wrong_type", "settings must be a map")
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key not in _CHECKS:
                raise RequestError("extra_field", f"unknown table setting {key!r}")
            changes[key] = _CHECKS[key](value)
        return replace(self, **changes)


def _text(field: str, low: int, high: int):
    def check(value: Any) -> str:
        if not isinstance(value, str) or not low <= len(value.strip()) <= high:
            raise RequestError("out_of_range", f"{field} must be text of {low}-{high} characters")
        if any(not ch.isprintable() for ch in value):
            raise RequestError("out_of_range", f"{field} must be printable")
        return value.strip()

    return check


def _int(field: str, low: int, high: int):
    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise RequestError("out_of_range", f"{field} must be an integer {low}-{high}")
        return value

    return check


def _bool(field: str):
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise RequestError("out_of_range", f"{field} must be true or false")
        return value

    return check


def _stake(value: Any) -> int:
    if value not in STAKES or isinstance(value, bool):
        raise RequestError("out_of_range", f"stake must be one of {STAKES}")
    return int(value)


_CHECKS = {
    "name": _text("name", 1, MAX_NAME),
    "stake": _stake,
    "rounds": _int("rounds", 1, 4),
    "timers": _bool("timers"),
    "first_discard_s": _int("first_discard_s", 1, MAX_TIMER_S),
    "turn_s": _int("turn_s", 1, MAX_TIMER_S),
    "claim_window_s": _int("claim_window_s", 1, MAX_TIMER_S),
    "password": _text("password", 0, MAX_PASSWORD),
    "bots": _bool("bots"),
}
