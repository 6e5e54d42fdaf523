"""The client's settings: how it was started (``Options``), and what it remembers
between runs (servers used before, those the player reaches over plain TCP, and the
last name, never a password) in a small JSON file in the user's config directory. A
hosted client (``GBMJ_HOSTED=1``: the SSH and web front doors) writes no file at all."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

from gbmj_tui.errors import ConnectError
from gbmj_tui.i18n import N_

DEFAULT_SERVER = "127.0.0.1:7415"
MAX_SERVERS = 10


@dataclass(frozen=True, slots=True)
class Options:
    """How the client was started (the command line and the environment)."""

    lang: str = "zh"
    ascii: bool = False  # nothing but ASCII on screen
    hosted: bool = False  # run by a front door for someone else: write no file, show no path
    server: str | None = None  # the server the connect screen offers (fixed when hosted)
    config_path: Path | None = None
    insecure: bool = False  # plain TCP to every server (--insecure, GBMJ_INSECURE=1)
    expect: str | None = None  # the certificate to require (GBMJ_TLS_FINGERPRINT: hosted)
    door: str | None = None  # the front door's pass for this session (GBMJ_DOOR: hosted)


def config_path() -> Path:
    return Path(user_config_dir("gbmj")) / "client.json"


def data_dir() -> Path:
    return Path(user_data_dir("gbmj"))


@dataclass(frozen=True, slots=True)
class ClientConfig:
    servers: tuple[str, ...] = (DEFAULT_SERVER,)  # most recent first
    name: str = ""
    insecure: tuple[str, ...] = ()  # servers the player reaches over plain TCP

    def used(self, server: str, name: str, *, insecure: bool = False) -> ClientConfig:
        """This config after logging in to ``server`` as ``name`` (over plain TCP with
        ``insecure``, which is then remembered for that server)."""
        servers = (server, *(s for s in self.servers if s != server))[:MAX_SERVERS]
        plain = tuple(s for s in self.insecure if s != server and s in servers)
        return ClientConfig(servers, name, (server, *plain) if insecure else plain)


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int = field(default=7415)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_address(text: str) -> Address:
    """``host[:port]`` (IPv6 as ``[::1]:7415``); ``ConnectError`` with a readable reason."""
    text = text.strip()
    if not text:
        raise ConnectError(N_("enter a server address, e.g. 127.0.0.1:7415"))
    host, port = text, "7415"
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ConnectError(N_("bad server address {address}"), address=text)
        host, rest = text[1:end], text[end + 1 :]
        if rest.startswith(":"):
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConnectError(N_("bad port {port}"), port=port)
    return Address(host, int(port))


def load_config(path: Path | None = None) -> ClientConfig:
    """The saved config, or the defaults if there is none (or it is unreadable)."""
    path = path or config_path()
    try:
        data = json.loads(path.read_text("utf-8"))
        servers = tuple(str(s) for s in data.get("servers", ()))[:MAX_SERVERS]
        plain = tuple(str(s) for s in data.get("insecure", ()) if s in servers)
        name = str(data.get("name", ""))
        return ClientConfig(servers=servers or (DEFAULT_SERVER,), name=name, insecure=plain)
    except (OSError, ValueError, AttributeError, TypeError):
        return ClientConfig()


def save_config(config: ClientConfig, path: Path | None = None) -> None:
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    data = {"servers": list(config.servers), "name": config.name, "insecure": list(config.insecure)}
    tmp.write_text(json.dumps(data), "utf-8")
    os.replace(tmp, path)
