"""TLS on the game port: the server's certificate made once and kept, the host's own
pair checked, and the client's trust on first use end to end (a trio TLS server on
loopback, the asyncio client, msgpack ``hello``/``welcome`` through it, a changed
certificate refused before the client sends a byte)."""

from __future__ import annotations

import asyncio
import hashlib
import ssl
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gbmj_server.config import ConfigError, ServerConfig, check_config
from gbmj_server.tls import CERT_NAME, KEY_NAME, TlsError, load_server_tls, server_tls
from gbmj_tui.pinning import ServerChanged, TlsRefused, open_server, read_pins, server_key
from ops.trio_server import TrioServer
from protocol import messages as m
from protocol.framing import FrameDecoder, encode


def test_self_signed_certificate_made_once_private_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "data" / "gbmj.sqlite3"
    first = load_server_tls(db)
    assert first.made and first.cert == db.parent / CERT_NAME
    for name in (CERT_NAME, KEY_NAME):
        assert stat.S_IMODE((db.parent / name).stat().st_mode) == 0o600
    # The fingerprint is the SHA-256 of the certificate's DER, as openssl writes it.
    der = ssl.PEM_cert_to_DER_cert(first.cert.read_text())
    digest = hashlib.sha256(der).hexdigest().upper()
    assert first.fingerprint == "SHA256:" + ":".join(digest[i : i + 2] for i in range(0, 64, 2))
    again = load_server_tls(db)
    assert not again.made and again.fingerprint == first.fingerprint
    assert again.banner == f"tls: certificate {first.fingerprint} ({first.cert})"


def test_a_certificate_without_its_key_is_refused_not_replaced(tmp_path: Path) -> None:
    db = tmp_path / "gbmj.sqlite3"
    made = load_server_tls(db)
    (tmp_path / KEY_NAME).unlink()
    with pytest.raises(TlsError, match=r"key .* is missing"):
        load_server_tls(db)
    assert made.cert.read_text() == (tmp_path / CERT_NAME).read_text()


def test_the_hosts_own_pair_is_used_and_a_wrong_pair_refused(tmp_path: Path) -> None:
    one = load_server_tls(tmp_path / "one" / "db")
    two = load_server_tls(tmp_path / "two" / "db")
    own = load_server_tls(tmp_path / "db", (one.cert, tmp_path / "one" / KEY_NAME))
    assert not own.made and own.fingerprint == one.fingerprint
    assert not (tmp_path / CERT_NAME).exists()  # nothing made beside the database
    with pytest.raises(TlsError, match="cannot use the TLS certificate"):
        load_server_tls(tmp_path / "db", (one.cert, tmp_path / "two" / KEY_NAME))
    with pytest.raises(TlsError, match="no such TLS file"):
        load_server_tls(tmp_path / "db", (tmp_path / "none.pem", tmp_path / "none.key"))
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    with pytest.raises(TlsError):
        load_server_tls(tmp_path / "db", (tmp_path / "junk.pem", tmp_path / "one" / KEY_NAME))
    assert two.fingerprint != one.fingerprint


@pytest.mark.slow
def test_settings_that_disagree_are_refused(tmp_path: Path) -> None:
    pem = tmp_path / "c.pem"
    with pytest.raises(ConfigError, match="together"):
        check_config(ServerConfig(tls_cert=pem))
    with pytest.raises(ConfigError, match="insecure"):
        check_config(ServerConfig(insecure=True, tls_cert=pem, tls_key=pem))
    assert server_tls(ServerConfig(db=tmp_path / "db", insecure=True)) is None
    assert not (tmp_path / CERT_NAME).exists()
    # On the command line: one line and status 2, nothing started.
    run = subprocess.run(
        [sys.executable, "-m", "gbmj_server", "--db", str(tmp_path / "db"), "--tls-cert", "x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "tls_cert and tls_key go together" in run.stderr


async def _hello(host: str, port: int, **options) -> tuple[m.Message, object]:
    """Connect with the client's ``open_server``, send ``hello``, read the answer."""
    reader, writer, pin = await open_server(host, port, **options)
    try:
        writer.write(encode(m.Hello(version=m.PROTOCOL_VERSION, client="test/1")))
        await writer.drain()
        decoder = FrameDecoder()
        while (reply := decoder.next_message()) is None:
            data = await reader.read(65536)
            assert data, "the server closed the connection"
            decoder.receive_data(data)
    finally:
        writer.close()
    return reply, pin


def test_first_connection_pins_and_a_changed_certificate_is_refused(tmp_path: Path) -> None:
    known = tmp_path / "client" / "known_servers"
    first = load_server_tls(tmp_path / "first" / "db")
    with TrioServer(first.context) as server:
        reply, pin = asyncio.run(_hello("127.0.0.1", server.port, known_servers=known))
        assert isinstance(reply, m.Welcome) and reply.server == "trio-test/1"
        assert pin.new and pin.fingerprint == first.fingerprint
        assert str(known) in pin.notice() and first.fingerprint in pin.notice()
        assert read_pins(known) == {f"127.0.0.1:{server.port}": first.fingerprint}
        reply, pin = asyncio.run(_hello("127.0.0.1", server.port, known_servers=known))
        assert isinstance(reply, m.Welcome) and not pin.new and pin.notice() is None
        port = server.port
    # The host made a new certificate (or someone sits in between): same address.
    second = load_server_tls(tmp_path / "second" / "db")
    with TrioServer(second.context, port=port) as server:
        with pytest.raises(ServerChanged) as refused:
            asyncio.run(_hello("127.0.0.1", port, known_servers=known))
        text = str(refused.value)
        assert first.fingerprint in text and second.fingerprint in text and str(known) in text
        assert server.received == []  # refused before the client sent anything
    assert read_pins(known) == {f"127.0.0.1:{port}": first.fingerprint}  # the pin kept


def test_plain_server_needs_insecure(tmp_path: Path) -> None:
    known = tmp_path / "known_servers"
    with TrioServer(None) as server:
        with pytest.raises(TlsRefused, match="--insecure"):
            asyncio.run(_hello("127.0.0.1", server.port, known_servers=known))
        reply, pin = asyncio.run(_hello("127.0.0.1", server.port, insecure=True))
        assert isinstance(reply, m.Welcome) and pin is None
    assert not known.exists()


def test_pins_file_keeps_hand_edits(tmp_path: Path) -> None:
    known = tmp_path / "known_servers"
    known.write_text("# my servers\nclub.example:7415 SHA256:AA\nnot a pin line at all\n")
    first = load_server_tls(tmp_path / "db")
    with TrioServer(first.context) as server:
        asyncio.run(_hello("127.0.0.1", server.port, known_servers=known))
    lines = known.read_text().splitlines()
    assert lines[:3] == ["# my servers", "club.example:7415 SHA256:AA", "not a pin line at all"]
    assert lines[3] == f"127.0.0.1:{server.port} {first.fingerprint}"
    assert server_key("::1", 7415) == "[::1]:7415"  # the port stays readable


def test_a_fingerprint_given_by_the_caller_is_required_and_no_file_written(
    tmp_path: Path,
) -> None:
    known = tmp_path / "known_servers"
    served, other = load_server_tls(tmp_path / "a" / "db"), load_server_tls(tmp_path / "b" / "db")
    with TrioServer(served.context) as server:
        reply, pin = asyncio.run(
            _hello("127.0.0.1", server.port, known_servers=known, expect=served.fingerprint)
        )
        assert isinstance(reply, m.Welcome) and not pin.new and pin.notice() is None
        with pytest.raises(TlsRefused, match="not the expected one") as refused:
            asyncio.run(_hello("127.0.0.1", server.port, expect=other.fingerprint))
        assert other.fingerprint in str(refused.value) and served.fingerprint in str(refused.value)
    assert not known.exists()
