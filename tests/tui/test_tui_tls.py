"""TLS with the real client against a real ``gbmj-server`` serving TLS on loopback (its
certificate made beside its database): trust on first use with a notice, the pin kept
and trusted after; a changed certificate refused with the warning, at sign-in and when
reconnecting; a plain server refused unless the player chooses plain TCP, the choice
kept for that server; a hosted client checking the fingerprint its front door gives."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from live_harness import until
from textual.pilot import Pilot
from textual.widgets import Input
from tui_harness import screen_text, widget_text

from gbmj_server.tls import CERT_NAME, KEY_NAME, load_server_tls
from gbmj_tui.app import GbmjApp
from gbmj_tui.local_server import start_local_server
from gbmj_tui.messages import Link
from gbmj_tui.pinning import KNOWN_SERVERS_NAME, read_pins
from gbmj_tui.screens.connect import ConnectScreen
from gbmj_tui.screens.lobby import LobbyScreen

OTHER = "SHA256:" + ":".join(["AB"] * 32)  # a fingerprint no server here has


@dataclass
class TlsServer:
    proc: subprocess.Popen[str]
    port: int
    db: Path
    fingerprint: str

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def start_tls_server(db: Path, port: int = 0) -> TlsServer:
    proc, port = start_local_server(db, tls=True, port=port)
    return TlsServer(proc, port, db, load_server_tls(db).fingerprint)


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[TlsServer]:
    server = start_tls_server(tmp_path / "srv" / "gbmj.db")
    yield server
    server.stop()


def toasts(app: GbmjApp) -> str:
    """The toasts' words, without the toasts' edges."""
    text = " ".join(widget_text(t).replace("▌", " ") for t in app.screen.query("Toast"))
    return " ".join(text.split())


def connect_error(app: GbmjApp) -> str:
    """The connect screen's error, its lines joined."""
    return " ".join(widget_text(app.screen.query_one("#connect-error")).split())


async def sign_in_by_the_screen(
    app: GbmjApp, pilot: Pilot[None], address: str, *, plain: bool = False
) -> None:
    """The connect screen: the server typed, plain TCP ticked or not, Guest."""
    await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
    app.screen.query_one("#server", Input).value = address
    await pilot.pause()
    app.screen.query_one("#insecure").value = plain
    await pilot.click("#guest")
    await until(
        pilot,
        lambda: isinstance(app.screen, LobbyScreen) or "connecting" not in screen_text(app),
    )


@pytest.mark.slow
def test_the_first_connection_pins_the_certificate_and_the_next_trusts_it(
    tls_server: TlsServer, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"

    async def go(first: bool):
        app = GbmjApp(config_path=config, lang="en")
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await sign_in_by_the_screen(app, pilot, tls_server.address)
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            if first:
                await until(pilot, lambda: "pinned" in toasts(app))
            await pilot.pause()
            conn = app.session.conn
            assert conn is not None
            encrypted = conn._writer.get_extra_info("ssl_object") is not None
            chat = " ".join(widget_text(app.screen.query_one("#chat-log")).split())
            return toasts(app), conn.pin, encrypted, chat

    notice, pin, encrypted, chat = asyncio.run(go(first=True))
    assert f"first connection to {tls_server.address}" in chat  # it stays in the lobby
    assert encrypted and pin is not None and pin.new
    assert pin.fingerprint == tls_server.fingerprint
    assert f"first connection to {tls_server.address}" in notice
    assert tls_server.fingerprint in notice.replace(" ", "")
    known = tmp_path / KNOWN_SERVERS_NAME  # beside the client's settings
    assert read_pins(known) == {tls_server.address: tls_server.fingerprint}

    notice, pin, encrypted, chat = asyncio.run(go(first=False))
    assert encrypted and pin is not None and not pin.new
    assert "pinned" not in notice and "pinned" not in chat  # nothing new to say
    assert read_pins(known) == {tls_server.address: tls_server.fingerprint}


@pytest.mark.slow
def test_a_changed_certificate_is_refused_with_the_warning(
    tls_server: TlsServer, tmp_path: Path
) -> None:
    known = tmp_path / KNOWN_SERVERS_NAME
    known.write_text(f"{tls_server.address} {OTHER}\n")  # pinned from another certificate

    async def go():
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 40)) as pilot:
            await sign_in_by_the_screen(app, pilot, tls_server.address)
            await pilot.pause()
            shown = widget_text(app.screen.query_one("#connect-error"))
            return type(app.screen), app.session.conn, shown

    screen, conn, shown = asyncio.run(go())
    assert screen is ConnectScreen and conn is None  # not connected, not signed in
    flat = "".join(shown.split())  # the warning, wrapped in the box
    assert f"WARNING:thecertificateof{tls_server.address}haschanged" in flat
    assert f"pinned:{OTHER}" in flat and f"offered:{tls_server.fingerprint}" in flat
    assert read_pins(known) == {tls_server.address: OTHER}  # the pin is left as it was


@pytest.mark.slow
def test_a_plain_server_is_refused_unless_plain_tcp_is_chosen_and_the_choice_is_kept(
    tmp_path: Path,
) -> None:
    proc, port = start_local_server(tmp_path / "plain.db")  # plain TCP
    address = f"127.0.0.1:{port}"
    config = tmp_path / "c.json"

    async def go(plain: bool | None):
        app = GbmjApp(config_path=config, lang="en")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            ticked = app.screen.query_one("#insecure").value
            if plain is not None:
                await sign_in_by_the_screen(app, pilot, address, plain=plain)
            await pilot.pause()
            screen = type(app.screen)
            return screen, connect_error(app) if screen is ConnectScreen else "", ticked

    try:
        screen, text, _ = asyncio.run(go(plain=False))
        assert screen is ConnectScreen
        # The plain server answers the TLS hello with an error frame or closes on it:
        # either way the player is told the address and the way in.
        assert address in text and "connect with --insecure" in text, text
        screen, _, _ = asyncio.run(go(plain=True))
        assert screen is LobbyScreen
        assert json.loads(config.read_text())["insecure"] == [address]
        _, _, ticked = asyncio.run(go(plain=None))
        assert ticked  # the next time, the box is ticked for that server
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_a_hosted_client_checks_the_fingerprint_its_front_door_gives(
    tls_server: TlsServer, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"

    async def go(expect: str | None):
        app = GbmjApp(
            config_path=config,
            lang="en",
            hosted=True,
            server=tls_server.address,
            signed_in=(tls_server.address, None),  # a guest, as GBMJ_GUEST=1
            expect=expect,
        )
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen | ConnectScreen))
            await pilot.pause()
            screen = type(app.screen)
            return screen, connect_error(app) if screen is ConnectScreen else ""

    screen, _ = asyncio.run(go(tls_server.fingerprint))
    assert screen is LobbyScreen
    screen, text = asyncio.run(go(OTHER))
    assert screen is ConnectScreen
    assert "is not the expected one" in text
    screen, text = asyncio.run(go(None))  # no fingerprint, no GBMJ_INSECURE=1
    assert screen is ConnectScreen
    assert "the host gave no certificate fingerprint" in text
    assert not (tmp_path / KNOWN_SERVERS_NAME).exists() and not config.exists()  # no file


@pytest.mark.slow
def test_a_new_certificate_after_a_restart_ends_the_session_with_the_warning(
    tmp_path: Path,
) -> None:
    """The server comes back on the same port with a new certificate: the client does
    not reconnect to it; the connect screen shows the warning."""
    db = tmp_path / "srv" / "gbmj.db"
    server = start_tls_server(db)

    async def go():
        nonlocal server
        app = GbmjApp(config_path=tmp_path / "c.json", lang="en")
        async with app.run_test(size=(100, 40)) as pilot:
            await sign_in_by_the_screen(app, pilot, server.address)
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            server.stop()
            await until(pilot, lambda: app.session.link is Link.RECONNECTING)
            for name in (CERT_NAME, KEY_NAME):  # the host makes a new certificate
                (db.parent / name).unlink()
            server = start_tls_server(db, port=server.port)
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            await pilot.pause()
            shown = widget_text(app.screen.query_one("#connect-error"))
            return shown, app.session.token, server.fingerprint

    try:
        shown, token, new = asyncio.run(go())
    finally:
        server.stop()
    flat = "".join(shown.split())
    assert "haschangedsinceitwaspinned" in flat and f"offered:{new}" in flat
    assert token is None  # the session is over: nothing connects again by itself
