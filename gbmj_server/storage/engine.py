"""What ``Storage`` uses of a database connection: sqlite3's ``execute`` and the cursor it
returns. A ``sqlite3.Connection`` is one; so is ``postgres.PgConnection``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol


class Cursor(Protocol):
    @property
    def lastrowid(self) -> int | None: ...

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...
