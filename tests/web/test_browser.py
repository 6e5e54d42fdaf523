"""The page in a real browser (headless Chromium): a guest signs in, sits at a table
with three bots, discards a tile by clicking it and sees it in the pool; a closed tab
ends its client; a full server answers with a clear page."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.keys import Keys

from web.browser import Browser
from web.conftest import WebHost, start_web_host, stop_web_host
from web.proxy import prefix_proxy

HINTS = "  1    2    3"  # the key hints under the hand: 1 sits under the first tile


@pytest.fixture
def browser() -> Iterator[Browser]:
    opened = Browser()
    try:
        yield opened
    finally:
        opened.quit()


def screenshot_folder(tmp_path: Path) -> Path:
    """Where the table's screenshot goes: ``GBMJ_SCREENSHOTS`` if set, else the test's
    own temporary folder (pytest keeps the last few runs')."""
    folder = Path(os.environ.get("GBMJ_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sign_in_as_guest(browser: Browser, host: WebHost, query: str = "?lang=en") -> None:
    browser.open(host.url + query)
    browser.wait_for("Server")
    browser.wait_for("127.0.0.1:7415")  # the client's default address
    browser.click_text("127.0.0.1:7415")
    browser.type(Keys.END)
    browser.type(*[Keys.BACKSPACE] * 20)
    browser.wait_for(lambda: browser.screen.find("7415") is None)
    browser.type(f"127.0.0.1:{host.game_port}")
    browser.wait_for(f"127.0.0.1:{host.game_port}")
    browser.click_text("Guest")  # a mouse click on the button
    browser.wait_for("New table")


def my_pool(browser: Browser, me: str) -> str:
    """The rows of the table's centre under my own name there: my discards. (The ASCII
    style draws its boxes in ASCII too.)"""
    lines = browser.screen.lines()
    rows = [
        r for r, line in enumerate(lines) if me in line and line.count("│") + line.count("|") >= 2
    ]
    assert rows, browser.screen.text()
    below = []
    for line in lines[rows[-1] + 1 :]:
        if "╰" in line or "+--" in line:
            break
        below.append(line)
    return "\n".join(below)


@pytest.mark.parametrize("style", ["cjk", "ascii"])
def test_a_guest_discards_by_clicking_and_sees_it_in_the_pool(
    web_host: WebHost, browser: Browser, tmp_path: Path, style: str
) -> None:
    sign_in_as_guest(browser, web_host, "?lang=en" + ("&tiles=ascii" if style == "ascii" else ""))
    me = next(w for w in browser.screen.text().split() if w.startswith("guest-"))
    browser.type("n")  # the lobby's new table
    browser.wait_for("Create")
    browser.click_text("Timers (s)")  # off: no timer discards for the player
    time.sleep(0.3)
    browser.click_text("Create")
    browser.wait_for("b Bots")  # at the table
    browser.type("x")  # pass every claim by itself: the test waits only for its turn
    browser.type("b")  # three bots take the free seats
    browser.wait_for(lambda: browser.screen.text().count("<bot>") == 3)
    browser.type("r")  # ready: the deal comes
    browser.wait_for("[Enter] Discard", timeout=120)
    browser.wait_for(HINTS)
    column, hints_row = browser.screen.find(HINTS.strip()) or (0, 0)
    tile = browser.screen.word_at(column, hints_row - 1)  # the first tile of the hand
    # A tile's face: 五万, 一饼, 东 (CJK) or 5m, 1p, E (ASCII).
    assert 1 <= len(tile) <= 2, browser.screen.text()
    assert tile.isascii() == (style == "ascii"), tile
    before = my_pool(browser, me).count(tile)
    browser.click_cell(column, hints_row - 1)  # a click selects the tile...
    time.sleep(0.5)
    browser.click_cell(column, hints_row - 1)  # ...a second click discards it
    browser.wait_for(lambda: my_pool(browser, me).count(tile) > before)
    shot = screenshot_folder(tmp_path) / f"web-table-{style}.png"
    browser.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    print(f"screenshot of the table: {shot}")


def test_a_closed_tab_ends_its_client_and_a_full_server_says_so(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, max_sessions=1)
    first, second = Browser(), Browser()
    try:
        first.open(host.url)
        first.wait_for("服务器")
        (pid,) = host.client_pids()
        second.open(host.url)
        assert "The server is full" in second.driver.page_source
        first.open("about:blank")  # the tab leaves the page: its socket closes
        deadline = time.monotonic() + 60
        while Path(f"/proc/{pid}").exists():
            assert time.monotonic() < deadline, "the client of a closed tab still runs"
            time.sleep(0.1)
        second.open(host.url)  # the place is free again
        second.wait_for("服务器")
    finally:
        first.quit()
        second.quit()
        stop_web_host(host)


def test_the_page_works_under_a_path_prefix_behind_a_proxy(
    web_host: WebHost, browser: Browser
) -> None:
    with prefix_proxy(web_host.url) as page:
        browser.open(page.rstrip("/") + "?lang=en")  # no slash: the page adds it
        browser.wait_for("Server")  # the terminal, its script and socket, all under /gbmj/
        assert browser.driver.current_url == page + "?lang=en"
        assert browser.sockets[0].startswith(page.replace("http:", "ws:") + "ws/en?")
