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
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta

from gbmj.economy.items import ITEM_RULES
from gbmj_server.hosted import MIN_SECRET
from gbmj_server.settings_file import Flag, Port, Text, given, keys, read_settings, refusal
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
LogLevel = Literal["debug", "info", "warning", "error"]
LogFormat = Literal["text", "json"]
LOG_LEVELS: tuple[str, ...] = get_args(LogLevel)
LOG_FORMATS: tuple[str, ...] = get_args(LogFormat)
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


Minute = Annotated[float, Meta(ge=0, le=60, description="a number of seconds 0-60")]
Day = Annotated[float, Meta(ge=0, le=86_400, description="a number of seconds 0-86400")]
PathText = Annotated[str, Meta(description="a path string")]


class _ServerKeys(msgspec.Struct, frozen=True):
    """The game server's own keys of the settings file (the house's are added below)."""

    host: Text | None = None
    port: Port | None = None
    db: PathText | None = None
    log_level: Annotated[LogLevel, Meta(description=f"one of {', '.join(LOG_LEVELS)}")] | None = (
        None
    )
    log_format: (
        Annotated[LogFormat, Meta(description=f"one of {', '.join(LOG_FORMATS)}")] | None
    ) = None
    log_file: PathText | None = None
    tls_cert: PathText | None = None
    tls_key: PathText | None = None
    insecure: Flag | None = None
    metrics_port: Port | None = None
    metrics_host: Text | None = None
    bot_delay: Minute | None = None
    hand_pause: Minute | None = None
    abandon_grace: Day | None = None
    table_linger: Day | None = None
    bot_workers: Annotated[int, Meta(ge=0, le=64, description="an integer 0-64")] | None = None
    door_secret: (
        Annotated[
            str,
            Meta(
                min_length=MIN_SECRET,
                description=f"a string of {MIN_SECRET} characters or more",
            ),
        ]
        | None
    ) = None
    node: (
        Annotated[
            str,
            Meta(
                pattern=rf"\A{NODE_NAME.pattern}\Z",
                description="1-63 letters, digits, '.', '_' or '-'",
            ),
        ]
        | None
    ) = None
    advertise: Annotated[str, Meta(description="HOST:PORT")] | None = None
    lease_time: (
        Annotated[float, Meta(ge=1, le=600, description="a number of seconds 1-600")] | None
    ) = None
    tournaments: Flag | None = None
    limits: Annotated[dict[str, Any], Meta(description="a table of limit = value")] | None = None
    shop: Annotated[dict[str, Any], Meta(description="a table of item = price")] | None = None


def _whole(least: int, most: int) -> Any:
    return Annotated[int, Meta(ge=least, le=most, description=f"a whole number {least}-{most:,}")]


# The house's keys come from HOUSE_KEYS, each a whole number in its range.
ServerFile: type[msgspec.Struct] = msgspec.defstruct(
    "ServerFile",
    [(key, _whole(*bounds) | None, None) for key, bounds in HOUSE_KEYS.items()],
    bases=(_ServerKeys,),
    frozen=True,
)


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
    unknown = set(data) - keys(ServerFile) - SSH_KEYS - WEB_KEYS
    if unknown:
        raise ConfigError(f"unknown settings in {path}: {', '.join(sorted(unknown))}")
    try:
        config = replace(base, ssh=ssh_settings_from(data, base.ssh))
        config = replace(config, web=web_settings_from(data, base.web))
        changes = given(read_settings(data, ServerFile))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    for key in ("db", "log_file", "tls_cert", "tls_key"):
        # Files are found from the settings file's folder; a database may be a URL.
        if key in changes and not (key == "db" and is_database_url(changes[key])):
            changes[key] = path.parent / Path(changes[key]).expanduser()
    for key in ("bot_delay", "hand_pause", "abandon_grace", "table_linger", "lease_time"):
        if key in changes:
            changes[key] = float(changes[key])
    if "door_secret" in changes:
        changes["door_secret"] = changes["door_secret"].strip()
        if len(changes["door_secret"]) < MIN_SECRET:
            raise ConfigError(f"door_secret must be a string of {MIN_SECRET} characters or more")
    if "advertise" in changes:
        check_advertise(changes["advertise"])
    if "limits" in changes:
        changes["limits"] = _limits(changes["limits"], config.limits)
    if "shop" in changes:
        changes["shop"] = _shop(changes["shop"])
    return replace(config, **changes)


def _limit_type(kind: object) -> Any:
    if kind in ("int", int):
        return Annotated[int, Meta(ge=0, description="a whole number, at least 0")]
    if kind in ("float", float):
        return Annotated[float, Meta(ge=0, description="a number, at least 0")]
    return Annotated[tuple[str, ...], Meta(description="a list of IP addresses")]


# The ``[limits]`` table: any field of ``Limits``, of its own type, not below 0
# (``trusted``, ``proxies``: lists of addresses).
LimitsFile: type[msgspec.Struct] = msgspec.defstruct(
    "LimitsFile",
    [(f.name, _limit_type(f.type) | None, None) for f in dataclasses.fields(Limits)],
    frozen=True,
    forbid_unknown_fields=True,
)


def _limits(table: dict[str, Any], base: Limits) -> Limits:
    try:
        changes = given(msgspec.convert(table, LimitsFile))
    except msgspec.ValidationError as err:
        raise ConfigError(refusal(err, LimitsFile, "limits: ")) from None
    for key, value in changes.items():
        if isinstance(value, tuple) and not all(map(_is_address, value)):
            raise ConfigError(f"limits: {key} must be a list of IP addresses")
        if isinstance(getattr(base, key), float):
            changes[key] = float(value)
    return replace(base, **changes)


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
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


Price = Annotated[int, Meta(ge=0, le=10**9)]


def _shop(table: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """The ``shop`` table: item -> price in coins (0: not for sale)."""
    for item in table:
        if item not in ITEM_RULES:
            raise ConfigError(f"shop: unknown item {item!r} (known: {', '.join(ITEM_RULES)})")
        if ITEM_RULES[Item(item)].price is None:
            raise ConfigError(f"shop: {item} is never sold (it only drops)")
        try:
            msgspec.convert(table[item], Price)
        except msgspec.ValidationError:
            raise ConfigError(f"shop.{item} must be a price of 0-1,000,000,000 coins") from None
    return tuple(sorted(table.items()))
