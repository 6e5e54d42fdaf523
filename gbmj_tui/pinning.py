"""Trust on first use for a server's TLS certificate, as SSH does with host keys.

A gbmj server's certificate is usually self-signed, so the client does not check it
against a CA. It remembers the certificate's fingerprint (``protocol.tls``) per server
(``host:port``) in the known-servers file of the client's config directory: the first
connection pins it and tells the player; a later one whose certificate differs is
refused with a warning naming both fingerprints and the file to edit. The check is made
right after the handshake, before the client sends a byte.

``open_server`` is the one call the client's connection makes.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from gbmj_tui.config import config_path
from gbmj_tui.i18n import N_, tr
from protocol.tls import fingerprint

KNOWN_SERVERS_NAME = "known_servers"
HEADER = (
    "# gbmj known servers: the TLS certificate fingerprint pinned for each server.\n"
    "# One line a server: host:port fingerprint. Delete a server's line to pin a new one.\n"
)


def known_servers_path() -> Path:
    """The known-servers file, beside the client's settings."""
    return config_path().parent / KNOWN_SERVERS_NAME


class TlsRefused(Exception):
    """The connection was not made safely; the message says why, for the player
    (``text(lang)``: in the client's language; ``str``: English)."""

    def __init__(self, reason: str, /, **values: object) -> None:
        super().__init__(reason.format(**values))
        self.reason = reason  # a catalog msgid
        self.values = values

    def text(self, lang: str) -> str:
        return tr(self.reason, lang).format(**self.values)


CHANGED = N_(
    "WARNING: the certificate of {server} has changed since it was pinned.\n"
    "  pinned:  {pinned}\n"
    "  offered: {offered}\n"
    "Someone may be intercepting the connection, or the host made a new certificate. "
    "Ask the host for the fingerprint the server printed at start; if it is the offered "
    "one, delete the line of {server} in {path} and connect again."
)


class ServerChanged(TlsRefused):
    """The server offered a certificate other than the one pinned for it."""

    def __init__(self, server: str, pinned: str, offered: str, path: Path) -> None:
        super().__init__(CHANGED, server=server, pinned=pinned, offered=offered, path=path)
        self.server = server
        self.pinned = pinned
        self.offered = offered
        self.path = path


@dataclass(frozen=True, slots=True)
class Pin:
    """The certificate a connection was checked against."""

    server: str  # host:port, as in the file
    fingerprint: str
    new: bool  # pinned by this connection (the first to this server)
    path: Path | None  # the known-servers file (None: the fingerprint was given)

    def notice(self, lang: str = "en") -> str | None:
        """What to tell the player: something on the first connection only."""
        if not self.new:
            return None
        words = tr(
            "first connection to {server}: its certificate {fingerprint} is now pinned in "
            "{path}. Compare it with the fingerprint the host's server printed at start.",
            lang,
        )
        return words.format(server=self.server, fingerprint=self.fingerprint, path=self.path)


def server_key(host: str, port: int) -> str:
    """``host:port`` as the file writes it (an IPv6 address in brackets)."""
    host = host.lower()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def read_pins(path: Path) -> dict[str, str]:
    """Server -> pinned fingerprint; lines that are not ``server fingerprint`` are left
    alone (a comment, a typo), the first line of a server wins."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    pins: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and not line.lstrip().startswith("#"):
            pins.setdefault(fields[0], fields[1])
    return pins


def add_pin(path: Path, server: str, print_: str) -> None:
    """Add a server's line, keeping every other line as it was (written aside, then
    renamed: a crash leaves the old file or the new one)."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        text = HEADER
    if text and not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(path.name + ".new")
    aside.write_text(f"{text}{server} {print_}\n", "utf-8")
    os.replace(aside, path)


def check_pin(path: Path, server: str, der: bytes) -> Pin:
    """The pin for a server that offered the certificate ``der``: pinned now if the
    server is new; ``ServerChanged`` if another one is pinned for it."""
    offered = fingerprint(der)
    pinned = read_pins(path).get(server)
    if pinned is None:
        add_pin(path, server, offered)
        return Pin(server, offered, True, path)
    if pinned.upper() != offered:
        raise ServerChanged(server, pinned, offered, path)
    return Pin(server, offered, False, path)


def _check_expected(server: str, der: bytes, expected: str) -> Pin:
    offered = fingerprint(der)
    if offered != expected.upper():
        raise TlsRefused(
            N_(
                "the certificate of {server} is not the expected one: expected {expected}, "
                "offered {offered}"
            ),
            server=server,
            expected=expected,
            offered=offered,
        )
    return Pin(server, offered, False, None)


def client_context() -> ssl.SSLContext:
    """TLS that checks no CA and no host name: the pin is checked instead."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


async def open_server(
    host: str,
    port: int,
    *,
    insecure: bool = False,
    known_servers: Path | None = None,
    expect: str | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Pin | None]:
    """Connect to a gbmj server: TLS checked against the pin (made on first use), or
    plain TCP with ``insecure`` (then no pin). ``expect``: the fingerprint to require,
    the file left alone (for a client the server itself starts, which knows it). Raises
    what ``asyncio.open_connection`` raises (``OSError`` for a refused or unreachable
    server), ``TlsRefused`` for a failed handshake and ``ServerChanged`` for a changed
    certificate (the connection closed, nothing sent)."""
    if insecure:
        reader, writer = await asyncio.open_connection(host, port)
        return reader, writer, None
    server = server_key(host, port)
    try:
        reader, writer = await asyncio.open_connection(
            host, port, ssl=client_context(), server_hostname=host
        )
    except ssl.SSLError as exc:
        raise TlsRefused(
            N_(
                "no TLS from {server} ({reason}): if it is a plain TCP server, connect "
                "with --insecure"
            ),
            server=server,
            reason=exc.reason or exc,
        ) from None
    except (ConnectionResetError, asyncio.IncompleteReadError) as exc:
        raise TlsRefused(
            N_(
                "{server} closed the connection during the TLS handshake ({reason}): if it "
                "is a plain TCP server, connect with --insecure"
            ),
            server=server,
            reason=exc,
        ) from None
    try:
        ssl_object = writer.get_extra_info("ssl_object")
        der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
        if not der:
            raise TlsRefused(N_("{server} sent no certificate"), server=server)
        if expect is not None:
            pin = _check_expected(server, der, expect)
        else:
            pin = check_pin(known_servers or known_servers_path(), server, der)
    except BaseException:
        writer.close()
        raise
    return reader, writer, pin
