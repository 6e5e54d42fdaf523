"""What a table's task tells the registry after a change (``gbmj_server.tables.registry``).

The registry answers "where is this account seated?", "which empty tables wait for
this owner?", "how many tables run bots?" and holds the lobby's entries from these
reports alone: nobody outside a table's task reads the table. A report is sent by the
table's task in the step that made the change, so an index is never behind a command
that is done (two tables cannot both take the last place for bots).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import messages as m

if TYPE_CHECKING:
    from gbmj_server.net.connection import Connection


@dataclass(frozen=True, slots=True)
class RoomChanged:
    """The facts of a table's room that the registry indexes, as they are now."""

    table_id: int
    owner_id: int
    seated: frozenset[int]  # the accounts holding a seat
    bots: bool  # a bot holds a seat: the table plays by itself
    waiting: bool  # nobody is in it: it waits for its owner (``table_linger``)


@dataclass(frozen=True, slots=True)
class Listed:
    """The table's lobby entry changed."""

    info: m.TableInfo


@dataclass(frozen=True, slots=True)
class Entered:
    """``conn`` is at the table now (a player or a spectator)."""

    table_id: int
    conn: Connection


@dataclass(frozen=True, slots=True)
class Left:
    """``conn`` is no longer at the table."""

    table_id: int
    conn: Connection


@dataclass(frozen=True, slots=True)
class Closed:
    """The table is gone."""

    table_id: int


Report = RoomChanged | Listed | Entered | Left | Closed
Reporter = Callable[[Report], None]
