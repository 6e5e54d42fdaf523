"""What the handlers of several domains share: the table a request is for."""

from __future__ import annotations

from gbmj_server.net.connection import Connection
from gbmj_server.net.errors import RequestError
from gbmj_server.services import Services
from gbmj_server.tables.actor import TableActor
from protocol.errors import ErrorCode


def at_table(services: Services, conn: Connection, table_id: int) -> TableActor:
    """The actor of the table ``conn`` is at, which must be ``table_id``."""
    if conn.session.table != table_id:
        raise RequestError(ErrorCode.NOT_SEATED, f"you are not at table {table_id}")
    return services.tables.get(table_id)


def signed_in_id(conn: Connection) -> int:
    """The account id of a signed-in connection (the dispatcher checked)."""
    account_id = conn.session.account_id
    assert account_id is not None
    return account_id
