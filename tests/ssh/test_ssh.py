"""Play over SSH against a real server process: sign in with a password or a key, see the
client's lobby in the terminal, type, resize, leave; wrong passwords and the limits."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from pathlib import Path

import asyncssh
import pytest

from gbmj_server.ssh import keys
from gbmj_server.storage import Storage
from ssh.conftest import Host, Terminal, open_terminal, start_host, stop_host, until

CTRL_Q = b"\x11"


def live_sessions(host: Host, name: str) -> int:
    """Session tokens the account holds in the database."""
    with sqlite3.connect(host.db) as db:
        return db.execute(
            "SELECT count(*) FROM session s JOIN account a ON a.id = s.account_id WHERE a.name = ?",
            (name,),
        ).fetchone()[0]


def test_password_sign_in_shows_the_lobby_takes_keys_resizes_and_quits(host: Host) -> None:
    async def scenario() -> None:
        conn, term = await open_terminal(host, "alice", password="alice-pw")
        async with conn:
            await term.wait_for("alice")  # the profile line of the lobby: signed in
            await term.wait_for("New table")  # the lobby's key bar
            assert live_sessions(host, "alice") == 1
            mark = len(term.raw)
            term.send(b"n")  # the lobby's "new table" key opens the dialog
            await term.wait_for("Bots allowed", since=mark)  # the settings, in English here
            mark = len(term.raw)
            term.send(b"\x1b")  # Esc closes it
            await term.wait_for("New table", since=mark)
            assert b"\x1b[40;" not in term.raw
            mark = len(term.raw)
            term.chan.change_terminal_size(120, 40)
            await term.wait_for(b"\x1b[40;", since=mark)  # drawn down to row 40 now
            term.send(CTRL_Q)
            await term.chan.wait_closed()
            assert term.chan.get_exit_status() == 0
        await until(lambda: live_sessions(host, "alice") == 0)  # its token is deleted

    asyncio.run(scenario())


def test_a_session_reaches_a_game_port_that_serves_tls(tmp_path: Path) -> None:
    """The game port serves TLS: the SSH session's client reaches the game through the
    doors' own listener (loopback, named by its session's pass), pins nothing, and plays
    as with a plain game port."""
    host = start_host(tmp_path, {"alice": "alice-pw"}, tls=True)
    try:

        async def scenario() -> None:
            conn, term = await open_terminal(host, "alice", password="alice-pw")
            async with conn:
                await term.wait_for("alice")
                await term.wait_for("New table")  # the lobby: connected and signed in
                assert live_sessions(host, "alice") == 1
                term.send(CTRL_Q)
                assert term.chan is not None
                await term.chan.wait_closed()

        asyncio.run(scenario())
    finally:
        stop_host(host)


def test_key_sign_in_and_a_dropped_connection(host: Host, tmp_path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519", comment="bob@laptop")
    with Storage(host.db) as store:
        bob = store.account_by_name("bob")
        assert bob is not None
        keys.add_key(store, bob.id, key.export_public_key().decode())

    async def scenario() -> None:
        with pytest.raises(asyncssh.PermissionDenied):  # bob's key is not alice's
            await open_terminal(host, "alice", client_keys=[key])
        conn, term = await open_terminal(host, "bob", client_keys=[key])
        await term.wait_for("bob")
        await term.wait_for("New table")
        assert live_sessions(host, "bob") == 1
        conn.abort()  # the connection drops: no exit, no quit key
        await until(lambda: live_sessions(host, "bob") == 0)

    asyncio.run(scenario())


def test_the_session_limit_holds(host: Host) -> None:
    async def scenario() -> None:
        first, one = await open_terminal(host, "alice", password="alice-pw")
        second, two = await open_terminal(host, "bob", password="bob-pw")
        await one.wait_for("New table")
        await two.wait_for("New table")
        third, three = await open_terminal(host, "alice", password="alice-pw")
        await three.wait_for("the server is full")
        await three.chan.wait_closed()
        assert three.chan.get_exit_status() == 1
        third.close()
        second.close()
        await second.wait_closed()
        await until(lambda: live_sessions(host, "bob") == 0)
        again, four = await open_terminal(host, "bob", password="bob-pw")  # a place is free
        await four.wait_for("New table")
        again.close()
        first.close()

    asyncio.run(scenario())


def test_wrong_passwords_slow_down_one_name_at_one_address_only(tmp_path) -> None:
    server = start_host(tmp_path, {"carol": "carol-pw", "dan": "dan-pw"})
    try:

        async def scenario() -> None:
            for _ in range(4):  # three free failures, the fourth makes carol here wait 2 s
                with pytest.raises(asyncssh.PermissionDenied):
                    await open_terminal(server, "carol", password="wrong-pw")
            with pytest.raises(asyncssh.PermissionDenied):  # waiting: even the right one
                await open_terminal(server, "carol", password="carol-pw")
            # Not the owner elsewhere, nor another name from this address.
            conn, term = await open_terminal(
                server, "carol", password="carol-pw", source="127.0.0.2"
            )
            async with conn:
                await term.wait_for("New table")
            conn, term = await open_terminal(server, "dan", password="dan-pw")
            async with conn:
                await term.wait_for("New table")
            await asyncio.sleep(2.5)  # the wait is over
            conn, term = await open_terminal(server, "carol", password="carol-pw")
            async with conn:
                await term.wait_for("New table")

        asyncio.run(scenario())
        log = server.log_text()
        assert log.count("failed password for 'carol' from 127.0.0.1") == 4
        assert "'carol' from 127.0.0.1 waits 2 s after failed logins" in log
    finally:
        stop_host(server)


def test_many_wrong_passwords_from_one_address_slow_down_that_address(tmp_path) -> None:
    server = start_host(tmp_path, {"erin": "erin-pw"}, failed_logins=3)
    try:

        async def scenario() -> None:
            for name in ("x1", "x2", "x3", "x4"):  # four names, one address
                with pytest.raises(asyncssh.PermissionDenied):
                    await open_terminal(server, name, password="guess-pw")
            with pytest.raises(asyncssh.PermissionDenied):  # the address waits now
                await open_terminal(server, "erin", password="erin-pw")
            conn, term = await open_terminal(server, "erin", password="erin-pw", source="127.0.0.3")
            async with conn:
                await term.wait_for("New table")

        asyncio.run(scenario())
        assert "'erin' from 127.0.0.1 waits 1 s after failed logins" in server.log_text()
    finally:
        stop_host(server)


def test_unknown_names_play_as_guests_and_idle_sessions_close(tmp_path) -> None:
    # Listening on every address (LAN hosting): the sessions reach the game over loopback.
    server = start_host(tmp_path, {}, listen="0.0.0.0", unknown_users="guest", idle_timeout=2)
    try:

        async def scenario() -> None:
            opened = time.monotonic()
            conn, term = await open_terminal(server, "newcomer")  # no password asked
            async with conn:
                # Closed for idling, however slowly the machine runs: never before the
                # timeout, and with the goodbye (``wait_for`` bounds the wait).
                await term.wait_for("idle for 2 s: goodbye", timeout=60)
                assert time.monotonic() - opened >= 2
                await term.chan.wait_closed()

        asyncio.run(scenario())
    finally:
        stop_host(server)


def test_unknown_names_register_with_their_password_when_the_host_allows(tmp_path) -> None:
    server = start_host(tmp_path, {}, unknown_users="register")
    try:

        async def scenario() -> None:
            with pytest.raises(asyncssh.PermissionDenied):  # too short for an account
                await open_terminal(server, "dave", password="abc")
            conn, term = await open_terminal(server, "dave", password="dave-pw")
            async with conn:
                await term.wait_for("dave")
                await term.wait_for("New table")
            # The account now exists: the same password signs in, another does not.
            with pytest.raises(asyncssh.PermissionDenied):
                await open_terminal(server, "dave", password="other-pw")
            conn, term = await open_terminal(server, "dave", password="dave-pw")
            async with conn:
                await term.wait_for("dave")

        asyncio.run(scenario())
        with Storage(server.db) as store:
            assert store.account_by_name("dave") is not None
    finally:
        stop_host(server)


def test_a_session_without_a_terminal_is_told_to_ask_for_one(host: Host) -> None:
    async def scenario() -> None:
        async with asyncssh.connect(
            "127.0.0.1",
            host.ssh_port,
            username="alice",
            password="alice-pw",
            known_hosts=None,
            client_keys=(),
            agent_path=None,
            encoding=None,
        ) as conn:
            chan, term = await conn.create_session(Terminal)  # no pty requested
            await chan.wait_closed()
            assert "gbmj needs a terminal" in term.text()
            assert chan.get_exit_status() == 1

    asyncio.run(scenario())


def test_stopping_the_server_ends_its_ssh_sessions(tmp_path) -> None:
    server = start_host(tmp_path, {"erin": "erin-pw"})
    try:

        async def scenario() -> None:
            conn, term = await open_terminal(server, "erin", password="erin-pw")
            async with conn:
                await term.wait_for("New table")
                server.proc.terminate()  # SIGTERM, as systemd stops it
                await term.chan.wait_closed()
                assert "the server is shutting down" in term.text()

        asyncio.run(scenario())
        assert server.proc.wait(10) == 0
        assert live_sessions(server, "erin") == 0  # the session's token went with it
    finally:
        stop_host(server)


def test_the_keys_screen_adds_and_removes_a_key(host: Host) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519", comment="alice@desk")
    line = key.export_public_key().decode().strip()
    fingerprint = key.get_fingerprint("sha256")

    def stored() -> list[str]:
        with sqlite3.connect(host.db) as db:
            return [r[0] for r in db.execute("SELECT fingerprint FROM ssh_key")]

    async def scenario() -> None:
        conn, term = await open_terminal(host, "alice", password="alice-pw", size=(110, 30))
        async with conn:
            await term.wait_for("New table")
            mark = len(term.raw)
            term.send(b"k")  # the lobby's key for the SSH keys screen
            await term.wait_for("no keys yet", since=mark)  # in English here
            mark = len(term.raw)
            term.send(line.encode() + b"\r")
            await term.wait_for(fingerprint, since=mark)
            assert fingerprint in stored()
            mark = len(term.raw)
            term.send(b"\t")  # Tab to the list
            await term.settle(mark)
            mark = len(term.raw)
            term.send(b"\x1b[3~")  # Delete the selected key
            await term.wait_for("no keys yet", since=mark)  # in English here
            assert fingerprint not in stored()
            term.send(CTRL_Q)
            await term.chan.wait_closed()

    asyncio.run(scenario())


def test_the_game_port_counts_each_ssh_player_under_their_own_address(tmp_path) -> None:
    """The clients of SSH sessions all run on the host, yet the game port counts each
    under the address its player came from (the session's pass names it): one guest an
    hour from an address, so a second from 127.0.0.2 is refused, one from 127.0.0.3 not."""
    server = start_host(tmp_path, {}, unknown_users="guest", limits={"guests_per_hour": 1})
    try:

        async def scenario() -> None:
            conn, term = await open_terminal(server, "first", source="127.0.0.2")
            async with conn:
                await term.wait_for("New table")
            conn, term = await open_terminal(server, "second", source="127.0.0.2")
            async with conn:
                await term.wait_for("too many attempts")
            conn, term = await open_terminal(server, "third", source="127.0.0.3")
            async with conn:
                await term.wait_for("New table")

        asyncio.run(scenario())
        log = server.log_text()
        assert re.search(r"door_connection .*address=127\.0\.0\.2\b", log), log
        assert re.search(r"door_connection .*address=127\.0\.0\.3\b", log), log
        assert not re.search(r"address=127\.0\.0\.1\b", log)
    finally:
        stop_host(server)
