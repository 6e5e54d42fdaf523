"""``gbmj-server admin migrate-to postgresql://...``: a SQLite database copied whole
into an empty PostgreSQL database, in one transaction, then checked.

The source is opened as a server opens it (so it is at this schema version first), the
target is migrated to the same version, and every table's rows are copied in the order
the migrations created the tables (each table after the tables its rows refer to), ids
kept. The copy commits only if every table holds as many rows as the source's and the
coin ledger balances on the target; otherwise nothing of it stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gbmj_server.storage.db import Storage, StorageError
from gbmj_server.storage.postgres import PgConnection


@dataclass(frozen=True, slots=True)
class Moved:
    rows: dict[str, int]  # table -> rows copied
    total_coins: int


def migrate_to(source: Path, url: str) -> Moved:
    """Copy the SQLite database at ``source`` into the empty PostgreSQL database at
    ``url``; ``StorageError`` (and nothing copied) if the target is not empty, a count
    differs or the ledger does not balance after."""
    if not source.is_file():
        raise StorageError(f"no SQLite database at {source}")
    with Storage(source) as old, Storage(url) as new:
        assert new._pg is not None
        pg: PgConnection = new._pg
        tables = [
            row[0]
            for row in old._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' AND name != 'schema_version' ORDER BY rowid"
            )
        ]
        for table in tables:
            # The house's wallet is the one row the migrations write.
            count = new._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            if count > (1 if table == "wallet" else 0):
                raise StorageError(f"the target database is not empty ({table} has rows)")
        rows: dict[str, int] = {}
        pg.script("BEGIN")
        try:
            pg.script("DELETE FROM wallet")
            for table in tables:
                rows[table] = _copy_table(old, pg, table)
            pg.sync_identities()
            for table, count in rows.items():
                held = new._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                if held != count:
                    raise StorageError(f"{table}: {held} rows copied of {count}")
            if not new.ledger_balanced():
                raise StorageError("the coin ledger does not balance after the copy")
            total = new.total_coins()
        except BaseException:
            pg.script("ROLLBACK")
            raise
        pg.script("COMMIT")
    return Moved(rows, total)


def _copy_table(old: Storage, pg: PgConnection, table: str) -> int:
    assert old._sqlite is not None
    cursor = old._sqlite.execute(f"SELECT * FROM {table}")
    columns = ", ".join(d[0] for d in cursor.description)
    n = 0
    with (
        pg.raw.cursor() as target,
        target.copy(f"COPY {table} ({columns}) FROM STDIN".encode()) as copy,
    ):
        for row in cursor:
            copy.write_row(row)
            n += 1
    return n
