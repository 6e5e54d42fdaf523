"""``gbmj [solo [--guest] [--timers off|relaxed|standard]] [--ascii] [--lang zh|en]
[--server HOST:PORT] [--insecure]``: the command line (solo asks for its pace unless
``--timers`` says it); ``gbmj export ID`` and ``gbmj verify FILE`` are the replay tools
(``gbmj_tui.tools``).

The language follows the locale unless ``--lang`` says otherwise. Connections are TLS,
the server's certificate pinned on first use; ``--insecure`` connects over plain TCP.
The environment of a front door (SSH, the web) starts the client signed in:
``GBMJ_SERVER`` with ``GBMJ_SESSION`` (a session token) or ``GBMJ_GUEST=1``, and
``GBMJ_TLS_FINGERPRINT`` (the game port's certificate, checked, nothing pinned) or
``GBMJ_INSECURE=1`` (a plain game port), ``GBMJ_DOOR`` (the session's pass, which tells
the game server who the player is); ``GBMJ_HOSTED=1`` makes it write no file and show
no path of the host.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
from collections.abc import MutableMapping
from importlib.metadata import version
from pathlib import Path

from gbmj_tui import tools
from gbmj_tui.app import GbmjApp
from gbmj_tui.config import data_dir, parse_address
from gbmj_tui.errors import ConnectError
from gbmj_tui.i18n import lang_from_env
from gbmj_tui.local_server import start_local_server
from gbmj_tui.solo import ACCOUNT_FILE, PACES, Solo

VERSION = version("gbmj")  # read once: a hosted session's process has it from the launcher


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gbmj",
        description="Chinese Official Mahjong",
        epilog="also: gbmj export ID (a match or a hand to a replay file; --help for more), "
        "gbmj verify FILE (check a replay file: the wall, every step, the result)",
    )
    parser.add_argument("command", nargs="?", choices=("solo",), help="solo: play three bots")
    parser.add_argument("--ascii", action="store_true", help="draw nothing but ASCII")
    parser.add_argument("--lang", choices=("zh", "en"), help="interface language")
    parser.add_argument("--server", metavar="HOST:PORT", help="the server to connect to")
    parser.add_argument(
        "--insecure", action="store_true", help="plain TCP, no TLS (a server that serves no TLS)"
    )
    parser.add_argument("--db", type=Path, help="solo: the database file")
    parser.add_argument("--guest", action="store_true", help="solo: play as a guest")
    parser.add_argument(
        "--timers",
        choices=tuple(PACES),
        help="solo: the pace (relaxed, standard or off); asked at the start when not given",
    )
    parser.add_argument("--version", action="version", version=f"gbmj {VERSION}")
    args = parser.parse_args(argv)
    if args.server is not None:
        try:
            parse_address(args.server)
        except ConnectError as exc:
            parser.error(str(exc))
    return args


def signed_in_from_env(env: MutableMapping[str, str]) -> tuple[str, str | None] | None:
    """``GBMJ_SERVER`` with ``GBMJ_SESSION`` or ``GBMJ_GUEST=1``, taken out of the
    environment once read (a token is a secret)."""
    server = env.pop("GBMJ_SERVER", None)
    token = env.pop("GBMJ_SESSION", None)
    guest = env.pop("GBMJ_GUEST", None) == "1"
    if server is None or not (token or guest):
        return None
    return server, token or None


def main(argv: list[str] | None = None) -> None:
    tools.hand_over(argv)  # export and verify, without the app
    args = parse_args(argv)
    lang = args.lang or lang_from_env()
    hosted = os.environ.get("GBMJ_HOSTED") == "1"
    if args.command != "solo":
        signed_in = signed_in_from_env(os.environ)
        insecure = args.insecure or os.environ.get("GBMJ_INSECURE") == "1"
        expect = os.environ.get("GBMJ_TLS_FINGERPRINT") or None
        door = os.environ.pop("GBMJ_DOOR", None) or None  # a secret, as a token is
        GbmjApp(
            lang=lang,
            ascii=args.ascii,
            hosted=hosted,
            server=args.server,
            signed_in=signed_in,
            insecure=insecure,
            expect=expect,
            door=door,
        ).run()
        return
    where = data_dir()
    proc, port = start_local_server(args.db or where / "solo.db")
    try:
        account = None if args.guest else where / ACCOUNT_FILE
        solo = Solo(parse_address(f"127.0.0.1:{port}"), account, pace=args.timers)
        GbmjApp(lang=lang, ascii=args.ascii, hosted=hosted, solo=solo).run()
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        if proc.poll() is None:
            proc.kill()
