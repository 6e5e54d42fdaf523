"""The one error type of the rules engine."""

from __future__ import annotations


class HandError(ValueError):
    """Bad input to the rules engine: never a score.

    ``code`` is a short machine word (``wrong_tile_count``, ``not_winning``,
    ``too_many_copies``, ``bad_meld``, ``unknown_tile``, ``bad_context``); the message
    says what was wrong in words.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
