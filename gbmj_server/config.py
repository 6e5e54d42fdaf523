"""The host's settings: ``ServerConfig`` and the TOML config file.

Settings come from the defaults, then the TOML file (keys ``host``, ``port``, ``db``,
``log_level``, ``log_format``, ``log_file``, ``tls_cert``, ``tls_key``, ``insecure``,
``metrics_port``, ``metrics_host``, ``bot_delay``, ``hand_pause``, ``bot_workers``,
``door_secret`` (shared with the doors on other machines: ``gbmj_server.door``), the
house's ``HOUSE_KEYS`` (``table_fee`` …), the
SSH server's ``ssh_*`` keys of ``gbmj_server.ssh.config`` and the web page's ``web_*`` keys of
``gbmj_server.web.config``, optionally under a ``[server]`` table; shop prices in a
``shop`` table, e.g. ``[shop]`` ``tile_counter = 600``, 0 = not sold), then the command
line (``gbmj_server.cli``).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import socket
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gbmj.economy.items import ITEM_RULES
from gbmj_server.hosted import MIN_SECRET
from gbmj_server.ssh.config import TOML_KEYS as SSH_KEYS
from gbmj_server.ssh.config import SshSettings, ssh_settings_from
from gbmj_server.storage import default_db_path
from gbmj_server.storage.postgres import is_database_url
from gbmj_server.web.config import TOML_KEYS as WEB_KEYS
from gbmj_server.web.config import WebSettings, web_settings_from
from protocol.messages import INVENTORY_SLOTS, MAX_INVENTORY_SLOTS
from protocol.vocabulary import Item

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7415
LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")
# The house's whole-number settings of the game (docs/hosting.md): key -> (least, most).
HOUSE_KEYS = {
    "table_fee": (0, 1000),
    "inventory_slots": (1, MAX_INVENTORY_SLOTS),
    "gem_cap": (0, 10**12),
    "hand_log_days": (0, 36_500),
}
LEASE_TIME = 10.0  # seconds a node's lease on a table lasts unless renewed
NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
SSH_OFF = SshSettings()
WEB_OFF = WebSettings()


@dataclass(frozen=True, slots=True)
class Limits:
    """What one connection, one address and the whole server may use (docs/hosting.md,
    "Limits"). Addresses in ``trusted`` (none by default: a private server's own, a load
    test's) are exempt from the per-address limits; those in ``proxies`` (the host's TCP
    proxies) send a PROXY header naming the player's address. An IPv6 /64 counts as one
    address."""

    max_connections: int = 10_000  # and never more than the open-file limit allows
    connections_per_address: int = 32
    hello_timeout: float = 10.0  # seconds from connecting to ``hello``
    sign_in_timeout: float = 120.0  # seconds from ``hello`` to a session
    frame_timeout: float = 30.0  # seconds a begun frame may take to arrive whole
    handshakes_per_second: float = 1.0  # TLS handshakes an address may start, on average
    handshake_burst: int = 10  # TLS handshakes an address saves up
    handshakes_in_flight: int = 256  # TLS handshakes under way at once, in all (50 KiB each)
    handshakes_in_flight_per_address: int = 4  # of those, from one address
    handshake_timeout: float = 5.0  # seconds a handshake has once its turn has come
    outbox_frames: int = 1024  # frames queued for a client before it is dropped
    outbox_bytes: int = 2 * 1024 * 1024  # bytes queued for a client before it is dropped
    buffers_total: int = 32 * 1024 * 1024  # bytes all clients' buffers hold, together
    request_rate: float = 20.0  # requests per second per connection, on average
    request_burst: int = 60
    registrations_per_hour: int = 5  # new accounts per address
    guests_per_hour: int = 30  # new guests per address
    guest_keep: float = 7 * 86400.0  # seconds a guest not seen since is kept
    tables_per_address: int = 4  # tables an address owns at once
    bot_tables_per_address: int = 1  # of those, tables with bots
    max_tables: int = 1000  # tables on the server at once
    max_bot_tables: int = 20  # of those, tables with bots
    chat_lines: int = 5  # chat lines per account (and per address) per 10 seconds
    trusted: tuple[str, ...] = ()
    proxies: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything the host sets; the table and game defaults live with the tables."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    # A SQLite file (None: the file in the user's data directory) or a PostgreSQL URL.
    db: Path | str | None = None
    log_level: str = "info"
    log_format: str = "text"  # gbmj_server.logs: "text" or "json", one line an event
    log_file: Path | None = None  # None: standard error
    tls_cert: Path | None = None  # with tls_key: the host's own certificate (PEM)
    tls_key: Path | None = None  # None for both: self-signed, made next to the database
    insecure: bool = False  # serve plain TCP on the game port (no TLS)
    metrics_port: int | None = None  # HTTP /metrics and /healthz (None: off)
    metrics_host: str = DEFAULT_HOST  # loopback: the metrics are for the host, not players
    bot_delay: float = 0.5  # seconds a server bot "thinks" before acting
    bot_workers: int = 1  # processes the bots think in (0: in the server's own loop)
    hand_pause: float = 30.0  # seconds the next hand waits at most for its result's readers
    abandon_grace: float = 60.0  # seconds a match waits for any of its humans to come back
    table_linger: float = 300.0  # seconds an empty table waits for its owner to come back
    limits: Limits = Limits()
    ssh: SshSettings = SSH_OFF  # play over SSH (off: no port)
    web: WebSettings = WEB_OFF  # play in a browser (off: no port)
    shop: tuple[tuple[str, int], ...] = ()  # item prices over the defaults (0: not sold)
    table_fee: int = 0  # 茶水费: coins × stake each player pays the house a hand (0: none)
    inventory_slots: int = INVENTORY_SLOTS  # slots of every inventory
    gem_cap: int = 0  # gems cannot be used at this rating or above (0: no cap)
    hand_log_days: int = 365  # days an unsaved hand's log is kept (0: for ever)
    # Shared with the doors on other machines (gbmj_server.door): their passes name
    # players' addresses only when signed with it (None: no door of another machine).
    door_secret: str | None = None
    # Several nodes on one PostgreSQL database (docs/hosting.md, "More than one machine"):
    # this node's name (one server per name), the HOST:PORT players reach it at (for
    # redirects; None: the listening address), and how long its lease on a table lasts.
    node: str = dataclasses.field(default_factory=lambda: default_node())
    advertise: str | None = None
    lease_time: float = LEASE_TIME
    tournaments: bool = True  # this node goes on with running tournaments (one node does)

    @property
    def db_path(self) -> Path:
        """The SQLite file; with a PostgreSQL ``db``, the default file's place, where
        the files kept beside the database go (certificate, keys, admin socket)."""
        return self.db if isinstance(self.db, Path) else default_db_path()

    @property
    def admin_path(self) -> Path:
        """Where the running server's admin socket goes (``gbmj_server.admin_socket``):
        beside the SQLite file; on PostgreSQL one per node, so that nodes on one machine
        each answer their own."""
        if isinstance(self.db, str):
            return self.db_path.with_name(f"{self.db_path.name}.{self.node}")
        return self.db_path

    @property
    def database(self) -> Path | str:
        """What ``Storage`` opens: the SQLite file or the PostgreSQL URL."""
        return self.db if isinstance(self.db, str) else self.db_path


class ConfigError(Exception):
    """A bad setting in the config file."""


def default_node() -> str:
    """The host name (its first label), as a node name."""
    name = socket.gethostname().split(".")[0]
    return name if NODE_NAME.fullmatch(name) else "gbmj"


def check_node(name: str) -> str:
    """``name`` if it is a node name (letters, digits, ``.``, ``_``, ``-``; up to 63)."""
    if not NODE_NAME.fullmatch(name):
        raise ConfigError(f"node must be 1-63 letters, digits, '.', '_' or '-': {name!r}")
    return name


def check_advertise(address: str) -> str:
    """``address`` if it is HOST:PORT."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ConfigError(f"advertise must be HOST:PORT: {address!r}")
    return address


def load_config_file(path: Path, base: ServerConfig = ServerConfig()) -> ServerConfig:
    """``base`` with the settings of a TOML file applied."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    data = data.get("server", data)
    known = {"host", "port", "db", "log_level", "bot_delay", "hand_pause", "shop", "limits"}
    known |= {"abandon_grace", "table_linger"}
    known |= {"log_format", "log_file", "tls_cert", "tls_key", "insecure"}
    known |= {"metrics_port", "metrics_host", "bot_workers", "door_secret"}
    known |= {"node", "advertise", "lease_time", "tournaments"}
    known |= set(HOUSE_KEYS)
    unknown = set(data) - known
    unknown -= SSH_KEYS | WEB_KEYS
    if unknown:
        raise ConfigError(f"unknown settings in {path}: {', '.join(sorted(unknown))}")
    try:
        config = replace(base, ssh=ssh_settings_from(data, base.ssh))
        config = replace(config, web=web_settings_from(data, base.web))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    for key in ("host", "metrics_host"):
        if key in data:
            if not isinstance(data[key], str):
                raise ConfigError(f"{key} must be a string")
            config = replace(config, **_one(key, data[key]))
    for key in ("port", "metrics_port"):
        if key in data:
            port = data[key]
            if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
                raise ConfigError(f"{key} must be an integer 0-65535")
            config = replace(config, **_one(key, port))
    if is_database_url(data.get("db")):
        config = replace(config, db=data.pop("db"))
    for key in ("db", "log_file", "tls_cert", "tls_key"):
        if key in data:
            if not isinstance(data[key], str):
                raise ConfigError(f"{key} must be a path string")
            config = replace(config, **_one(key, path.parent / Path(data[key]).expanduser()))
    if "insecure" in data:
        if not isinstance(data["insecure"], bool):
            raise ConfigError("insecure must be true or false")
        config = replace(config, insecure=data["insecure"])
    for key, most in (
        ("bot_delay", 60),
        ("hand_pause", 60),
        ("abandon_grace", 86_400),
        ("table_linger", 86_400),
    ):
        if key in data:
            value = data[key]
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not 0 <= value <= most
            ):
                raise ConfigError(f"{key} must be a number of seconds 0-{most}")
            config = replace(config, **_one(key, float(value)))
    if "node" in data:
        config = replace(config, node=check_node(str(data["node"])))
    if "advertise" in data:
        config = replace(config, advertise=check_advertise(str(data["advertise"])))
    if "tournaments" in data:
        if not isinstance(data["tournaments"], bool):
            raise ConfigError("tournaments must be true or false")
        config = replace(config, tournaments=data["tournaments"])
    if "lease_time" in data:
        lease = data["lease_time"]
        if not isinstance(lease, int | float) or isinstance(lease, bool) or not 1 <= lease <= 600:
            raise ConfigError("lease_time must be a number of seconds 1-600")
        config = replace(config, lease_time=float(lease))
    if "bot_workers" in data:
        workers = data["bot_workers"]
        if not isinstance(workers, int) or isinstance(workers, bool) or not 0 <= workers <= 64:
            raise ConfigError("bot_workers must be an integer 0-64")
        config = replace(config, bot_workers=workers)
    for key, (least, most) in HOUSE_KEYS.items():
        if key in data:
            value = data[key]
            if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= most:
                raise ConfigError(f"{key} must be a whole number {least}-{most:,}")
            config = replace(config, **_one(key, value))
    if "door_secret" in data:
        secret = data["door_secret"]
        if not isinstance(secret, str) or len(secret.strip()) < MIN_SECRET:
            raise ConfigError(f"door_secret must be a string of {MIN_SECRET} characters or more")
        config = replace(config, door_secret=secret.strip())
    if "limits" in data:
        config = replace(config, limits=_limits(data["limits"], config.limits))
    if "shop" in data:
        config = replace(config, shop=_shop(data["shop"]))
    for key, choices in (("log_level", LOG_LEVELS), ("log_format", LOG_FORMATS)):
        if key in data:
            if data[key] not in choices:
                raise ConfigError(f"{key} must be one of {', '.join(choices)}")
            config = replace(config, **_one(key, data[key]))
    return config


def _one(key: str, value: object) -> dict[str, Any]:
    """One setting by name, already checked, for ``replace``."""
    return {key: value}


def _limits(table: object, base: Limits) -> Limits:
    """The ``[limits]`` table: any field of ``Limits``, each of its own type, not below 0
    (``trusted``, ``proxies``: lists of addresses)."""
    if not isinstance(table, dict):
        raise ConfigError("limits must be a table of limit = value")
    known = {f.name: f for f in dataclasses.fields(Limits)}
    changes: dict[str, Any] = {}  # each value checked against its field below
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"limits: unknown limit {key!r} (known: {', '.join(known)})")
        kind = type(getattr(base, key))
        if kind is tuple:
            if not isinstance(value, list) or not all(_is_address(v) for v in value):
                raise ConfigError(f"limits.{key} must be a list of IP addresses")
            changes[key] = tuple(value)
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or value < 0 or (kind is int and not isinstance(value, int)):
            what = "a whole number" if kind is int else "a number"
            raise ConfigError(f"limits.{key} must be {what}, at least 0")
        changes[key] = kind(value)
    return replace(base, **changes)


def _is_address(value: object) -> bool:
    try:
        ipaddress.ip_address(value if isinstance(value, str) else "")
    except ValueError:
        return False
    return True


def check_config(config: ServerConfig) -> ServerConfig:
    """``config`` if its settings agree with each other; ``ConfigError`` if not."""
    if config.insecure and (config.tls_cert is not None or config.tls_key is not None):
        raise ConfigError("insecure serves plain TCP: leave out tls_cert and tls_key")
    if (config.tls_cert is None) != (config.tls_key is None):
        raise ConfigError("tls_cert and tls_key go together: give both or neither")
    return config


def _shop(table: object) -> tuple[tuple[str, int], ...]:
    """The ``shop`` table: item -> price in coins (0: not for sale)."""
    if not isinstance(table, dict):
        raise ConfigError("shop must be a table of item = price")
    for item, price in table.items():
        if item not in ITEM_RULES:
            raise ConfigError(f"shop: unknown item {item!r} (known: {', '.join(ITEM_RULES)})")
        if ITEM_RULES[Item(item)].price is None:
            raise ConfigError(f"shop: {item} is never sold (it only drops)")
        if not isinstance(price, int) or isinstance(price, bool) or not 0 <= price <= 10**9:
            raise ConfigError(f"shop.{item} must be a price of 0-1,000,000,000 coins")
    return tuple(sorted(table.items()))
