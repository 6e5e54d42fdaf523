"""Back to the seat after the browser is killed: a real Chromium on the web door
registers, sits at a table with three bots and plays into a hand; the browser (every
Chromium process, and its driver) is killed with SIGKILL mid-hand; a new Chromium opens
the page, signs in with the name and password, and must find the table with the hand
in play (the player's own tiles under their keys), not the lobby.

    uv run python scripts/web_return.py [--lang en|zh] [--captures DIR]

Starts ``gbmj-server`` with its web door on free ports with a fresh database (the web
tests' host), drives headless Chromium with Selenium and reads the page's terminal back
from the bytes it receives (``tests/web/browser.py``). Every screen checked is saved in
DIR as text, with a screenshot of the last. Needs chromium and chromedriver. Exit
status 0 when everything was on screen.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from drive_kit import HAND, Check, arguments, captures_folder, descendants, until  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from web.browser import HINTS, Browser, sit_with_bots_to_discard  # noqa: E402
from web.conftest import WebHost, start_web_host, stop_web_host  # noqa: E402

from gbmj_tui.i18n import tr  # noqa: E402

NAME, PASSWORD = "webdrv", "pw-of-webdrv"


def sign_in(browser: Browser, host: WebHost, lang: str, how: str) -> None:
    """Open the page; the name, the password, then ``how`` (Register, or Enter: log in)."""
    browser.open(f"{host.url}?lang={lang}")
    browser.wait_for(tr("Password", lang))
    time.sleep(1.0)  # the screen takes its keys once mounted
    browser.click_text(tr("Name", lang))  # the terminal takes the keyboard
    for keys in (NAME, Keys.TAB, PASSWORD):  # one at a time: the page sends them in turn
        browser.type(keys)
        time.sleep(0.5)
    if how == "register":
        browser.click_text(tr("Register", lang))
    else:
        browser.type(Keys.ENTER)


def kill_browser(browser: Browser) -> list[int]:
    """SIGKILL the browser's driver and every Chromium process under it: no goodbye
    reaches the page's server; the pids killed."""
    driver = browser.driver.service.process.pid
    pids = [*descendants(driver), driver]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # gone with its parent
            os.kill(pid, signal.SIGKILL)
    return pids


def main() -> int:
    args = arguments(__doc__, size=None).parse_args()
    lang = args.lang
    captures = captures_folder(args.captures, "gbmj-web-return-")
    host = start_web_host(Path(tempfile.mkdtemp(prefix="gbmj-web-return-")))
    check = Check(captures)
    browser = Browser()
    try:
        sign_in(browser, host, lang, "register")
        browser.wait_for(tr("New table", lang))
        check.expect(True, "registered: the lobby", browser.screen.text())
        sit_with_bots_to_discard(browser, lang)
        check.expect(True, "a hand in play, the player to discard", browser.screen.text())
        # The browser killed mid-hand: its session's client ends, the seat goes offline.
        killed = kill_browser(browser)
        ended = until(lambda: not host.client_pids(), 30)
        check.expect(ended, f"browser killed ({len(killed)} processes): its client ended", "")
        browser = Browser()
        sign_in(browser, host, lang, "login")
        browser.wait_for(lambda: re.search(HAND, browser.screen.text()) is not None)
        browser.wait_for(HINTS)
        screen = browser.screen.text()
        at_table = tr("New table", lang) not in screen and HINTS in screen
        check.expect(at_table, "signed in again: the table with the hand, own tiles", screen)
        browser.screenshot(captures / "back-at-the-table.png")
    except AssertionError as exc:  # a wait that timed out: what the screen showed
        check.failures.append(str(exc).splitlines()[0])
        check.save("TIMEOUT", browser.screen.text())
    finally:
        browser.quit()
        stop_web_host(host)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
