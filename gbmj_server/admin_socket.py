"""The admin socket: how ``gbmj-server admin`` reaches the running server.

A Unix socket next to the database (``<db>.admin``, private to the host's account like
the database itself), one JSON object a line each way: ``{"command": "ban", "name":
"x"}`` in, ``{"ok": true, "message": "..."}`` out. Whoever may read the database may
moderate; nobody else can open the socket. Without a running server there is no socket,
and the admin command acts on the file alone (``call`` answers None).
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


def socket_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".admin")


async def _answer(moderator: Moderator, request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("command"), str):
        return {"ok": False, "message": "a request is a JSON object with a command"}
    command = request["command"]
    name = request.get("name")
    try:
        if command in ("ban", "unban"):
            message = await moderator.ban(str(name), command == "ban")
        elif command in ("mute", "unmute"):
            message = await moderator.mute(str(name), command == "mute")
        elif command == "kick":
            message = await moderator.kick(str(name))
        elif command in ("grant", "take"):
            coins = int(request.get("coins", 0))
            message = await moderator.adjust(str(name), coins if command == "grant" else -coins)
        elif command == "reset-password":
            message = await moderator.reset_password(str(name), str(request.get("hash")))
        elif command == "announce":
            message = await moderator.announce(str(request.get("text", "")))
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
    except ModerationError as exc:
        return {"ok": False, "message": str(exc)}
    return {"ok": True, "message": message}


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
            while b"\n" not in buffer and len(buffer) < MAX_LINE:
                data = await stream.receive_some(MAX_LINE)
                if not data:
                    return
                buffer += data
            try:
                request = json.loads(buffer.split(b"\n", 1)[0])
            except ValueError:
                request = None
            reply = await _answer(moderator, request)
            await stream.send_all(json.dumps(reply).encode() + b"\n")
        await stream.aclose()

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
