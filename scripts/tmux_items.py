"""Drive the client in tmux against a real server as a player with items would, and fail
if the screen is wrong at any step.

    uv run python scripts/tmux_items.py [--lang zh|en] [--size 100x32] [--captures DIR]

Starts ``gbmj-server`` on a free port with a fresh database (a table fee of 2 × the
stake) and the client in a detached tmux session, then: registers; the host gives the
player a gem (``gbmj-server admin give``); opens the shop (``i``): the gold sign and the
tablecloth are on sale with their prices, the gem is in the inventory; buys a gold sign
and a tablecloth (Enter, ``y``); uses the gem from the inventory (Tab, ``u``): the
lobby's rating shows its 10 points; creates a table, opens its settings (``o``), gives
it a new name paid with the gold sign (the sign chosen in the dialog): the table shows
the new name; tries another name: refused, the name is protected; lays the tablecloth
(``l``, the wood one): the board's ground takes the wood colour (read from the
terminal's colours); the host's ledger check passes. Every capture is saved in DIR.
Needs tmux. Exit status 0 when everything was on screen.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive_kit import (
    PASSWORD,
    WORDS,
    Check,
    admin,
    arguments,
    capture,
    captures_folder,
    keys,
    new_table,
    register,
    served,
    size,
    text,
    until,
    wait_for,
)

SESSION = "gbmj-items-check"
# The wood tablecloth's ground (table.tcss #875f00) as the terminal is told it: 256
# colours or true colour.
WOOD = r"48;5;94m|48;2;135;95;0m"
OWN_WORDS = {
    "en": {
        "shop": "Shop / Inventory",
        "gold": "gold sign",
        "cloth": "tablecloth",
        "gem": "gem",
        "bought gold": "Bought: gold sign x1",
        "bought cloth": "Bought: tablecloth x1",
        "used": "Used: gem",
        "rating": "rating 10",
        "protected": "protected",
        "cloths": "Lay a tablecloth",
    },
    "zh": {
        "shop": "商店",
        "gold": "金字招牌",
        "cloth": "桌布",
        "gem": "标准钻石",
        "bought gold": "金字招牌 x1",
        "bought cloth": "桌布 x1",
        "used": "已使用：标准钻石",
        "rating": "积分 10",
        "protected": "保护",
        "cloths": "铺桌布",
    },
}


def drive(words: dict[str, str], check: Check, db: Path) -> None:
    screen = register("drv", PASSWORD, words["lobby"])
    check.expect(True, "the lobby after registering", screen)
    given = admin(db, "give", "drv", "gem")
    check.expect(given.returncode == 0, "the host gives the player a gem", given.stdout)

    keys("i", pause=1.0)
    screen = wait_for(re.escape(words["shop"]), 10)
    screen = wait_for(re.escape(words["cloth"]), 10)
    on_sale = all(w in screen for w in (words["gold"], "5000", words["cloth"], "2000"))
    check.expect(on_sale, "the shop sells the gold sign and the tablecloth", screen)
    check.expect(words["gem"] in screen, "the gem is in the inventory", screen)
    # The offers in the shop's order: timer extension, tile counter, table sign, gold
    # sign, tablecloth.
    keys("Down", "Down", "Down", "Enter", "y", pause=0.6)
    screen = wait_for(re.escape(words["bought gold"]), 10)
    check.expect(True, "a gold sign bought", screen)
    keys("Down", "Enter", "y", pause=0.6)
    screen = wait_for(re.escape(words["bought cloth"]), 10)
    check.expect(True, "a tablecloth bought", screen)
    keys("Tab", "Home", "u", pause=0.8)  # the inventory's first slot: the gem
    screen = wait_for(re.escape(words["used"]), 10)
    check.expect(True, "the gem used from the inventory", screen)
    keys("Escape", pause=1.0)
    screen = wait_for(re.escape(words["rating"]), 10)
    check.expect(True, "the lobby shows the gem's 10 rating points", screen)

    screen = new_table(words)
    check.expect(True, "a table of the player's", screen)
    keys("o", pause=1.0)  # the settings, the name field first (its text selected)
    text("golden table")
    keys("Tab", "Enter", "Down", "Enter", pause=0.6)  # the sign: the gold one
    keys("BTab", "Enter", pause=1.0)  # back to the name, where Enter submits the dialog
    screen = wait_for("golden table", 10)
    check.expect(True, "the table renamed with the gold sign", screen)
    keys("o", pause=1.0)
    text("plain table")
    keys("Enter", pause=1.0)
    screen = wait_for(words["protected"], 10)
    renamed = "plain table" not in screen.splitlines()[0]
    check.expect(renamed, "another name is refused: the name is protected", screen)
    bare = re.search(WOOD, capture(colours=True)) is None
    check.expect(bare, "no wood before the tablecloth", capture(colours=True))
    keys("l", pause=1.0)
    screen = wait_for(re.escape(words["cloths"]), 10)
    keys("Down", "Down", "Down", "Enter", pause=1.0)  # wood, the last

    def wood_shows() -> bool:
        nonlocal screen
        screen = capture(colours=True)
        return re.search(WOOD, screen) is not None

    wood = until(wood_shows, 10, every=0.3)
    check.expect(wood, "the board's ground is the wood tablecloth's", screen)
    ledger = admin(db, "check")
    check.expect(ledger.returncode == 0, "the host's ledger check passes", ledger.stdout)


def main() -> int:
    args = arguments(__doc__).parse_args()
    words = {**WORDS[args.lang], **OWN_WORDS[args.lang]}
    check = Check(captures_folder(args.captures, "gbmj-tmux-"))
    config = "bot_delay = 0.2\ntable_fee = 2\n"
    terminal = size(args.size)
    with served(
        check, SESSION, terminal, args.lang, "gbmj-items-", config, tls=True, cd=True
    ) as server:
        drive(words, check, server.db)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
