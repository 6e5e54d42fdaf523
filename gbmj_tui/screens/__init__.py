"""The client's screens: connect, lobby, table, result, help."""
