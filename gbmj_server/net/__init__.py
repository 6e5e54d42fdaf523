"""The trio side of the lobby server: listener, connections, lobby, tables, bots.

Everything here runs on one trio loop; blocking work (SQLite, password hashing) goes to
worker threads through ``AsyncStorage``. Messages are handled as plain dicts (``type``
plus fields); ``wire`` turns them into frames and back.
"""
