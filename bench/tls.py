"""What TLS costs on the game port: a trio server (``gbmj_server.tls``) answering
protocol frames and the client's asyncio connection (``gbmj_tui.pinning.open_server``),
plain TCP against TLS on loopback.

    uv run python bench/tls.py [--connections 200] [--frames 5000]

Prints, for plain and for TLS:

    connect ms p50 / p99: opening a connection (with TLS: the handshake and the pin
        check) and one hello/welcome round trip
    round trip ms p50 / p99: one small frame to the server and its answer back, on an
        open connection
    frames/s: round trips one after another on one connection

The server runs in a thread of this process on its own trio loop; both share the
machine's cores with the client, as a server and its clients on one host would.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gbmj_server.tls import load_server_tls, tls_listeners  # noqa: E402
from gbmj_tui.pinning import open_server  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.framing import FrameDecoder, encode  # noqa: E402

WELCOME = encode(m.Welcome(version=m.PROTOCOL_VERSION, server="bench/1"))
HELLO = encode(m.Hello(version=m.PROTOCOL_VERSION, client="bench/1"))


def serve_in_thread(context: object) -> tuple[int, trio.lowlevel.TrioToken, trio.CancelScope]:
    """A server answering every frame with ``welcome``; returns its port and how to stop it."""
    ready = threading.Event()
    found: dict[str, object] = {}

    async def handle(stream: trio.abc.Stream) -> None:
        decoder = FrameDecoder()
        try:
            while data := await stream.receive_some(65536):
                decoder.receive_data(data)
                while decoder.next_message() is not None:
                    await stream.send_all(WELCOME)
        except trio.BrokenResourceError:
            pass

    async def main() -> None:
        with trio.CancelScope() as scope:
            listeners: list = await trio.open_tcp_listeners(0, host="127.0.0.1")
            found["port"] = listeners[0].socket.getsockname()[1]
            if context is not None:
                listeners = tls_listeners(listeners, context)
            found["token"], found["scope"] = trio.lowlevel.current_trio_token(), scope
            async with trio.open_nursery() as nursery:
                await nursery.start(trio.serve_listeners, handle, listeners)
                ready.set()

    threading.Thread(target=trio.run, args=(main,), daemon=True).start()
    ready.wait()
    return found["port"], found["token"], found["scope"]


async def read_one(reader: asyncio.StreamReader, decoder: FrameDecoder) -> None:
    while decoder.next_message() is None:
        data = await reader.read(65536)
        if not data:
            raise SystemExit("the server closed the connection")
        decoder.receive_data(data)


async def measure(port: int, insecure: bool, known: Path, connections: int, frames: int) -> dict:
    connect = []
    for _ in range(connections):
        start = time.perf_counter()
        reader, writer, _pin = await open_server(
            "127.0.0.1", port, insecure=insecure, known_servers=known
        )
        writer.write(HELLO)
        await writer.drain()
        await read_one(reader, FrameDecoder())
        connect.append(time.perf_counter() - start)
        writer.close()
        await writer.wait_closed()
    reader, writer, _pin = await open_server(
        "127.0.0.1", port, insecure=insecure, known_servers=known
    )
    decoder = FrameDecoder()
    trips = []
    began = time.perf_counter()
    for _ in range(frames):
        start = time.perf_counter()
        writer.write(HELLO)
        await writer.drain()
        await read_one(reader, decoder)
        trips.append(time.perf_counter() - start)
    elapsed = time.perf_counter() - began
    writer.close()
    return {"connect": connect, "trips": trips, "rate": frames / elapsed}


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--frames", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tls = load_server_tls(Path(folder) / "db")
        known = Path(folder) / "known_servers"
        for name, context in (("plain", None), ("tls", tls.context)):
            port, token, scope = serve_in_thread(context)
            figures = asyncio.run(
                measure(port, context is None, known, args.connections, args.frames)
            )
            trio.from_thread.run_sync(scope.cancel, trio_token=token)
            connect, trips = figures["connect"], figures["trips"]
            print(
                f"{name}: connect ms p50 {percentile(connect, 0.5):.2f} "
                f"p99 {percentile(connect, 0.99):.2f}; "
                f"round trip ms p50 {percentile(trips, 0.5):.3f} "
                f"p99 {percentile(trips, 0.99):.3f}; "
                f"frames/s {figures['rate']:.0f}"
            )


if __name__ == "__main__":
    main()
