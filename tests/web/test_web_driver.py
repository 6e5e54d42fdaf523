"""The web door's clients' driver (gbmj_server.web.driver): a client starts with the
focus, as in a terminal (no blur of its own before the page has said anything), and
the page's blur and focus still reach it. A real Textual app in a process of its own,
driven over its pipes with textual-serve's packets, as the web door drives a client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from web.conftest import CSI

pytestmark = pytest.mark.slow

WAIT = 60.0
ROOT = Path(__file__).resolve().parents[2]
# A small app that says, on screen, whether it has the focus and how wide it is.
APP = """
import sys
from textual.app import App
from textual.widgets import Label
from {module} import {driver} as Driver


class Focus(App[None]):
    def compose(self):
        yield Label("")

    width = 0

    def show(self) -> None:
        self.query_one(Label).update(f"focus={{self.app_focus}} width={{self.width}}")

    def on_mount(self) -> None:
        self.width = self.size.width
        self.show()

    def watch_app_focus(self) -> None:
        if self.is_mounted(self.screen):
            self.show()

    def on_resize(self, event) -> None:
        self.width = event.size.width
        self.show()


Focus(driver_class=Driver).run()
"""


class Client:
    """The app's process, its output as text (the escape codes dropped)."""

    def __init__(self, module: str, driver: str) -> None:
        env = {**os.environ, "COLUMNS": "40", "ROWS": "5", "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", APP.format(module=module, driver=driver)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.text = ""
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        stdout.readline()  # __GANGLION__
        while header := stdout.read(5):
            payload = stdout.read(int.from_bytes(header[1:], "big"))
            if header[:1] == b"D":
                with self._changed:
                    self.text += CSI.sub(b"", payload).decode("utf-8", "replace")
                    self._changed.notify_all()

    def wait_for(self, text: str, since: int = 0) -> None:
        with self._changed:
            shown = self._changed.wait_for(lambda: text in self.text[since:], WAIT)
        assert shown, f"{text!r} never shown; the screen said {self.text[-300:]!r}"

    def meta(self, data: dict[str, object]) -> int:
        """Send the page's meta packet; returns how much had been shown before it."""
        mark = len(self.text)
        payload = json.dumps(data).encode()
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(b"M" + len(payload).to_bytes(4, "big") + payload)
        stdin.flush()
        return mark

    def quit(self) -> None:
        self.meta({"type": "quit"})
        self.proc.wait(WAIT)


def started_without_blur(module: str, driver: str) -> tuple[bool, Client]:
    """Start the app, wait until it has handled a resize sent after its start (so
    anything it scheduled as it started has been handled too): whether it was never
    drawn without the focus."""
    client = Client(module, driver)
    client.wait_for("width=40")
    client.meta({"type": "resize", "width": 37, "height": 5})
    client.wait_for("width=37")
    return "focus=False" not in client.text, client


def test_a_hosted_web_client_starts_focused_and_follows_the_page() -> None:
    focused, client = started_without_blur("gbmj_server.web.driver", "HostedWebDriver")
    try:
        assert focused
        client.wait_for("focus=False", since=client.meta({"type": "blur"}))
        client.wait_for("focus=True", since=client.meta({"type": "focus"}))
    finally:
        client.quit()
    assert client.proc.returncode == 0


def test_textuals_own_web_driver_blurs_itself_at_start() -> None:
    """What the hosted driver leaves out (the check above can fail): Textual's own
    driver draws the app without the focus before the page says anything."""
    focused, client = started_without_blur("textual.drivers.web_driver", "WebDriver")
    client.quit()
    assert not focused
