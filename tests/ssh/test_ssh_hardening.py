"""SSH sessions cannot hurt the host: a clamped terminal size, a bounded client in a
hosted mode, a clear answer without a terminal, a cap per address, and a client that
ends when its channel closes."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import asyncssh

from gbmj_server.hosted import MAX_COLUMNS, MAX_ROWS
from ssh.conftest import (
    Host,
    Terminal,
    client_pids,
    launcher_pids,
    open_terminal,
    start_host,
    stop_host,
    until,
)

ROW = re.compile(rb"\x1b\[(\d+);(\d+)H")  # the client's cursor moves: row;column


def drawn_rows(term: Terminal, since: int = 0) -> int:
    return max((int(m[1]) for m in ROW.finditer(bytes(term.raw[since:]))), default=0)


def test_a_huge_terminal_is_drawn_at_most_500_by_200(host: Host) -> None:
    async def scenario() -> None:
        conn, term = await open_terminal(host, "alice", size=(16000, 16000), password="alice-pw")
        async with conn:
            await term.wait_for("New table")
            await term.wait_for(b"\x1b[%d;" % MAX_ROWS)  # the last row there is
            assert drawn_rows(term) == MAX_ROWS
            mark = len(term.raw)
            term.chan.change_terminal_size(30000, 20000)
            term.chan.change_terminal_size(90, 25)
            await term.wait_for(b"\x1b[25;", since=mark)
            await term.settle(mark)
            term.chan.change_terminal_size(65535, 65535)
            mark = len(term.raw)
            await term.wait_for(b"\x1b[%d;" % MAX_ROWS, since=mark)
            await term.settle(mark)
            assert drawn_rows(term) == MAX_ROWS
            assert all(int(m[2]) <= MAX_COLUMNS for m in ROW.finditer(bytes(term.raw)))

    asyncio.run(scenario())


def test_the_client_runs_hosted_with_a_bounded_data_size(tmp_path: Path) -> None:
    server = start_host(tmp_path, {"fay": "fay-pw"}, client_memory=200)
    try:

        async def scenario() -> None:
            conn, term = await open_terminal(server, "fay", password="fay-pw")
            async with conn:
                await term.wait_for("New table")
                (pid,) = client_pids(server)
                limits = Path(f"/proc/{pid}/limits").read_text()
                assert re.search(r"Max data size\s+209715200\s+209715200 ", limits)
                # The session's environment (its token, its door pass) reaches the
                # forked client through the launcher's socket: /proc shows the
                # launcher's clean one, nothing of any session's.
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                assert not any(v.startswith(b"GBMJ_") for v in environ), environ

        asyncio.run(scenario())
    finally:
        stop_host(server)


def test_without_a_terminal_the_player_is_told_what_to_type(host: Host) -> None:
    async def ask(command: str | None) -> str:
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
            chan, term = await conn.create_session(Terminal, command)  # no pty: ssh -T
            await asyncio.wait_for(chan.wait_closed(), 30)  # answered, not hanging
            assert chan.get_exit_status() == 1
            return term.text()

    async def scenario() -> None:
        port = host.ssh_port
        shell = await ask(None)
        assert f"gbmj needs a terminal: use ssh -t -p {port} alice@127.0.0.1\r\n" in shell
        english = await ask("en")  # as `ssh -p PORT alice@HOST en` asks
        assert f"gbmj needs a terminal: use ssh -t -p {port} alice@127.0.0.1 en\r\n" in english

    asyncio.run(scenario())


def test_a_closed_channel_ends_its_client(host: Host) -> None:
    async def scenario() -> None:
        conn, term = await open_terminal(host, "bob", password="bob-pw")
        await term.wait_for("New table")
        (pid,) = client_pids(host)
        conn.abort()  # the player's connection drops
        await until(lambda: not Path(f"/proc/{pid}").exists(), timeout=30)
        await until(lambda: client_pids(host) == [], timeout=30)

    asyncio.run(scenario())


def test_sessions_from_one_address_are_capped(tmp_path: Path) -> None:
    server = start_host(tmp_path, {}, unknown_users="guest", sessions_per_address=1)
    try:

        async def scenario() -> None:
            first, one = await open_terminal(server, "newcomer")
            await one.wait_for("guest-")  # the server named the guest
            second, two = await open_terminal(server, "newcomer")
            await two.wait_for("too many sessions from your address")
            await two.chan.wait_closed()
            second.close()
            other, three = await open_terminal(server, "newcomer", source="127.0.0.4")
            await three.wait_for("guest-")  # another address has its own places
            other.close()
            first.close()

        asyncio.run(scenario())
    finally:
        stop_host(server)


def test_ssh_sessions_go_on_when_the_launcher_is_killed(tmp_path: Path) -> None:
    """The launcher that forks the sessions' clients is started again when killed: the
    session it had started plays on (and ends with its exit code), a new one starts."""
    server = start_host(tmp_path, {"gus": "gus-pw", "hal": "hal-pw"})
    try:

        async def scenario() -> None:
            (launcher,) = launcher_pids(server)
            conn, term = await open_terminal(server, "gus", password="gus-pw")
            async with conn:
                await term.wait_for("New table")
                os.kill(launcher, signal.SIGKILL)
                await until(lambda: launcher_pids(server) not in ([], [launcher]), timeout=30)
                other, again = await open_terminal(server, "hal", password="hal-pw")
                async with other:
                    await again.wait_for("New table")  # the new launcher's child
                mark = len(term.raw)
                term.send(b"n")  # the first session's client, orphaned, takes keys still
                await term.wait_for("Bots allowed", since=mark)
                term.send(b"\x1b\x11")  # Esc, then Ctrl+Q: the client quits
                assert term.chan is not None
                await term.chan.wait_closed()

        asyncio.run(scenario())
    finally:
        stop_host(server)
