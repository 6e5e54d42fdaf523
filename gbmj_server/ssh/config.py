"""The host's SSH settings: ``--ssh-port`` on the command line, ``ssh_*`` keys in the TOML
config (beside ``host``, ``port``...). No port: no SSH server."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta

from gbmj_server.hosted import CLIENT_MEMORY_MB, SessionLimits
from gbmj_server.settings_file import (
    ClientMemory,
    IdleSeconds,
    Port,
    Sessions,
    given,
    keys,
    read_settings,
)

UnknownUsers = Literal["refuse", "register", "guest"]
UNKNOWN_USERS: tuple[str, ...] = get_args(UnknownUsers)


class SshFile(msgspec.Struct, frozen=True):
    """The ``ssh_*`` keys of the settings file."""

    ssh_port: Port | None = None
    ssh_max_sessions: Sessions | None = None
    ssh_sessions_per_address: Sessions | None = None
    ssh_idle_timeout: IdleSeconds | None = None
    ssh_unknown_users: (
        Annotated[UnknownUsers, Meta(description=f"one of {', '.join(UNKNOWN_USERS)}")] | None
    ) = None
    ssh_failed_logins: (
        Annotated[int, Meta(ge=1, le=1000, description="an integer 1-1000")] | None
    ) = None
    ssh_client_memory: ClientMemory | None = None


TOML_KEYS = keys(SshFile)


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
    changes = given(read_settings(data, SshFile), "ssh_")
    if "idle_timeout" in changes:
        changes["idle_timeout"] = float(changes["idle_timeout"])
    return replace(base, **changes)
