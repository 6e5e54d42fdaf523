"""Several server nodes on one PostgreSQL database (docs/hosting.md, "More than one
machine"): each table's lease held by the node that runs it, and the tournament
runner's role by one node at a time (``leases``), and the lobby and its chat shared
through LISTEN/NOTIFY (``listener``). On SQLite a server is the only node and none of
this runs."""
