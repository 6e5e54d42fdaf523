"""The web door's players as the game server sees them, without a browser: each counted
under the address it came from (one visitor guessing passwords locks nobody else out),
pages of other names refused (DNS rebinding), and only real input keeping a session
from its idle close."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import aiohttp
import pytest

from web.conftest import start_web_host, stop_web_host, web_terminal

TAB, ENTER = "\t", "\r"
GUESSER, OWNER, SIGNUP = "127.0.0.2", "127.0.0.3", "127.0.0.4"


def test_a_visitor_guessing_passwords_locks_nobody_else_out(tmp_path: Path) -> None:
    """One browser session guesses alice's password until the game server makes its
    address wait; alice's right password, typed in a browser elsewhere, signs in at
    once."""
    host = start_web_host(tmp_path)
    try:

        async def scenario() -> None:
            async with web_terminal(host, "ws/en", source=SIGNUP) as term:
                await term.wait_for("Guest")
                await term.settle()
                await term.send("alice", TAB, "alice-pw", TAB, TAB, ENTER)  # Register
                await term.wait_for("New table")
            async with web_terminal(host, "ws/en", source=GUESSER) as term:
                await term.wait_for("Guest")
                await term.settle()
                await term.send("alice", TAB, "wrong-guess", TAB)  # on Log in
                for _ in range(20):  # five are free, then each makes the address wait
                    await term.settle()
                    mark = len(term.raw)
                    await term.send(ENTER)
                    await term.wait_for("wrong name or password|too many", since=mark, regex=True)
                    if "too many attempts" in term.text(mark):
                        break
                else:
                    raise AssertionError("the guesses were never slowed down")
            async with web_terminal(host, "ws/en", source=OWNER) as term:
                await term.wait_for("Guest")
                await term.settle()
                await term.send("alice", TAB, "alice-pw", TAB, ENTER)  # Log in
                await term.wait_for("New table")  # at once, not "too many attempts"
                assert "too many" not in term.text()

        asyncio.run(scenario())
        log = host.log_text()
        failures = re.findall(r"sign_in_failed .*", log)
        assert failures and all(f"address={GUESSER}" in line for line in failures), failures
    finally:
        stop_web_host(host)


def test_a_page_reached_by_a_name_must_be_listed(tmp_path: Path) -> None:
    """A site whose name an attacker points at this server (DNS rebinding) sends its own
    name as both Host and Origin: refused unless the host listed that origin."""
    host = start_web_host(tmp_path, origins=["https://mahjong.example.org"])
    try:

        async def scenario() -> None:
            where = f"rebound.example:{host.web_port}"
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                async with web_terminal(host, Host=where, Origin=f"http://{where}"):
                    pass
            assert refused.value.status == 403
            listed = "https://mahjong.example.org"
            async with web_terminal(host, Host="mahjong.example.org", Origin=listed) as term:
                await term.wait_for("Guest")
            local = f"http://localhost:{host.web_port}"
            async with web_terminal(host, Host=f"localhost:{host.web_port}", Origin=local) as term:
                await term.wait_for("Guest")

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_only_real_input_keeps_a_session_open(tmp_path: Path) -> None:
    """NULs, mouse movements and focus reports are no key and no click: a session that
    sends only them is closed when idle."""
    host = start_web_host(tmp_path, idle_timeout=2)
    try:

        async def scenario() -> None:
            async with web_terminal(host) as term:
                await term.wait_for("Guest")

                async def fidget() -> None:
                    while True:
                        for junk in ("\x00", "\x1b[<35;10;5M", "\x1b[I", "\x00\x00"):
                            await term.socket.send_json(["stdin", junk])
                        await asyncio.sleep(0.3)

                fidgeting = asyncio.get_running_loop().create_task(fidget())
                try:
                    await asyncio.wait_for(term.closed.wait(), 60)
                finally:
                    fidgeting.cancel()
                assert "idle for 2 s: goodbye" in term.text()

        asyncio.run(scenario())
    finally:
        stop_web_host(host)
