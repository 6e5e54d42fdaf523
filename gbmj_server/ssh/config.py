"""The host's SSH settings: ``--ssh-port`` on the command line, ``ssh_*`` keys in the TOML
config (beside ``host``, ``port``...). No port: no SSH server."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gbmj_server.hosted import CLIENT_MEMORY_MB, SessionLimits

UNKNOWN_USERS = ("refuse", "register", "guest")
TOML_KEYS = frozenset(
    {
        "ssh_port",
        "ssh_max_sessions",
        "ssh_sessions_per_address",
        "ssh_idle_timeout",
        "ssh_unknown_users",
        "ssh_failed_logins",
        "ssh_client_memory",
    }
)


@dataclass(frozen=True, slots=True)
class SshSettings:
    port: int | None = None  # None: no SSH server; 0: a free port (tests)
    max_sessions: int = 20  # SSH sessions running a client at once
    sessions_per_address: int = 4  # ... from one address (an IPv6 /64 is one address)
    idle_timeout: float = 1800.0  # seconds without a key from the player before closing
    # An SSH user name that is no account: refused, registered with the password given,
    # or let in as a guest without a password.
    unknown_users: str = "refuse"
    # Wrong passwords from one address, for any names, before each further one makes
    # the address wait (doubling). One name from one address waits sooner (``service``).
    failed_logins: int = 30
    client_memory: int = CLIENT_MEMORY_MB  # MB of data each session's client may hold

    @property
    def limits(self) -> SessionLimits:
        return SessionLimits(
            self.max_sessions, self.sessions_per_address, self.idle_timeout, self.client_memory
        )


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
    if "ssh_sessions_per_address" in data:
        per_address = integer("ssh_sessions_per_address", 1, 10_000)
        settings = replace(settings, sessions_per_address=per_address)
    if "ssh_failed_logins" in data:
        settings = replace(settings, failed_logins=integer("ssh_failed_logins", 1, 1000))
    if "ssh_client_memory" in data:
        settings = replace(settings, client_memory=integer("ssh_client_memory", 64, 65536))
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
