"""Back to the seat after the client is killed: a real client process killed with
``kill -9`` mid-match in tmux, started again, signed in with the password on the
connect screen, finds its hand on screen (the table, not the lobby); then the same over
SSH (the ``ssh`` process killed, ``ssh`` run again, the password typed at its prompt).

    uv run python scripts/tmux_return.py [--lang zh|en] [--size 100x32] [--captures DIR]

Starts ``gbmj-server`` on free ports (the game port and an SSH port) with a fresh
database, and a shell in a detached tmux session of the given size; in it: the client
registers ``drv``, creates a table, fills it with bots, gets ready and plays a few
turns; then each round: the client (or ssh) is killed with SIGKILL, started again, the
password typed, and the screen must show the table with the hand in play. Every capture
is saved in DIR. Needs tmux and ssh. Exit status 0 when everything was on screen.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from drive_kit import (
    HAND,
    PASSWORD,
    WORDS,
    Check,
    arguments,
    captures_folder,
    connect_screen,
    deal,
    descendants,
    fill_with_bots,
    flat,
    free_port,
    keys,
    new_table,
    pane_pid,
    play_until,
    register,
    served,
    size,
    text,
    wait_for,
)

SESSION = "gbmj-return-check"
PROMPT = r"(?m)[$#] *$"  # the shell's prompt: the client is gone


def kill_client(name: str) -> int:
    """SIGKILL the pane's deepest process whose command line holds ``name`` (the client
    itself, not ``uv run`` above it); its pid."""
    for pid in reversed(descendants(pane_pid())):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if name in cmdline:
            os.kill(pid, signal.SIGKILL)
            return pid
    raise RuntimeError(f"no {name!r} process in the pane")


def gone() -> str:
    """After a kill: the terminal as the killed client left it (raw, its last screen)
    made sane and clear again, then the shell's prompt."""
    time.sleep(0.5)
    text("stty sane; clear", pause=0.0)
    keys("Enter")
    return wait_for(PROMPT, 10)


def back_at_the_seat(words: dict[str, str], check: Check, how: str) -> None:
    screen = wait_for(HAND, 40)
    at_table = words["lobby"] not in screen  # the lobby's key bar offers a new table
    check.expect(at_table, f"{how}: back at the table with the hand in play", screen)


def main() -> int:
    args = arguments(__doc__).parse_args()
    words = WORDS[args.lang]
    check = Check(captures_folder(args.captures, "gbmj-return-"))
    ssh_port = free_port()
    config = f"bot_delay = 0.2\nhand_pause = 30.0\nssh_port = {ssh_port}\n"
    ssh = (
        f"ssh -p {ssh_port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
        f"-o PreferredAuthentications=password -o PubkeyAuthentication=no drv@127.0.0.1"
    )
    terminal = size(args.size)
    with served(
        check, SESSION, terminal, args.lang, "gbmj-return-", config, insecure=True, shell=True
    ) as server:
        text(server.command, pause=0.0)
        keys("Enter")
        register("drv", PASSWORD, words["lobby"])
        new_table(words)
        fill_with_bots(words)
        keys("Escape", "r", pause=0.6)
        screen = deal(words)
        check.expect(True, "the deal", screen)
        screen = play_until(words, words["discarded"], 120)
        check.expect(True, "a few turns played", screen)
        # 1. over TCP: the client killed, started again, the password typed
        kill_client("gbmj_tui")
        screen = gone()
        check.expect(True, "the client is gone (kill -9): the shell", screen)
        text(server.command, pause=0.0)
        keys("Enter")
        connect_screen()
        text(PASSWORD, pause=0.0)  # the name is remembered
        keys("Enter")
        back_at_the_seat(words, check, "TCP")
        # 2. over SSH, twice: the ssh process killed and run again
        kill_client("gbmj_tui")
        for attempt in (1, 2):
            gone()
            text(ssh, pause=0.0)
            keys("Enter")
            wait_for("password:", 20)
            text(PASSWORD, pause=0.0)
            keys("Enter")
            back_at_the_seat(words, check, f"SSH {attempt}")
            kill_client("ssh ")
        screen = gone()
        check.expect(words["turn"] not in flat(screen), "the ssh client is gone", screen)
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
