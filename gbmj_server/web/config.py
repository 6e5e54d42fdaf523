"""The host's web settings: ``--web-port`` on the command line, ``web_*`` keys in the TOML
config (beside ``host``, ``port``, ``ssh_*``...). No port: no web page."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gbmj_server.hosted import CLIENT_MEMORY_MB, SessionLimits

TOML_KEYS = frozenset(
    {
        "web_port",
        "web_host",
        "web_max_sessions",
        "web_sessions_per_address",
        "web_idle_timeout",
        "web_client_memory",
        "web_origins",
    }
)


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
    settings = base

    def integer(key: str, low: int, high: int) -> int:
        value = data[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{key} must be an integer {low}-{high}")
        return value

    for key, field, low, high in (
        ("web_port", "port", 0, 65535),
        ("web_max_sessions", "max_sessions", 1, 10_000),
        ("web_sessions_per_address", "sessions_per_address", 1, 10_000),
        ("web_client_memory", "client_memory", 64, 65536),
    ):
        if key in data:
            change: dict[str, Any] = {field: integer(key, low, high)}  # a field by its name
            settings = replace(settings, **change)
    if "web_host" in data:
        if not isinstance(data["web_host"], str):
            raise ValueError("web_host must be a string")
        settings = replace(settings, host=data["web_host"])
    if "web_idle_timeout" in data:
        value = data["web_idle_timeout"]
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 1:
            raise ValueError("web_idle_timeout must be a number of seconds, at least 1")
        settings = replace(settings, idle_timeout=float(value))
    if "web_origins" in data:
        origins = data["web_origins"]
        if not isinstance(origins, list) or not all(
            isinstance(o, str) and o.startswith(("http://", "https://")) for o in origins
        ):
            raise ValueError('web_origins must be a list of origins like "https://example.org"')
        settings = replace(settings, origins=tuple(o.rstrip("/").lower() for o in origins))
    return settings
