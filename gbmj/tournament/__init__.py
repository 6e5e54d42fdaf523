"""Club tournaments (比赛, docs/rules.md §2.12): the pure rules.

- ``points``: a session's table points from the table's scores (ties shared);
- ``standings``: the order of the standings over the sessions played;
- ``seating``: who sits at which table each session (the first session by draw or by
  seed order, Swiss-style after it, the leaders together last if asked, the 16-player
  schedule in which everyone meets everyone once);
- ``winds``: at each table, the order of the four players that evens out their winds;
- ``duplicate``: duplicate play's scoring against the field (§2.14).

Players are entrant numbers (ints). The server's runner (``gbmj_server.tournaments``)
keeps the tournament in storage and calls these.
"""
