"""A real browser for the web tests: headless Chromium driven by Selenium, the page's
terminal read back through the DevTools protocol (the WebSocket frames the page
receives, replayed into a ``pyte`` screen), mouse clicks on terminal cells."""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyte
import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,860",
)
WAIT = 60.0  # seconds to wait for something to show


def chromium_paths() -> tuple[str, str]:
    """Debian's chromium and chromium-driver (``.ci/run`` installs them); skip without."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.skip("no chromium and chromedriver here (apt-get install chromium chromium-driver)")
    return binary, driver


@dataclass
class Screen:
    """The terminal as the page shows it, rebuilt from the bytes it was sent."""

    columns: int = 80
    rows: int = 24
    _screen: pyte.Screen = field(init=False)
    _stream: pyte.ByteStream = field(init=False)

    def __post_init__(self) -> None:
        self._screen = pyte.Screen(self.columns, self.rows)
        self._stream = pyte.ByteStream(self._screen)

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)

    def lines(self) -> list[str]:
        return list(self._screen.display)

    def cells(self, row: int) -> list[str]:
        """The cells of a row (a wide character, then a blank cell)."""
        return [self._screen.buffer[row][x].data for x in range(self.columns)]

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines())

    def find(self, what: str) -> tuple[int, int] | None:
        """(column, row) of the first cell of ``what`` on the screen, or None. Wide
        characters take two cells (pyte keeps a blank second cell after each)."""
        for row in range(self.rows):
            cells = [self._screen.buffer[row][x].data for x in range(self.columns)]
            line = "".join(cells)
            index = line.find(what)
            if index >= 0:
                return cell_of(cells, index), row
        return None

    def word_at(self, column: int, row: int) -> str:
        """The run of non-blank cells through (column, row): a tile's name, a word."""
        cells = [self._screen.buffer[row][x].data for x in range(self.columns)]
        if cells[column] in (" ", ""):
            column -= 1  # the second half of a wide character: the cell before holds it
        start = end = column
        while start > 0 and cells[start - 1] != " ":
            start -= 1
        while end + 1 < self.columns and cells[end + 1] != " ":
            end += 1
        return "".join(cells[start : end + 1])


def cell_of(cells: list[str], index: int) -> int:
    """The cell at character ``index`` of the joined cells (each cell holds one or no
    character: the second half of a wide one is empty)."""
    count = 0
    for x, data in enumerate(cells):
        if count >= index and data:
            return x
        count += len(data)
    return len(cells) - 1


class Browser:
    """One headless Chromium with one tab on the gbmj page; ``language``: the one it
    asks pages for (``Accept-Language``)."""

    def __init__(self, language: str = "en-US") -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        binary, driver = chromium_paths()
        self.profile = tempfile.mkdtemp(prefix="gbmj-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={self.profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        options.add_argument(f"--accept-lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        # Its own home too: Chromium leaves folders in $HOME/.config whatever the profile.
        env = {**os.environ, "HOME": self.profile}
        self.driver = webdriver.Chrome(service=Service(driver, env=env), options=options)
        self.screen = Screen()
        self.sockets: list[str] = []  # the WebSocket URLs the page opened
        self.closed = False  # the session's WebSocket closed

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    def open(self, url: str) -> None:
        self.driver.get(url)

    def pump(self) -> None:
        """Take in what the page received since the last call."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.webSocketCreated":
                self.sockets.append(params["url"])
                query = parse_qs(urlsplit(params["url"]).query)
                self.screen = Screen(int(query["width"][0]), int(query["height"][0]))
            elif method == "Network.webSocketFrameReceived":
                frame = params["response"]
                if frame["opcode"] == 2:  # binary: the terminal's bytes
                    self.screen.feed(base64.b64decode(frame["payloadData"]))
            elif method == "Network.webSocketClosed":
                self.closed = True

    def wait_for(self, what: str | Callable[[], bool], timeout: float = WAIT) -> None:
        """Until ``what`` shows on the terminal (or the condition holds)."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            if what() if callable(what) else what in self.screen.text():
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what!r}; screen:\n{self.screen.text()}"
                )
            time.sleep(0.1)

    def _terminal(self):
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, ".xterm-screen")

    def click_cell(self, column: int, row: int) -> None:
        """A mouse click in the middle of a terminal cell."""
        from selenium.webdriver.common.action_chains import ActionChains

        element = self._terminal()
        width = element.size["width"] / self.screen.columns
        height = element.size["height"] / self.screen.rows
        # Selenium's offsets are from the element's centre.
        x = (column + 0.5) * width - element.size["width"] / 2
        y = (row + 0.5) * height - element.size["height"] / 2
        ActionChains(self.driver).move_to_element_with_offset(element, x, y).click().perform()

    def click_text(self, what: str) -> None:
        self.pump()
        found = self.screen.find(what)
        assert found is not None, f"{what!r} is not on the screen:\n{self.screen.text()}"
        self.click_cell(*found)

    def type(self, *keys: str) -> None:
        """Keys into the terminal (it has the keyboard focus once clicked)."""
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(*keys).perform()

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))


HINTS = "  1    2    3"  # the key hints under the player's own hand: 1 under the first tile


def sit_with_bots_to_discard(browser: Browser, lang: str) -> None:
    """From the lobby: a new table without timers (the hand waits for the player), bots
    in the three other seats, ready, every claim passed by itself, until the player's
    own turn to discard, the key hints under the hand. The words waited for are the
    client's own, in its language."""
    from gbmj_tui.i18n import tr

    browser.type("n")  # the lobby's new table
    browser.wait_for(tr("Create", lang))
    browser.click_text(tr("Timers (s)", lang))  # off: no timer discards for the player
    time.sleep(0.3)
    browser.click_text(tr("Create", lang))
    browser.wait_for(tr("Seats/bots", lang))  # at the table
    browser.type("b")  # the seats: bots take the free ones
    browser.wait_for(tr("Fill with bots", lang))
    browser.type("f")
    normal = tr("normal", lang)
    browser.wait_for(lambda: browser.screen.text().count(f"({normal})") == 3)
    browser.type("b")  # the same key closes the seats
    bot = f"<{tr('bot', lang)} {normal}>"
    browser.wait_for(lambda: browser.screen.text().count(bot) == 3)
    browser.type("r")  # ready: the deal comes
    browser.wait_for(tr("dice {dice}", lang).replace("{dice}", ""), timeout=60)  # a match
    browser.type("x")  # pass every claim by itself: wait only for the player's turn
    browser.wait_for(f"[{tr('auto-pass', lang)}]")  # said on the status line
    browser.wait_for(f"[Enter] {tr('Discard', lang)}", timeout=120)
    browser.wait_for(HINTS)
