"""The host's settings: ``ServerConfig`` and the TOML config file.

Settings come from the defaults, then the TOML file (keys ``host``, ``port``, ``db``,
``log_level``, ``bot_delay``, ``hand_pause``, the SSH server's ``ssh_*`` keys of
``gbmj_server.ssh.config`` and the web page's ``web_*`` keys of
``gbmj_server.web.config``, optionally under a ``[server]`` table; shop prices in a
``shop`` table, e.g. ``[shop]`` ``tile_counter = 600``, 0 = not sold), then the command
line (``gbmj_server.cli``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from gbmj.economy.items import ITEM_RULES
from gbmj_server.ssh.config import TOML_KEYS as SSH_KEYS
from gbmj_server.ssh.config import SshSettings, ssh_settings_from
from gbmj_server.storage import default_db_path
from gbmj_server.web.config import TOML_KEYS as WEB_KEYS
from gbmj_server.web.config import WebSettings, web_settings_from

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7415
LOG_LEVELS = ("debug", "info", "warning", "error")
SSH_OFF = SshSettings()
WEB_OFF = WebSettings()


@dataclass(frozen=True, slots=True)
class Limits:
    """What one connection, one address and the whole server may use (docs/hosting.md,
    "Limits"). Addresses in ``trusted`` (the host itself: its SSH and web front doors)
    are exempt from the per-address limits; an IPv6 /64 counts as one address."""

    max_connections: int = 10_000  # and never more than the open-file limit allows
    connections_per_address: int = 32
    hello_timeout: float = 10.0  # seconds from connecting to ``hello``
    sign_in_timeout: float = 120.0  # seconds from ``hello`` to a session
    frame_timeout: float = 30.0  # seconds a begun frame may take to arrive whole
    outbox_frames: int = 1024  # frames queued for a client before it is dropped
    outbox_bytes: int = 2 * 1024 * 1024  # bytes queued for a client before it is dropped
    request_rate: float = 20.0  # requests per second per connection, on average
    request_burst: int = 60
    registrations_per_hour: int = 5  # new accounts per address
    guests_per_hour: int = 30  # new guests per address
    tables_per_address: int = 4  # tables an address owns at once
    chat_lines: int = 5  # chat lines per account (and per address) per 10 seconds
    trusted: tuple[str, ...] = ("127.0.0.1", "::1")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything the host sets; the table and game defaults live with the tables."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db: Path | None = None  # None: the file in the user's data directory
    log_level: str = "info"
    bot_delay: float = 0.5  # seconds a server bot "thinks" before acting
    hand_pause: float = 5.0  # seconds between hands, to read the result
    abandon_grace: float = 60.0  # seconds a match waits for any of its humans to come back
    limits: Limits = Limits()
    ssh: SshSettings = SSH_OFF  # play over SSH (off: no port)
    web: WebSettings = WEB_OFF  # play in a browser (off: no port)
    shop: tuple[tuple[str, int], ...] = ()  # item prices over the defaults (0: not sold)

    @property
    def db_path(self) -> Path:
        return self.db if self.db is not None else default_db_path()


class ConfigError(Exception):
    """A bad setting in the config file."""


def load_config_file(path: Path, base: ServerConfig = ServerConfig()) -> ServerConfig:
    """``base`` with the settings of a TOML file applied."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    data = data.get("server", data)
    known = {"host", "port", "db", "log_level", "bot_delay", "hand_pause", "shop"}
    unknown = set(data) - known
    unknown -= SSH_KEYS | WEB_KEYS
    if unknown:
        raise ConfigError(f"unknown settings in {path}: {', '.join(sorted(unknown))}")
    try:
        config = replace(base, ssh=ssh_settings_from(data, base.ssh))
        config = replace(config, web=web_settings_from(data, base.web))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if "host" in data:
        if not isinstance(data["host"], str):
            raise ConfigError("host must be a string")
        config = replace(config, host=data["host"])
    if "port" in data:
        port = data["port"]
        if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
            raise ConfigError("port must be an integer 0-65535")
        config = replace(config, port=port)
    if "db" in data:
        if not isinstance(data["db"], str):
            raise ConfigError("db must be a path string")
        config = replace(config, db=(path.parent / Path(data["db"]).expanduser()))
    for key in ("bot_delay", "hand_pause"):
        if key in data:
            value = data[key]
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not 0 <= value <= 60
            ):
                raise ConfigError(f"{key} must be a number of seconds 0-60")
            config = replace(config, **{key: float(value)})
    if "shop" in data:
        config = replace(config, shop=_shop(data["shop"]))
    if "log_level" in data:
        if data["log_level"] not in LOG_LEVELS:
            raise ConfigError(f"log_level must be one of {', '.join(LOG_LEVELS)}")
        config = replace(config, log_level=data["log_level"])
    return config


def _shop(table: object) -> tuple[tuple[str, int], ...]:
    """The ``shop`` table: item -> price in coins (0: not for sale)."""
    if not isinstance(table, dict):
        raise ConfigError("shop must be a table of item = price")
    for item, price in table.items():
        if item not in ITEM_RULES:
            raise ConfigError(f"shop: unknown item {item!r} (known: {', '.join(ITEM_RULES)})")
        if not isinstance(price, int) or isinstance(price, bool) or not 0 <= price <= 10**9:
            raise ConfigError(f"shop.{item} must be a price of 0-1,000,000,000 coins")
    return tuple(sorted(table.items()))
