"""The error a request handler raises; the dispatcher turns it into an ``error`` reply."""

from __future__ import annotations

from protocol.errors import ErrorCode


class RequestError(Exception):
    """A refused request: an ``ErrorCode`` and a readable message. Nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
