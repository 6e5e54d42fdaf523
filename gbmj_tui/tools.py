"""``gbmj export`` and ``gbmj verify``: a match or a hand written to a replay file, and a
replay file checked away from any server (docs/replay-format.md).

    gbmj export ID [--server HOST:PORT] [--name NAME] [--out FILE] [--insecure]
    gbmj verify FILE

An ``ID`` is a match's (``88`` or ``m88``) or a hand's (``h412``). ``export`` signs in
(as ``NAME``, with the password from ``GBMJ_PASSWORD`` or asked on the terminal; with no
name as a guest, who may read public matches only) over TLS with the server's
certificate pinned as the client pins it (``--insecure``: plain TCP), asks for the match
(``get_match``) and its hands' logs (``get_hand``) and writes the file; ``verify`` reads
only the file.

The client's ``main`` hands these commands over first thing: ``tools.hand_over(argv)``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from gbmj.game.hand_state import IllegalAction
from gbmj.replay import (
    Replay,
    ReplayId,
    Report,
    dumps,
    hand_from_log,
    match_from_detail,
    parse_id,
    replay_file,
    verify_text,
)
from gbmj.replay.verify import Check
from gbmj_tui.config import DEFAULT_SERVER, parse_address
from gbmj_tui.connection import CLIENT_NAME, Connection, TlsPolicy
from gbmj_tui.errors import ConnectError, RequestFailed
from protocol import messages as m
from protocol.errors import ErrorCode

COMMANDS = ("export", "verify")
PASSWORD_VARIABLE = "GBMJ_PASSWORD"

T = TypeVar("T")


class ExportError(Exception):
    """The export could not be made; the message says why, for the player."""


# -- export ---------------------------------------------------------------------------------


async def fetch_replay(conn: Connection, target: ReplayId, address: str = "") -> Replay:
    """The replay of a match (all its ended hands) or of one hand, asked of a signed-in
    connection whose ``run`` is reading; the file names the server by its software and
    ``address``."""
    try:
        if target.kind == "hand":
            logs = [await _ask(conn, m.GetHand(hand_id=target.id), m.HandLog)]
            detail = await _ask(conn, m.GetMatch(match_id=logs[0].match_id), m.MatchDetail)
        else:
            detail = await _ask(conn, m.GetMatch(match_id=target.id), m.MatchDetail)
            logs = [await _ask(conn, m.GetHand(hand_id=h.hand_id), m.HandLog) for h in detail.hands]
    except RequestFailed as exc:
        if exc.code == ErrorCode.NO_SUCH_MATCH:
            raise ExportError(f"the server has no {target} that you may read") from None
        raise ExportError(f"the server refused: {exc}") from None
    hands = []
    for log in logs:
        try:
            hands.append(hand_from_log(log))
        except (IllegalAction, ValueError) as exc:
            raise ExportError(
                f"hand {log.hand_id}'s log, as the server sent it, does not replay with the "
                f"rules ({exc}): nothing written"
            ) from None
    server = f"{conn.server} {address}".strip()
    return replay_file(
        server, CLIENT_NAME, match_from_detail(detail), hands, exported_at=int(time.time())
    )


async def _ask(conn: Connection, request: m.Message, reply: type[T]) -> T:
    answer = await conn.request(request)
    if not isinstance(answer, reply):
        raise ExportError(f"the server answered {request.type} with {answer.type}")
    return answer


async def export_replay(
    server: str,
    target: ReplayId,
    name: str | None = None,
    password: str | None = None,
    tls: TlsPolicy = TlsPolicy(),  # noqa: B008  (an immutable value)
) -> Replay:
    """Connect to ``server`` (``tls`` says how), sign in (as ``name``, else as a guest)
    and fetch the replay."""
    return await _signed_in(
        server, name, password, tls, lambda conn: fetch_replay(conn, target, server)
    )


async def _signed_in(
    server: str,
    name: str | None,
    password: str | None,
    tls: TlsPolicy,
    work: Callable[[Connection], Awaitable[T]],
) -> T:
    address = parse_address(server)
    conn = await Connection.open(address.host, address.port, tls=tls)
    reading = asyncio.create_task(conn.run(lambda _message: None))  # pushes are not ours
    try:
        sign_in: m.Message = (
            m.Guest(name=None) if name is None else m.Login(name=name, password=password or "")
        )
        try:
            await conn.request(sign_in)
        except RequestFailed as exc:
            raise ExportError(f"cannot sign in: {exc}") from None
        return await work(conn)
    finally:
        await conn.close()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectError, OSError):
            await reading


async def export_hand(
    conn: Connection, hand_id: int, address: str, folder: Path | None = None
) -> Path:
    """Write one hand to its replay file (``gbmj-hand-412.json``) in ``folder`` (the
    current one by default), as ``gbmj export h412`` does; the file's path."""
    target = ReplayId("hand", hand_id)
    replay = await fetch_replay(conn, target, address)
    path = (folder or Path.cwd()) / target.file_name
    write_replay(replay, path)
    return path


def write_replay(replay: Replay, path: Path) -> None:
    """The file's text, written whole (a partial file never stays behind)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dumps(replay), "utf-8")
    os.replace(tmp, path)


# -- verify ---------------------------------------------------------------------------------


def verify_file(path: Path) -> Report:
    """``verify`` of the file at ``path`` (an unreadable file fails, saying why)."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Report(f"{path}", (Check("file", "read", False, f"cannot read {path}: {reason}"),))
    return verify_text(text)


# -- the command line -----------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gbmj", description="gbmj's replay tools")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser(
        "export", help="write a match or a hand to a replay file (docs/replay-format.md)"
    )
    export.add_argument("id", help="a match (88 or m88) or a hand (h412)")
    export.add_argument("--server", default=DEFAULT_SERVER, help=f"default {DEFAULT_SERVER}")
    export.add_argument(
        "--name",
        help=f"sign in as NAME (password from ${PASSWORD_VARIABLE} or asked); "
        "without it, as a guest: public matches only",
    )
    export.add_argument("--out", type=Path, help="the file (default gbmj-match-88.json)")
    export.add_argument(
        "--insecure", action="store_true", help="plain TCP, no TLS (a server that serves no TLS)"
    )
    verify = sub.add_parser("verify", help="check a replay file without any server")
    verify.add_argument("file", type=Path)
    return parser


def run(argv: Sequence[str]) -> int:
    """``gbmj export ...`` / ``gbmj verify ...``; the exit status (1: not done, or a
    mismatch found)."""
    args = _parser().parse_args(list(argv))
    if args.command == "verify":
        report = verify_file(args.file)
        print(report.text())
        return 0 if report.ok else 1
    try:
        target = parse_id(args.id)
        password = None
        if args.name is not None:
            password = os.environ.get(PASSWORD_VARIABLE) or getpass.getpass(
                f"password of {args.name}: "
            )
        tls = TlsPolicy(insecure=args.insecure)
        replay = asyncio.run(export_replay(args.server, target, args.name, password, tls))
        out = args.out or Path(target.file_name)
        write_replay(replay, out)
    except (ValueError, ExportError, ConnectError, TimeoutError, OSError) as exc:
        print(f"gbmj export: {exc}", file=sys.stderr)
        return 1
    hands = len(replay.hands)
    print(f"wrote {out}: match {replay.match.match_id}, {hands} hand{'s' if hands != 1 else ''}")
    return 0


def hand_over(argv: Sequence[str] | None = None) -> None:
    """If the command line (``sys.argv`` when None) names a tool, run it and exit with
    its status; otherwise return, for the client to start."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] and args[0] in COMMANDS:
        raise SystemExit(run(args))
