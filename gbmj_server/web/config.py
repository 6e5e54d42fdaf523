"""The host's web settings: ``--web-port`` on the command line, ``web_*`` keys in the TOML
config (beside ``host``, ``port``, ``ssh_*``...). No port: no web page."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from gbmj_server.hosted import CLIENT_MEMORY_MB, SessionLimits
from gbmj_server.settings_file import (
    ClientMemory,
    IdleSeconds,
    Port,
    Sessions,
    Text,
    given,
    keys,
    read_settings,
)

Origin = Annotated[str, Meta(pattern=r"\Ahttps?://")]


class WebFile(msgspec.Struct, frozen=True):
    """The ``web_*`` keys of the settings file."""

    web_port: Port | None = None
    web_host: Text | None = None
    web_max_sessions: Sessions | None = None
    web_sessions_per_address: Sessions | None = None
    web_idle_timeout: IdleSeconds | None = None
    web_client_memory: ClientMemory | None = None
    web_origins: (
        Annotated[
            tuple[Origin, ...], Meta(description='a list of origins like "https://example.org"')
        ]
        | None
    ) = None


TOML_KEYS = keys(WebFile)


@dataclass(frozen=True, slots=True)
class WebSettings:
    port: int | None = None  # None: no web page; 0: a free port (tests)
    host: str | None = None  # where the page listens (None: the game server's host)
    max_sessions: int = 20  # browser sessions running a client at once
    sessions_per_address: int = 4  # ... from one address (an IPv6 /64 is one address)
    idle_timeout: float = 1800.0  # seconds without a key or click before closing
    client_memory: int = CLIENT_MEMORY_MB  # MB of data each session's client may hold
    # Pages on other origins allowed to open a session (the page's own origin always
    # is), e.g. "https://mahjong.example.org" when a proxy rewrites the Host header.
    origins: tuple[str, ...] = ()

    @property
    def limits(self) -> SessionLimits:
        return SessionLimits(
            self.max_sessions, self.sessions_per_address, self.idle_timeout, self.client_memory
        )


def web_settings_from(data: dict[str, Any], base: WebSettings) -> WebSettings:
    """``base`` with the ``web_*`` keys of a config table applied; ``ValueError`` with the
    reason for a bad value."""
    changes = given(read_settings(data, WebFile), "web_")
    if "idle_timeout" in changes:
        changes["idle_timeout"] = float(changes["idle_timeout"])
    if "origins" in changes:
        changes["origins"] = tuple(o.rstrip("/").lower() for o in changes["origins"])
    return replace(base, **changes)
