"""The tables: each one an actor (``actor``) whose task alone runs its room (``table``)
and its match (``play``, ``settle``, ``items``), writes the match ahead (``journal``) and
speaks the protocol's forms (``wire``); ``registry`` keeps them all and resumes the
matches a restart interrupted."""
