"""The admin socket: how ``gbmj-server admin`` reaches the running server.

A Unix socket next to the database (``<db>.admin``, private to the host's account like
the database itself), one JSON object a line each way: ``{"command": "ban", "name":
"x"}`` in, ``{"ok": true, "message": "..."}`` out. Whoever may read the database may
moderate; nobody else can open the socket. Without a running server there is no socket,
and the admin command acts on the file alone (``call`` answers None).

A line that is no such request (not JSON, nested too deep, over ``MAX_LINE``, a field of
the wrong type, an amount out of range) is answered ``{"ok": false}`` with the reason
and changes nothing; nothing a line holds ends the server.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from pathlib import Path
from typing import Any

import trio

from gbmj_server.moderation import ModerationError, Moderator
from gbmj_server.tournaments import TournamentError
from gbmj_server.tournaments.admin import run_admin

log = logging.getLogger(__name__)

MAX_LINE = 64 * 1024
TIMEOUT = 30.0
MAX_COINS = 10**9  # the most one grant or take moves


class BadRequest(Exception):
    """The line is no admin request; the reason, for the reply."""


def socket_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".admin")


def parse(line: bytes) -> dict[str, Any]:
    """The request a line holds; ``BadRequest`` when it holds none."""
    try:
        request = json.loads(line)
    except RecursionError:
        raise BadRequest("the request is nested too deeply") from None
    except ValueError as exc:  # not JSON, not UTF-8
        raise BadRequest(f"not a JSON line: {exc}") from None
    if not isinstance(request, dict) or not isinstance(request.get("command"), str):
        raise BadRequest("a request is a JSON object with a command")
    return request


def _text(request: dict[str, Any], key: str) -> str:
    value = request.get(key)
    if not isinstance(value, str):
        raise BadRequest(f"{key} must be a string")
    return value


def _coins(request: dict[str, Any]) -> int:
    coins = request.get("coins")
    if not isinstance(coins, int) or isinstance(coins, bool) or not 0 < coins <= MAX_COINS:
        raise BadRequest(f"coins must be a whole number of 1-{MAX_COINS:,}")
    return coins


async def _answer(moderator: Moderator, request: dict[str, Any]) -> dict[str, Any]:
    command = request["command"]
    try:
        if command in ("ban", "unban"):
            message = await moderator.ban(_text(request, "name"), command == "ban")
        elif command in ("mute", "unmute"):
            message = await moderator.mute(_text(request, "name"), command == "mute")
        elif command == "kick":
            message = await moderator.kick(_text(request, "name"))
        elif command in ("grant", "take"):
            coins = _coins(request)
            name = _text(request, "name")
            message = await moderator.adjust(name, coins if command == "grant" else -coins)
        elif command == "reset-password":
            message = await moderator.reset_password(_text(request, "name"), _text(request, "hash"))
        elif command == "announce":
            message = await moderator.announce(_text(request, "text"))
        elif command == "tournament":
            tournaments = moderator.services.tournaments
            if tournaments is None:
                return {"ok": False, "message": "the server runs no tournaments yet"}
            try:
                message = await run_admin(tournaments, request)
            except TournamentError as exc:
                return {"ok": False, "message": str(exc)}
        else:
            return {"ok": False, "message": f"no admin command {command!r}"}
    except (ModerationError, BadRequest) as exc:
        return {"ok": False, "message": str(exc)}
    return {"ok": True, "message": message}


async def answer_line(moderator: Moderator, line: bytes) -> dict[str, Any]:
    """The reply to one line: bad input is told why and changes nothing; a fault of the
    server's own is logged and answered, and ends nothing."""
    try:
        return await _answer(moderator, parse(line))
    except BadRequest as exc:
        return {"ok": False, "message": str(exc)}
    except Exception:
        log.exception("the admin request failed")
        return {"ok": False, "message": "internal error: the request had no effect"}


async def serve_admin(
    db_path: Path,
    moderator: Moderator,
    *,
    task_status: trio.TaskStatus[Path] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Answer admin requests on the socket until cancelled (then remove it)."""
    path = socket_path(db_path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a stale socket of a server that died: this server holds the file
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # private from the start, not after a chmod
    try:
        await sock.bind(str(path))
    finally:
        os.umask(old)
    sock.listen(8)

    async def handle(stream: trio.SocketStream) -> None:
        buffer = b""
        with trio.move_on_after(TIMEOUT), contextlib.suppress(trio.BrokenResourceError):
            while b"\n" not in buffer and len(buffer) <= MAX_LINE:
                data = await stream.receive_some(MAX_LINE)
                if not data:
                    break
                buffer += data
            line = buffer.split(b"\n", 1)[0]
            if len(line) > MAX_LINE:
                reply = {"ok": False, "message": f"a request is at most {MAX_LINE} bytes"}
            else:
                reply = await answer_line(moderator, line)
            await stream.send_all(json.dumps(reply).encode() + b"\n")
        await trio.aclose_forcefully(stream)

    try:
        task_status.started(path)
        await trio.serve_listeners(handle, [trio.SocketListener(sock)])
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def call(db_path: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """Send one request to the running server (None: no server runs on ``db_path``)."""
    path = socket_path(db_path)
    if not path.exists():
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(TIMEOUT)
        try:
            client.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return None  # a socket left by a server that is gone
        client.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = client.recv(MAX_LINE)
            if not chunk:
                break
            data += chunk
    reply = json.loads(data or b"{}")
    return reply if isinstance(reply, dict) else None
