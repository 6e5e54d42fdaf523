"""The PostgreSQL server and databases of ``pg`` for the storage tests."""

from storage.pg import db_target, pg_server, pg_url  # noqa: F401 (fixtures)
