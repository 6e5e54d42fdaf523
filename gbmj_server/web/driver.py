"""The web door's clients' Textual driver: Textual's ``WebDriver`` without the blur it
gives the app as it starts.

Textual's web driver tells the app it has lost the browser's focus as soon as it starts,
and the page tells it it has the focus as soon as it opens: two restyles of the whole
connect screen that leave it as it was (a tenth of a web session's CPU to the lobby).
A hosted client starts focused, as a terminal's does; the page's own focus and blur
(the player switching tabs) reach it as before. This module runs in the session's
client process (forked by the launcher, which imports it beforehand).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.drivers.web_driver import WebDriver


class HostedWebDriver(WebDriver):
    def start_application_mode(self) -> None:
        """Textual's start, the blur it schedules on the app (``call_later``) left out."""
        app: Any = self._app
        call_later = app.call_later

        def without_blur(callback: Any, *args: Any, **kwargs: Any) -> bool:
            if any(isinstance(arg, events.AppBlur) for arg in args):
                return True
            return bool(call_later(callback, *args, **kwargs))

        app.call_later = without_blur
        try:
            super().start_application_mode()
        finally:
            del app.call_later  # the app's own again
