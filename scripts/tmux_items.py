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

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbmj_tui.local_server import start_local_server  # noqa: E402
from scripts.tmux_table import Check, wait_for  # noqa: E402

SESSION = "gbmj-table-check"  # tmux_table's helpers drive this session
# The wood tablecloth's ground (table.tcss #875f00) as the terminal is told it: 256
# colours or true colour.
WOOD = r"48;5;94m|48;2;135;95;0m"
WORDS = {
    "en": {
        "lobby": "New table",
        "shop": "Shop / Inventory",
        "gold": "gold sign",
        "cloth": "tablecloth",
        "gem": "gem",
        "bought gold": "Bought: gold sign x1",
        "bought cloth": "Bought: tablecloth x1",
        "used": "Used: gem",
        "rating": "rating 10",
        "owner": "owner drv",
        "protected": "protected",
        "cloths": "Lay a tablecloth",
    },
    "zh": {
        "lobby": "新建牌桌",
        "shop": "商店",
        "gold": "金字招牌",
        "cloth": "桌布",
        "gem": "标准钻石",
        "bought gold": "金字招牌 x1",
        "bought cloth": "桌布 x1",
        "used": "已使用：标准钻石",
        "rating": "积分 10",
        "owner": "桌主 drv",
        "protected": "保护",
        "cloths": "铺桌布",
    },
}


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def keys(*names: str, pause: float = 0.5) -> None:
    for name in names:
        tmux("send-keys", "-t", SESSION, name)
        time.sleep(pause)


def text(words: str) -> None:
    tmux("send-keys", "-t", SESSION, "-l", words)
    time.sleep(0.5)


def capture(colours: bool = False) -> str:
    return tmux("capture-pane", "-t", SESSION, "-p", *(["-e"] if colours else []))


def admin(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = ["uv", "run", "--project", str(ROOT), "gbmj-server", "admin", "--db", str(db)]
    return subprocess.run([*command, *args], capture_output=True, text=True, check=False)


def drive(words: dict[str, str], check: Check, db: Path) -> None:
    wait_for("gbmj", 30)
    time.sleep(1.5)  # the screen takes its keys once mounted
    text("drv")
    keys("Tab")
    text("pw-of-drv")
    keys("Tab", "Tab", "Enter")  # to the Register button, press it
    screen = wait_for(words["lobby"], 20)
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

    keys("n")
    keys("Enter", pause=1.0)  # the settings dialog: Enter creates the table
    screen = wait_for(words["owner"], 10)
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
    deadline = time.monotonic() + 10
    while not re.search(WOOD, screen := capture(colours=True)) and time.monotonic() < deadline:
        time.sleep(0.3)
    wood = re.search(WOOD, screen) is not None
    check.expect(wood, "the board's ground is the wood tablecloth's", screen)
    ledger = admin(db, "check")
    check.expect(ledger.returncode == 0, "the host's ledger check passes", ledger.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", choices=("zh", "en"), default="en")
    parser.add_argument("--size", default="100x32")
    parser.add_argument("--captures", type=Path)
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    words = WORDS[args.lang]
    captures = args.captures or Path(tempfile.mkdtemp(prefix="gbmj-tmux-"))
    captures.mkdir(parents=True, exist_ok=True)
    where = Path(tempfile.mkdtemp(prefix="gbmj-items-"))
    (where / "server.toml").write_text("bot_delay = 0.2\ntable_fee = 2\n")
    db = where / "gbmj.db"
    server, port = start_local_server(db, where / "server.toml", tls=True)
    home = shlex.quote(str(where / "config"))  # a first start: no remembered name
    command = (
        f"cd {shlex.quote(str(where))} && XDG_CONFIG_HOME={home} "
        f"uv run --project {shlex.quote(str(ROOT))} python -m gbmj_tui "
        f"--lang {args.lang} --server 127.0.0.1:{port}"
    )
    tmux("kill-session", "-t", SESSION)
    tmux("new-session", "-d", "-s", SESSION, "-x", str(width), "-y", str(height), command)
    check = Check(captures)
    try:
        drive(words, check, db)
    except TimeoutError as exc:
        check.failures.append(str(exc).splitlines()[0])
        check.save("TIMEOUT", capture())
    finally:
        tmux("kill-session", "-t", SESSION)
        server.terminate()
        server.wait(10)
    for failure in check.failures:
        print("FAILED:", failure, file=sys.stderr)
    print(f"checks: {check.count}, failures: {len(check.failures)}, captures: {captures}")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
