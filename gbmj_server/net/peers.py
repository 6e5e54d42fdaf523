"""Who a connection is from: the player's own address, whichever way it comes in.

Every limit, backoff and log line of the game port counts by ``Connection.address``, so
it must be the player's address, not that of something in between:

- **The server's own front doors** (SSH, the web page) start a client process per
  session on this machine. Those clients connect to the doors' own loopback listener
  and name their player with a pass in ``hello`` (``gbmj_server.hosted.DoorPasses``):
  a random pass the door makes for each session, bound to the address the player came
  from, and good only while that session lasts. Only the door and the client it
  started hold it; a client without a valid pass is refused there, and a loopback
  client of the game port is an ordinary address.
- **A door on another machine** (``gbmj_server.door``) signs its passes with the secret
  the host shares with it (``door_secret``: ``gbmj_server.hosted.SignedPasses``); its
  clients come in on the game port, where a pass the game can check with its own
  secret names the player, and any other pass is refused.
- **A TCP proxy the host names** (``Limits.proxies``, e.g. HAProxy or nginx's stream
  module on the same machine) puts a PROXY protocol header (version 1, text, or 2,
  binary) before the connection's own bytes; ``proxied_address`` reads it and gives the
  address it names. A connection from a named proxy without one is refused; a header
  from anyone else is not believed (it reaches the protocol, or TLS, as the garbage it
  is there, and the connection is refused).
"""

from __future__ import annotations

import ipaddress
import socket
import struct

import trio

V1_MAX = 107  # the longest version 1 header, CRLF included
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_FIXED = 16  # signature, version and command, family, length
V2_MAX_ADDRESSES = 536  # what a header may carry after its fixed part (TLVs included)
DOOR_ADDRESS = "door"  # a door connection's address until its hello names the player


class ProxyHeaderError(Exception):
    """A connection from a named proxy without a well-formed PROXY header."""


def parse_proxy_header(data: bytes) -> tuple[int, str | None] | None:
    """A PROXY header at the start of ``data``: (its length, the source address it
    names, or None for a proxy's own connection: ``UNKNOWN`` or ``LOCAL``); None while
    more bytes are needed; ``ProxyHeaderError`` for anything else."""
    if data.startswith(V2_SIGNATURE[: len(data)]) and data[:1] == b"\r":
        return _parse_v2(data)
    if b"PROXY "[: len(data)] == data[:6]:
        return _parse_v1(data)
    raise ProxyHeaderError("no PROXY header from a proxy")


def _parse_v1(data: bytes) -> tuple[int, str | None] | None:
    end = data.find(b"\r\n", 0, V1_MAX)
    if end < 0:
        if len(data) >= V1_MAX:
            raise ProxyHeaderError("a PROXY header longer than 107 bytes")
        return None
    words = data[:end].split(b" ")
    if len(words) >= 2 and words[1] == b"UNKNOWN":
        return end + 2, None
    if len(words) != 6 or words[1] not in (b"TCP4", b"TCP6"):
        raise ProxyHeaderError("a malformed PROXY header")
    try:
        source = ipaddress.ip_address(words[2].decode("ascii"))
        ipaddress.ip_address(words[3].decode("ascii"))
        ports = [int(w) for w in words[4:6]]
    except (UnicodeDecodeError, ValueError):
        raise ProxyHeaderError("a malformed PROXY header") from None
    if source.version != (4 if words[1] == b"TCP4" else 6) or not all(
        0 <= p <= 65535 for p in ports
    ):
        raise ProxyHeaderError("a malformed PROXY header")
    return end + 2, str(source)


def _parse_v2(data: bytes) -> tuple[int, str | None] | None:
    if len(data) < V2_FIXED:
        return None
    if data[:12] != V2_SIGNATURE:
        raise ProxyHeaderError("a malformed PROXY header")
    version_command, family, length = data[12], data[13], struct.unpack("!H", data[14:16])[0]
    if version_command >> 4 != 2 or version_command & 0xF > 1 or length > V2_MAX_ADDRESSES:
        raise ProxyHeaderError("a malformed PROXY header")
    if len(data) < V2_FIXED + length:
        return None
    total = V2_FIXED + length
    if version_command & 0xF == 0:  # LOCAL: the proxy's own connection (a health check)
        return total, None
    body = data[V2_FIXED:total]
    if family >> 4 == 1 and len(body) >= 12:  # AF_INET
        return total, socket.inet_ntop(socket.AF_INET, body[:4])
    if family >> 4 == 2 and len(body) >= 36:  # AF_INET6
        return total, str(ipaddress.IPv6Address(body[:16]))
    if family >> 4 == 0:  # UNSPEC: no address to tell
        return total, None
    raise ProxyHeaderError("a PROXY header naming no TCP address")


async def proxied_address(sock: trio.socket.SocketType, proxy: str) -> str:
    """Read the PROXY header at the start of a connection from ``proxy`` and return the
    address it names (``proxy`` itself for the proxy's own connections), taking exactly
    the header's bytes: what follows (a TLS handshake, frames) stays unread for whoever
    reads next. ``ProxyHeaderError`` for a missing or bad header; the caller sets the
    deadline."""
    wanted = V2_FIXED
    while True:
        data = await sock.recv(max(wanted, V1_MAX), socket.MSG_PEEK)
        if not data:
            raise ProxyHeaderError("the proxy closed the connection before its header")
        parsed = parse_proxy_header(data)
        if parsed is not None:
            length, source = parsed
            while length:  # take the header, and only it
                taken = await sock.recv(length)
                if not taken:
                    raise ProxyHeaderError("the proxy closed the connection in its header")
                length -= len(taken)
            return source or proxy
        if len(data) >= V2_FIXED and data[:1] == b"\r":
            wanted = V2_FIXED + struct.unpack("!H", data[14:16])[0]
        else:
            wanted = len(data) + 1
        await trio.sleep(0.01)  # MSG_PEEK sees the same bytes again until more arrive
