"""Plans: distances to each target, the fast regular count, and the bots' purity."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from gbmj.bots import plans as P
from gbmj.rules.hand import Hand, Meld
from protocol.tiles import Tile
from protocol.vocabulary import MeldKind


def plan(name: str) -> P.Plan:
    return next(p for p in P.PLANS if p.name == name)


def distance(name: str, text: str) -> int:
    hand = Hand.parse(text)
    return P.reach(plan(name), tuple(hand.counts()), P.meld_info(hand.melds))[0]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("清龙万", "123m 456m 789m 55p 99s 1s", 0),  # ready: the straight is done
        ("清龙万", "123m 456m 78m 55p 99s 1s E", 1),  # 9m still missing
        ("清龙饼", "123m 456m 789m 55p 99s 1s", 7),  # 5p is the one dot of the straight
        ("花龙", "123m 456p 789s 11p 45s E", 0),
        ("清一色万", "123m 456m 789m 11m 45m 4p", 0),  # the dot goes
        ("清一色万", "123m 456m 789m 11m 4m 4p 5p", 1),  # two dots: one to draw past
        ("清一色万", "123m 456m 789m 111m 4p", 1),  # four sets and a single, not all 万
        ("七对", "11m 22p 33s EE CC 7m 7p 9s", 1),
        ("碰碰和", "111m 222p 333s EE CC", 0),
        ("碰碰和", "111m 222p 345s EE CC", 2),
        ("全不靠", "147m 258p 369s ESWN", 0),
        ("全不靠", "147m 258p 369s ESWNC", -1),
        ("三色三同顺", "123m 123p 123s 55m 78s", 0),
    ],
)
def test_distance_to_named_plans(name, text, expected):
    assert distance(name, text) == expected


def test_melds_fill_a_core_or_rule_a_plan_out():
    chow = Meld(MeldKind.CHOW, Tile.M7, claimed_from=1, claimed_tile=Tile.M8)
    pung = Meld(MeldKind.PUNG, Tile.E, claimed_from=2, claimed_tile=Tile.E)
    with_chow = Hand((*Hand.parse("123m 456m 55p 99s").concealed,), (chow,))
    info = P.meld_info(with_chow.melds)
    counts = tuple(with_chow.counts())
    assert P.reach(plan("清龙万"), counts, info)[0] == 0  # the chow is the 789m of the straight
    assert P.reach(plan("七对"), counts, info) == P.DEAD  # seven pairs cannot have melds
    pung_info = P.meld_info((pung,))
    assert P.reach(plan("清一色万"), tuple([0] * 34), pung_info) == P.DEAD
    assert P.reach(plan("碰碰和"), counts, info) == P.DEAD  # a chow rules out all pungs


def test_the_cheap_bound_never_exceeds_the_distance():
    rng = random.Random(3)
    wall = [t for t in range(34) for _ in range(4)]
    info = P.meld_info(())
    for _ in range(200):
        counts = [0] * 34
        for t in rng.sample(wall, 14):
            counts[t] += 1
        key = tuple(counts)
        for p in P.PLANS:
            r = P.reach(p, key, info)
            if r != P.DEAD:
                assert P.reach_bound(p, key, info) <= r[0], (p.name, key)


# What the pure layers may import (tests/test_layering.py), for the bots too: the bots
# run inside the server's event loop and must never block or read a clock.
ALLOWED_STDLIB = {"__future__", "collections", "dataclasses", "functools", "itertools"}
ALLOWED_STDLIB |= {"math", "random", "typing", "enum"}


def test_the_bots_import_only_the_standard_library_basics_rules_game_and_protocol():
    package = Path(P.__file__).parent
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: inside gbmj_server
                    assert node.level == 1 or (node.module or "").split(".")[0] in (
                        "rules",
                        "game",
                    ), f"{path.name}: from {'.' * node.level}{node.module}"
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in ALLOWED_STDLIB or top == "protocol", f"{path.name} imports {name}"


def test_each_plan_names_the_fans_it_aims_for() -> None:
    """The coach shows a plan by its fans (protocol/fans.json, both languages)."""
    from protocol.fans import FAN_BY_ID

    for p in P.PLANS:
        if p.kind == P.GENERIC:
            assert p.fans == ()
            continue
        assert p.fans, p.name
        assert p.name.startswith("".join(FAN_BY_ID[f].name_zh for f in p.fans)), p.name
        assert p.suit == -1 or p.name.endswith("万饼条"[p.suit]) or p.name.startswith("一色")
