"""A settled hand's log as the ``hand`` row keeps it (``event_log``, msgpack).

``hand`` is the engine's plain form of the hand (``HandState.to_dict``: the wall and
every action, from which the engine replays every event); ``times`` the milliseconds
from the hand's start of each action; ``players`` who played seats 0-3. Rows written
before the times were kept have none (read as zeros).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack


def write_log(hand: dict[str, Any], times: Sequence[int], players: Sequence[str]) -> bytes:
    blob: bytes = msgpack.packb(
        {"hand": hand, "times": list(times), "players": list(players)}, use_bin_type=True
    )
    return blob


def read_log(blob: bytes) -> dict[str, Any]:
    data: dict[str, Any] = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    data.setdefault("times", [0] * len(data["hand"]["log"]))
    data.setdefault("players", ["", "", "", ""])
    data.pop("events", None)  # older rows also kept the events: the log replays them
    return data
