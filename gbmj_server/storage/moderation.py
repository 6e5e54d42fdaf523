"""Mutes in the store: the host's (an account whose chat goes nowhere) and each
player's own list of the players whose chat they do not want to see."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from gbmj_server.storage.engine import Database
from gbmj_server.storage.postgres import retry_conflicts


class ModerationMixin:
    """Mixed into ``Storage`` (which provides ``_db`` and ``_write``)."""

    _db: Database

    _write: Callable[[], AbstractContextManager[Database]]

    def mutes_of(self, account_id: int) -> set[int]:
        """The accounts ``account_id`` has muted for themselves."""
        rows = self._db.execute("SELECT muted_id FROM mute WHERE account_id = ?", (account_id,))
        return {r[0] for r in rows}

    @retry_conflicts
    def set_mute(self, account_id: int, muted_id: int, on: bool) -> None:
        with self._write() as db:
            if on:
                db.execute(
                    "INSERT INTO mute (account_id, muted_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (account_id, muted_id),
                )
            else:
                db.execute(
                    "DELETE FROM mute WHERE account_id = ? AND muted_id = ?", (account_id, muted_id)
                )

    def host_muted(self, account_id: int) -> bool:
        row = self._db.execute("SELECT muted FROM account WHERE id = ?", (account_id,)).fetchone()
        return bool(row and row[0])

    @retry_conflicts
    def set_host_muted(self, account_id: int, on: bool) -> None:
        with self._write() as db:
            db.execute("UPDATE account SET muted = ? WHERE id = ?", (int(on), account_id))
