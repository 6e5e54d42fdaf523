"""The admin socket takes any line: bad input gets an error line and changes nothing, and
no line ends the server. The real server over TCP, its real admin socket (a Unix
socket beside a real SQLite file)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import trio

from gbmj_server.admin_socket import MAX_LINE, serve_admin
from gbmj_server.moderation import Moderator
from gbmj_server.server import Server

pytestmark = pytest.mark.trio


async def admin_line(path: Path, line: bytes) -> dict[str, Any]:
    """Send one line to the admin socket; its reply."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    await sock.connect(str(path))
    stream = trio.SocketStream(sock)
    await stream.send_all(line + b"\n")
    reply = b""
    with trio.fail_after(10):
        while not reply.endswith(b"\n"):
            data = await stream.receive_some(65536)
            assert data, "the admin socket closed without a reply"
            reply += data
    await stream.aclose()
    answer = json.loads(reply)
    assert isinstance(answer, dict)
    return answer


def grant(coins: str) -> bytes:
    """A grant for alice, ``coins`` as raw JSON text."""
    return b'{"command": "grant", "name": "alice", "coins": ' + coins.encode() + b"}"


BAD_LINES = [
    grant('"abc"'),
    grant("[1]"),
    grant("1e400"),
    grant("true"),
    grant("-5"),
    grant("0"),
    grant("1" * 40),  # beyond any balance the ledger keeps
    grant("9" * 5000),  # beyond what JSON integers may spell here
    grant("{}"),
    b'{"command": "grant", "name": 7, "coins": 5}',
    b'{"command": "ban", "name": null}',
    b'{"command": "announce", "text": ["x"]}',
    b'{"command": "reset-password", "name": "alice"}',
    b'{"command": 1}',
    b'{"command": "no-such-command"}',
    b"[" * 20_000,  # nested past the parser's depth, within a line
    b"[" * 100_000,  # over the line's length
    b"\xff\xfe not text",
    b"not json at all",
    b"",
]


async def test_bad_admin_lines_are_answered_and_change_nothing(
    server: Server, nursery: trio.Nursery, connect
) -> None:
    assert server.services is not None
    path = await nursery.start(serve_admin, server.store.storage.path, Moderator(server.services))
    alice = await connect()
    await alice.register("alice")
    store = server.store
    account = await store.call(store.storage.account_by_name, "alice")
    assert account is not None
    coins = await store.call(store.storage.balance, account.id)
    for line in BAD_LINES:
        reply = await admin_line(path, line)
        assert reply["ok"] is False and reply["message"], (line[:40], reply)
    assert "at most" in (await admin_line(path, b"[" * (MAX_LINE + 1)))["message"]
    assert await store.call(store.storage.balance, account.id) == coins  # nothing changed
    assert (await alice.ok("ping"))["type"] == "pong"  # the server runs on
    reply = await admin_line(path, grant("5"))  # and the socket still serves the host
    assert reply["ok"] is True
    assert await store.call(store.storage.balance, account.id) == coins + 5
    assert (await alice.expect("profile"))["profile"]["coins"] == coins + 5
