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
    ReplayFormatError,
    ReplayId,
    Report,
    dumps,
    hand_from_log,
    loads,
    match_from_detail,
    parse_id,
    replay_file,
    verify,
)
from gbmj.replay.format import MAX_FILE_BYTES
from gbmj.replay.signing import BadCertificate, certificate_of
from gbmj.replay.verify import Promises, Trust, refusal
from gbmj_tui.config import DEFAULT_SERVER, parse_address
from gbmj_tui.connection import CLIENT_NAME, Connection, TlsPolicy
from gbmj_tui.errors import ConnectError, RequestFailed
from gbmj_tui.pinning import known_servers_path, read_pins, server_key
from gbmj_tui.promises import commitments_path, kept
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
    connection whose ``run`` is reading, with the server's signatures; the file names
    the server by its software and ``address``."""
    try:
        if target.kind == "hand":
            logs = [await _ask(conn, m.GetHand(hand_id=target.id), m.HandLog)]
            try:
                detail = await _ask(conn, m.GetMatch(match_id=logs[0].match_id), m.MatchDetail)
            except RequestFailed as exc:
                if exc.code != ErrorCode.NO_SUCH_MATCH:
                    raise
                # A hand saved with a recorder: its log is anyone's, its match is not.
                raise ExportError(
                    f"{target} is a saved hand you may replay, but its match is not one you "
                    "may read, and a replay file needs the match's signed record: replay "
                    "it in the client (nothing written)"
                ) from None
        else:
            detail = await _ask(conn, m.GetMatch(match_id=target.id), m.MatchDetail)
            logs = [await _ask(conn, m.GetHand(hand_id=h.hand_id), m.HandLog) for h in detail.hands]
    except RequestFailed as exc:
        if exc.code == ErrorCode.NO_SUCH_MATCH:
            raise ExportError(f"the server has no {target} that you may read") from None
        raise ExportError(f"the server refused: {exc}") from None
    certificate = detail.certificate
    if certificate is None:
        raise ExportError(
            "the server signs no replays (an older gbmj-server): a file of it would prove "
            "nothing, none written"
        )
    pin = conn.pin
    if pin is not None:
        try:
            _, signer = certificate_of(certificate)
        except BadCertificate as exc:
            raise ExportError(f"{exc}: nothing written") from None
        if signer != pin.fingerprint:
            raise ExportError(
                f"the server signs with the certificate {signer}, not the one it serves "
                f"({pin.fingerprint}): nothing written"
            )
    hands = []
    for log in logs:
        try:
            hands.append(hand_from_log(log, signature=log.signature))
        except (IllegalAction, ValueError) as exc:
            raise ExportError(
                f"hand {log.hand_id}'s log, as the server sent it, does not replay with the "
                f"rules ({exc}): nothing written"
            ) from None
    server = f"{conn.server} {address}".strip()
    return replay_file(
        server,
        CLIENT_NAME,
        match_from_detail(detail, detail.signature),
        hands,
        exported_at=int(time.time()),
        certificate=certificate,
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


def read_replay(path: Path) -> bytes:
    """At most ``MAX_FILE_BYTES`` and one byte of the file (more is refused unread):
    ``OSError`` if it cannot be read."""
    with path.open("rb") as f:
        return f.read(MAX_FILE_BYTES + 1)


def trust_of(known_servers: Path, server: str | None = None, key: str | None = None) -> Trust | str:
    """Whose signature verifies a file: the certificate given with ``key``, or the one
    pinned for ``server``, or any pinned in ``known_servers``; a reason, if none."""
    if key is not None:
        return Trust({key.upper(): f"the key given with --key ({key})"}, "the key given")
    pins = read_pins(known_servers)
    if server is not None:
        address = parse_address(server)
        name = server_key(address.host, address.port)
        pinned = pins.get(name)
        if pinned is None:
            return (
                f"no certificate is pinned for {name} in {known_servers}: connect to it once, "
                "or name its key with --key"
            )
        return Trust({pinned.upper(): name}, f"pinned for {name} in {known_servers}")
    names: dict[str, list[str]] = {}
    for name, pinned in pins.items():
        names.setdefault(pinned.upper(), []).append(name)
    trusted = {fp: ", ".join(ns) for fp, ns in names.items()}
    return Trust(trusted, f"pinned for any server in {known_servers}")


def verify_file(
    path: Path,
    server: str | None = None,
    key: str | None = None,
    known_servers: Path | None = None,
    commitments: Path | None = None,
) -> Report:
    """``verify`` of the file at ``path`` against the server named (``server``: its pin
    in ``known_servers``; ``key``: a fingerprint; neither: any pinned server), with the
    commitments this client kept (``commitments``); an unreadable file fails, saying
    why, in one line."""
    known_servers = known_servers or known_servers_path()
    try:
        text = read_replay(path)
    except OSError as exc:
        return refusal(f"cannot read {path}: {exc.strerror or exc}")
    try:
        replay = loads(text)
    except ReplayFormatError as exc:
        return refusal(f"{path}: {exc}")
    try:
        trust = trust_of(known_servers, server, key)
    except ConnectError as exc:
        return refusal(str(exc))
    if isinstance(trust, str):
        return refusal(trust)
    promises = None
    if replay.certificate is not None:
        with contextlib.suppress(BadCertificate):  # verify says what is wrong with it
            _, signer = certificate_of(replay.certificate)
            servers = {n for n, fp in read_pins(known_servers).items() if fp.upper() == signer}
            if server is not None:
                address = parse_address(server)
                servers.add(server_key(address.host, address.port))
            where = commitments or commitments_path()
            promises = Promises(kept(where, servers, signer), f"kept in {where}")
    return verify(replay, trust, promises)


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
    verify = sub.add_parser(
        "verify",
        help="check a replay file: signed by a server you pinned, every step, the result",
    )
    verify.add_argument("file", type=Path)
    verify.add_argument(
        "--server",
        metavar="HOST:PORT",
        help="the server it must come from (its pinned certificate); default: any pinned",
    )
    verify.add_argument(
        "--key",
        metavar="FINGERPRINT",
        help="the certificate fingerprint it must be signed with (as the server printed it)",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    """``gbmj export ...`` / ``gbmj verify ...``; the exit status (1: not done, or a
    mismatch found)."""
    args = _parser().parse_args(list(argv))
    if args.command == "verify":
        report = verify_file(args.file, args.server, args.key)
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
