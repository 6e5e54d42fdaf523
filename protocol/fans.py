"""The fan table of Chinese Official Mahjong: ids, names and points.

Loaded once from ``fans.json`` (ids 1-81 of the official table plus 82, 明暗杠). Fans
travel on the wire as their ids; names are looked up here by both sides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class Fan:
    id: int
    name_zh: str
    name_en: str
    points: int


def _load() -> tuple[Fan, ...]:
    data = json.loads(resources.files(__package__).joinpath("fans.json").read_text("utf-8"))
    return tuple(Fan(f["id"], f["name_zh"], f["name_en"], f["points"]) for f in data["fans"])


FANS: tuple[Fan, ...] = _load()
FAN_BY_ID: dict[int, Fan] = {f.id: f for f in FANS}
FAN_BY_NAME_ZH: dict[str, Fan] = {f.name_zh: f for f in FANS}
FAN_BY_NAME_EN: dict[str, Fan] = {f.name_en: f for f in FANS}
