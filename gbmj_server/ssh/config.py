"""The host's SSH settings: ``--ssh-port`` on the command line, ``ssh_*`` keys in the TOML
config (beside ``host``, ``port``...). No port: no SSH server."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

UNKNOWN_USERS = ("refuse", "register", "guest")
TOML_KEYS = frozenset(
    {"ssh_port", "ssh_max_sessions", "ssh_idle_timeout", "ssh_unknown_users", "ssh_failed_logins"}
)


@dataclass(frozen=True, slots=True)
class SshSettings:
    port: int | None = None  # None: no SSH server; 0: a free port (tests)
    max_sessions: int = 20  # SSH sessions running a client at once
    idle_timeout: float = 1800.0  # seconds without a key from the player before closing
    # An SSH user name that is no account: refused, registered with the password given,
    # or let in as a guest without a password.
    unknown_users: str = "refuse"
    failed_logins: int = 10  # failed passwords per address per minute before refusing all


def ssh_settings_from(data: dict[str, Any], base: SshSettings) -> SshSettings:
    """``base`` with the ``ssh_*`` keys of a config table applied; ``ValueError`` with the
    reason for a bad value."""
    settings = base

    def integer(key: str, low: int, high: int) -> int:
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{key} must be an integer {low}-{high}")
        return value

    if "ssh_port" in data:
        settings = replace(settings, port=integer("ssh_port", 0, 65535))
    if "ssh_max_sessions" in data:
        settings = replace(settings, max_sessions=integer("ssh_max_sessions", 1, 10_000))
    if "ssh_failed_logins" in data:
        settings = replace(settings, failed_logins=integer("ssh_failed_logins", 1, 1000))
    if "ssh_idle_timeout" in data:
        value = data["ssh_idle_timeout"]
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 1:
            raise ValueError("ssh_idle_timeout must be a number of seconds, at least 1")
        settings = replace(settings, idle_timeout=float(value))
    if "ssh_unknown_users" in data:
        if data["ssh_unknown_users"] not in UNKNOWN_USERS:
            raise ValueError(f"ssh_unknown_users must be one of {', '.join(UNKNOWN_USERS)}")
        settings = replace(settings, unknown_users=data["ssh_unknown_users"])
    return settings
