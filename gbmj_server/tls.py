"""TLS on the game port: the server's certificate, its fingerprint and its ``ssl.SSLContext``.

Unless the host gives a certificate of their own (``tls_cert`` and ``tls_key``), the
server makes a self-signed one the first time it starts (an ECDSA P-256 key) in
``tls_cert.pem`` and ``tls_key.pem`` next to the database, readable by the owner only
like the SSH host key, and keeps it: clients pin its fingerprint (``protocol.tls``), so
a new certificate means a warning on every player's client. It never expires for the
same reason; the pin, not a date or a CA, is what a client trusts.

The frames inside are the same as on a plain port. The server starts a connection's TLS
itself (``open_tls``), at its first bytes and no sooner: a socket that sends nothing
holds no TLS state (OpenSSL's buffers for a handshake are some 50 KiB). What TLS then
holds for the connection stays small, and what it holds of a record still arriving is
reported to the server's buffer budget (``Records``).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import trio

from gbmj_server.config import ConfigError, ServerConfig, check_config
from protocol.tls import fingerprint

CERT_NAME = "tls_cert.pem"
KEY_NAME = "tls_key.pem"
COMMON_NAME = "gbmj-server"
# RFC 5280 §4.1.2.5: the date that means "no well-defined expiration".
NO_EXPIRY = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


class TlsError(ConfigError):
    """The certificate or key cannot be made or used; one line for the host."""


@dataclass(frozen=True, slots=True)
class ServerTls:
    """What the server serves TLS with."""

    context: ssl.SSLContext
    fingerprint: str  # of the certificate the clients see (the first in the file)
    cert: Path
    made: bool  # made on this start (a new certificate: players pin it afresh)

    @property
    def banner(self) -> str:
        """The line printed at start, beside the SSH host key's."""
        return f"tls: certificate {self.fingerprint} ({self.cert})"


def server_tls(config: ServerConfig) -> ServerTls | None:
    """The TLS the config asks for, the certificate made on first use; None for a plain
    TCP server (``insecure``). ``TlsError`` if the files cannot be made or used."""
    if check_config(config).insecure:
        return None
    own = None
    if config.tls_cert is not None and config.tls_key is not None:
        own = (config.tls_cert, config.tls_key)
    return load_server_tls(config.db_path, own)


def load_server_tls(db_path: Path, own: tuple[Path, Path] | None = None) -> ServerTls:
    """The host's own certificate and key (``own``), or the self-signed pair next to the
    database, made if missing."""
    made = False
    if own is not None:
        cert, key = own
    else:
        cert, key = db_path.parent / CERT_NAME, db_path.parent / KEY_NAME
        if not cert.exists():  # a key without its certificate was never shown to anyone
            make_self_signed(cert, key)
            made = True
        elif not key.exists():
            raise TlsError(f"the TLS certificate {cert} is there but its key {key} is missing")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        # A password prompt would hang a service: an encrypted key fails instead.
        context.load_cert_chain(cert, key, password=lambda: b"")
    except FileNotFoundError as exc:
        raise TlsError(f"no such TLS file: {exc.filename}") from None
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        raise TlsError(
            f"cannot use the TLS certificate {cert} with the key {key}: {reason} "
            "(PEM files, the key unencrypted and matching the certificate)"
        ) from None
    return ServerTls(context, fingerprint(_first_certificate_der(cert)), cert, made)


def _first_certificate_der(cert: Path) -> bytes:
    """The DER bytes of the first certificate of a PEM file (the server's own; any
    others are its chain)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    try:
        first = x509.load_pem_x509_certificates(cert.read_bytes())[0]
    except (OSError, ValueError) as exc:
        raise TlsError(f"cannot read the TLS certificate {cert}: {exc}") from None
    return first.public_bytes(Encoding.DER)


def make_self_signed(cert: Path, key: Path) -> None:
    """A new ECDSA P-256 key and a self-signed certificate for it, both written
    readable by the owner only (the key first: a certificate is never left without
    its key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))  # a client whose clock is a little behind
        .not_valid_after(NO_EXPIRY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(private, hashes.SHA256())
    )
    key_pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        _write_private(key, key_pem)
        _write_private(cert, certificate.public_bytes(serialization.Encoding.PEM))
    except OSError as exc:
        raise TlsError(f"cannot write the TLS certificate in {cert.parent}: {exc}") from None


def _write_private(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` whole (written aside, then renamed), mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(path.name + ".new")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(aside, path)


def tls_listeners(
    listeners: Sequence[trio.SocketListener], context: ssl.SSLContext
) -> list[trio.SSLListener[trio.SocketStream]]:
    """The listeners serving TLS. The handshake happens on the stream's first read or
    write, so a client that never completes it costs only its own connection (and fails
    it with ``trio.BrokenResourceError``, like any broken peer)."""
    return [trio.SSLListener(listener, context) for listener in listeners]


# What one read takes from a TLS client's socket. trio hands each read whole to OpenSSL's
# incoming buffer, which keeps the size of the largest read for the connection's life:
# small reads keep it small (clients send small requests; a frame of 64 KiB is 16 reads).
TLS_READ = 4096
RECORD_HEADER = 5
# What OpenSSL holds while a record has partly arrived: its read buffer, one record long.
RECORD_BUFFER = 16 * 1024 + 2048


class Records(trio.abc.Stream):
    """The socket under a connection's TLS: reads at most ``TLS_READ`` bytes at a time and
    follows the TLS records in them, so that what OpenSSL holds of a record still
    arriving is known; ``report(bytes)`` hears it after each read (``RECORD_BUFFER``
    while a record is incomplete, else 0). A client that sends part of a record and
    stops holds that buffer, as a client that sends part of a frame holds the frame."""

    def __init__(self, socket: trio.SocketStream, report: Callable[[int], None]) -> None:
        self.socket = socket
        self.report = report
        self._header = bytearray()  # the record header read so far
        self._body = 0  # bytes of the current record's body still to come

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.socket.receive_some(TLS_READ)
        self._follow(data)
        self.report(RECORD_BUFFER if self._header or self._body else 0)
        return data

    def _follow(self, data: bytes) -> None:
        at = 0
        while at < len(data):
            if self._body:
                step = min(self._body, len(data) - at)
                self._body -= step
                at += step
                continue
            step = min(RECORD_HEADER - len(self._header), len(data) - at)
            self._header += data[at : at + step]
            at += step
            if len(self._header) == RECORD_HEADER:
                self._body = int.from_bytes(self._header[3:5], "big")
                self._header.clear()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.socket.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.socket.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.socket.aclose()


async def open_tls(
    socket: trio.SocketStream, context: ssl.SSLContext, report: Callable[[int], None]
) -> trio.SSLStream[Records]:
    """The connection's TLS, once its first bytes (the client's hello) have arrived: no
    TLS state exists before. The handshake itself is left to the caller."""
    await trio.lowlevel.wait_readable(socket.socket)
    return trio.SSLStream(Records(socket, report), context, server_side=True)
