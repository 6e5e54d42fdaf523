"""The page in a real browser (headless Chromium): a guest signs in, sits at a table
with three bots, discards a tile by clicking it and sees it in the pool; a closed tab
ends its client; a full server answers with a clear page."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from gbmj_tui.i18n import tr
from web.browser import HINTS, Browser, cell_of, sit_with_bots_to_discard
from web.conftest import WebHost, start_web_host, stop_web_host
from web.proxy import prefix_proxy


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


def sign_in_as_guest(browser: Browser, host: WebHost, lang: str = "en", query: str = "") -> None:
    browser.open(f"{host.url}?lang={lang}{query}")
    browser.wait_for(tr("Guest", lang))
    assert "127.0.0.1:" not in browser.screen.text()  # no server to choose: the host's
    browser.click_text(tr("Guest", lang))  # a mouse click on the button
    browser.wait_for(tr("New table", lang))


def my_pool(browser: Browser, me: str) -> str:
    """My discards: the box in the middle of the table whose edge carries my name, read
    between its sides. (The ASCII style draws its boxes in ASCII too; a small terminal
    draws a rule and the sides' borders instead.)"""
    screen = browser.screen
    edge = re.compile(rf"[╭┏+|][─━-] ?\[[^\]]+\] {re.escape(me)}")  # ╭─ [W] guest-1
    for row in range(screen.rows):
        cells = screen.cells(row)
        found = edge.search("".join(cells))
        if found is None:
            continue
        left = cell_of(cells, found.start())
        right = min(x for x in range(left + 1, screen.columns) if cells[x] in set("╮┓+|"))
        below = []
        for r in range(row + 1, screen.rows):
            inside = screen.cells(r)
            if inside[left] not in set("│┃|"):  # (a set: "" is in every string)
                break
            below.append("".join(inside[left + 1 : right]))
        return "\n".join(below)
    raise AssertionError(screen.text())


@pytest.mark.parametrize(
    ("style", "lang", "query"),
    [("cjk", "zh", ""), ("ascii", "zh", "&tiles=ascii"), ("ascii", "en", "")],
)
def test_a_guest_discards_by_clicking_and_sees_it_in_the_pool(
    web_host: WebHost, browser: Browser, tmp_path: Path, style: str, lang: str, query: str
) -> None:
    """Chinese faces in Chinese; ASCII faces in English, or in Chinese when the page asks
    (``tiles=ascii``). The words waited for are the client's own, in its language."""
    sign_in_as_guest(browser, web_host, lang, query)
    me = next(w for w in browser.screen.text().split() if w.startswith("guest-"))
    sit_with_bots_to_discard(browser, lang)
    column, hints_row = browser.screen.find(HINTS.strip()) or (0, 0)
    tile = browser.screen.word_at(column, hints_row - 1)  # the first tile of the hand
    # A tile's face: 五万, 一饼, 东 (CJK) or 5m, 1p, E (ASCII).
    assert 1 <= len(tile) <= 2, browser.screen.text()
    assert tile.isascii() == (style == "ascii"), tile

    def pool() -> Counter[str]:
        # The last discard of the table carries a mark (``*``), a discard another seat
        # claimed one of its own (``~``, it stays in the pool): marks, not tiles.
        return Counter(w.strip("*~") for w in my_pool(browser, me).split() if w.strip("*~"))

    before = pool()

    def discarded() -> Counter[str]:
        return pool() - before

    seen_lifted: set[str] = set()

    def lifted() -> str | None:
        # Found again each time: a longer action line above moves the hand down.
        found = browser.screen.find(HINTS.strip())
        word = browser.screen.word_at(found[0], found[1] - 2).strip() if found else ""
        if 1 <= len(word) <= 2:
            seen_lifted.add(word)
            return word
        return None

    def click_first_tile() -> None:
        """The first tile of the hand, or the tile lifted from there (a click there
        discards it; its old place in the row may hold another tile by then)."""
        found = browser.screen.find(HINTS.strip())
        if found is not None:
            browser.click_cell(found[0], found[1] - (2 if lifted() else 1))

    # A click selects a tile (it is lifted), a second click discards it. A click the page
    # sends while the screen is being redrawn can go unseen (click again then), and one
    # can land beside the tile aimed at: what counts is that the lifted tile is the one
    # that reaches the pool.
    for wanted in (lambda: lifted() or discarded(), discarded):
        for _ in range(5):
            if wanted():
                break
            click_first_tile()
            with contextlib.suppress(AssertionError):
                browser.wait_for(lambda w=wanted: bool(w()), timeout=5)
    gone = discarded()
    assert sum(gone.values()) == 1, (gone, browser.screen.text())
    (tile_out,) = gone
    assert not seen_lifted or tile_out in seen_lifted, (seen_lifted, tile_out)
    assert tile_out.isascii() == (style == "ascii"), tile_out
    shot = screenshot_folder(tmp_path) / f"web-table-{lang}-{style}.png"
    browser.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    print(f"screenshot of the table: {shot}")


def test_a_closed_tab_ends_its_client_and_a_full_server_says_so(tmp_path: Path) -> None:
    host = start_web_host(tmp_path, max_sessions=1)
    first, second = Browser(language="zh-CN"), Browser()
    try:
        first.open(host.url)  # no ?lang=: the browser's language, Chinese
        first.wait_for("游客")
        (pid,) = host.client_pids()
        second.open(host.url)
        assert "The server is full" in second.driver.page_source
        first.open("about:blank")  # the tab leaves the page: its socket closes
        deadline = time.monotonic() + 60
        while Path(f"/proc/{pid}").exists():
            assert time.monotonic() < deadline, "the client of a closed tab still runs"
            time.sleep(0.1)
        second.open(host.url)  # the place is free again
        second.wait_for("Guest")  # this browser wants English
    finally:
        first.quit()
        second.quit()
        stop_web_host(host)


def test_the_page_works_under_a_path_prefix_behind_a_proxy(
    web_host: WebHost, browser: Browser
) -> None:
    with prefix_proxy(web_host.url) as page:
        browser.open(page.rstrip("/") + "?lang=en")  # no slash: the page adds it
        browser.wait_for("Guest")  # the terminal, its script and socket, all under /gbmj/
        assert browser.driver.current_url == page + "?lang=en"
        assert browser.sockets[0].startswith(page.replace("http:", "ws:") + "ws/en?")
