"""The game engine: one hand and one match of Chinese Official Mahjong as pure,
deterministic state machines (no I/O, no clock). The server drives them.

- ``Wall`` (wall.py): the seeded wall, dice, break point and commitment.
- ``HandState`` (hand_state.py): one hand — ``to_act``, ``timer``, ``legal_actions``,
  ``apply``, ``timeout``, ``escape``, ``view``, ``replay``, ``to_dict``/``from_dict``.
- ``Match`` (match.py): rounds, dealers, prevailing winds, seat changes, standings.
- Actions (actions.py) and events (events.py) are the protocol's records, named as in
  docs/vocabulary.md; events.py holds the game's hiding rules (``for_viewer``).
- ``HandMemo`` (memo.py): the hand's speed caches, apart from its rules.
"""
