"""How reaching the server can fail, in words for the player.

``ConnectError``: the server could not be reached or talked to (``text(lang)`` says
why); ``ConnectRefused``: nor will it be by trying again (its certificate changed, it
serves no TLS); ``RequestFailed``: the server answered a request with ``error``.
"""

from __future__ import annotations

from gbmj_tui.i18n import tr
from protocol import messages as m


class ConnectError(Exception):
    """Could not reach or talk to the server; ``text(lang)`` says why, for the player."""

    def __init__(self, reason: str, /, **values: object) -> None:
        super().__init__(reason.format(**values))
        self.reason = reason  # a catalog msgid
        self.values = values

    def text(self, lang: str) -> str:
        return tr(self.reason, lang).format(**self.values)


class ConnectRefused(ConnectError):
    """Connecting again cannot help: the connection is not safe as it is (a changed
    certificate, a server without TLS); the player must act."""


class RequestFailed(Exception):
    """The server answered a request with ``error``."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(error.message)
        self.code = error.code
        self.error = error
