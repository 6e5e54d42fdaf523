"""The error a request handler raises; the server turns it into an ``error`` reply."""

from __future__ import annotations


class RequestError(Exception):
    """A refused request: ``code`` (a short machine word) and a readable message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
