"""The web front door without a browser: the page, its WebSocket sessions (one client
process each, hosted and bounded), the origin check, the caps, the idle close, a
password that never reaches a URL or a log, the client's language from the page or
the browser's."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import aiohttp
import pytest

from gbmj_server.hosted import MAX_ROWS
from gbmj_server.web.service import browser_language
from web.conftest import MARKER, WebHost, start_web_host, stop_web_host, until, web_terminal

TAB, ENTER = "\t", "\r"
CHINESE = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}  # a browser that wants Chinese


def environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode().split("=", 1) for p in pairs if b"=" in p)


def test_the_page_uses_only_relative_addresses_so_a_path_prefix_works(web_host: WebHost) -> None:
    async def scenario() -> tuple[str, int, int]:
        async with aiohttp.ClientSession() as http:
            async with http.get(web_host.url) as page:
                text = await page.text()
            async with http.get(web_host.url + "static/js/textual.js") as script:
                status = script.status
            async with http.get(web_host.url + "download/x") as download:
                downloads = download.status  # a hosted client delivers no files
        return text, status, downloads

    text, status, downloads = asyncio.run(scenario())
    assert status == 200 and downloads == 404
    assert 'src="static/js/textual.js"' in text and 'href="static/css/xterm.css"' in text
    assert not re.search(r"""(src|href)="(/|https?:)""", text)  # nothing absolute
    assert "googleapis" not in text  # the font is served here, not fetched elsewhere


def test_a_session_runs_one_hosted_bounded_client_and_ends_it(tmp_path: Path) -> None:
    """One client process per session, forked by the launcher: its data size bounded,
    the clamped screen size, nothing of the server's environment (the launcher starts
    with a clean one; the session's own reaches the child through the launcher, where
    /proc does not show it), and its end when the tab closes."""
    host = start_web_host(tmp_path, client_memory=300)
    try:

        async def scenario() -> None:
            async with web_terminal(host, "ws/en", query="width=16000&height=16000") as term:
                await term.wait_for("Guest")  # the client's connect screen
                (pid,) = host.client_pids()
                assert MARKER not in environ(pid)  # not the server's environment
                limits = Path(f"/proc/{pid}/limits").read_text()
                assert re.search(r"Max data size\s+314572800\s+314572800 ", limits)
                await term.wait_for("Quit")  # the key bar: the last row drawn
                rows = re.findall(rb"\x1b\[(\d+);\d+H", bytes(term.raw))
                assert max(int(row) for row in rows) == MAX_ROWS  # 16000 asked, 200 drawn
            # The tab closed (the socket went): its client ends.
            await until(lambda: not Path(f"/proc/{pid}").exists())
            assert host.client_pids() == []

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_another_sites_page_may_not_open_a_session(web_host: WebHost) -> None:
    async def scenario() -> None:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with web_terminal(web_host, Origin="https://evil.example"):
                pass
        assert refused.value.status == 403
        own = f"http://127.0.0.1:{web_host.web_port}"
        async with web_terminal(web_host, Origin=own) as term:  # the page's own origin
            await term.wait_for("Guest")

    asyncio.run(scenario())
    assert "refused a session from a page on https://evil.example" in web_host.log_text()


def test_the_session_caps_refuse_one_more_with_a_clear_answer(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, max_sessions=1)
    try:

        async def scenario() -> None:
            async with web_terminal(host, **CHINESE) as first:
                await first.wait_for("游客")
                async with aiohttp.ClientSession() as http, http.get(host.url) as page:
                    assert page.status == 503
                    assert "The server is full" in await page.text()
                async with web_terminal(host) as second:
                    await second.closed.wait()
                    assert "the server is full" in second.text()
                    assert second.socket.close_code == 1013  # "try again later"
            await until(lambda: host.client_pids() == [])
            async with web_terminal(host, **CHINESE) as again:  # the place is free again
                await again.wait_for("游客")

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_sessions_from_one_address_are_capped(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, sessions_per_address=1)
    try:

        async def scenario() -> None:
            async with web_terminal(host) as first:
                await first.wait_for("Guest")
                async with web_terminal(host) as second:
                    await second.closed.wait()
                    assert "too many sessions from your address" in second.text()

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_an_idle_session_is_closed(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, idle_timeout=2)
    try:

        async def scenario() -> None:
            async with web_terminal(host) as term:
                await term.wait_for("Guest")
                (pid,) = host.client_pids()
                await asyncio.wait_for(term.closed.wait(), 60)  # never before 2 s of quiet
                assert "idle for 2 s: goodbye" in term.text()
            await until(lambda: not Path(f"/proc/{pid}").exists())

        asyncio.run(scenario())
    finally:
        stop_web_host(host)


def test_a_password_typed_in_the_page_is_in_no_url_and_no_log(web_host: WebHost) -> None:
    password = "s3cret-in-the-page"

    async def scenario() -> None:
        async with web_terminal(web_host, "ws/en") as term:
            await term.wait_for("Guest")
            assert "127.0.0.1:" not in term.text()  # no server to choose: the host's own
            await term.send("webber", TAB, password, TAB, TAB)  # Name, Password, to Register
            await asyncio.sleep(0.5)
            mark = len(term.raw)
            await term.send(ENTER)
            await term.wait_for("New table", since=mark)  # registered and in the lobby
            assert "webber" in term.text(mark)
        # The session's line in the access log comes once it ended: every address asked.
        await until(lambda: "GET /ws/en?width=100&height=30 " in web_host.log_text())

    asyncio.run(scenario())
    log = web_host.log_text()
    assert password not in log
    with sqlite3.connect(web_host.db) as db:  # registered on this host's game server
        assert db.execute("SELECT count(*) FROM account WHERE name = 'webber'").fetchone()[0]


def test_stopping_the_server_ends_its_web_sessions(tmp_path: Path) -> None:
    host = start_web_host(tmp_path)
    try:

        async def scenario() -> list[int]:
            async with web_terminal(host) as term:
                await term.wait_for("Guest")
                pids = host.client_pids()
                host.proc.terminate()  # SIGTERM, as systemd stops it
                await asyncio.wait_for(term.closed.wait(), 60)
                return pids

        pids = asyncio.run(scenario())
        assert host.proc.wait(60) == 0
        assert pids and not any(Path(f"/proc/{pid}").exists() for pid in pids)
    finally:
        stop_web_host(host)


def test_the_language_is_the_pages_or_else_the_browsers(web_host: WebHost) -> None:
    """``?lang=`` (ws/zh, ws/en) says the client's language; without it, the browser's
    most wanted language: Chinese for zh, English for anything else."""

    async def first_screen(path: str, words: str, **headers: str) -> str:
        async with web_terminal(web_host, path, **headers) as term:
            await term.wait_for(words)
            return term.text()

    async def scenario() -> None:
        await first_screen("ws/zh", "游客")
        await first_screen("ws/en", "Guest", **CHINESE)  # the page's choice comes first
        await first_screen("ws", "游客", **CHINESE)
        french = await first_screen("ws", "Guest", **{"Accept-Language": "fr-FR,zh;q=0.5"})
        assert "游客" not in french

    asyncio.run(scenario())
    assert browser_language("zh-TW") == "zh" and browser_language("en-US,zh;q=0.9") == "en"
    assert browser_language("zh;q=0.1, en;q=0.2") == "en" and browser_language(None) == "en"
    assert browser_language("zh;q=nonsense, en") == "en"
