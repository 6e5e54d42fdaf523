"""A small trio server in a thread of its own, for the asyncio client's tests: it
serves TLS (``gbmj_server.tls.tls_listeners``) or plain TCP on a loopback port and
answers ``hello`` with ``welcome``, recording what it received."""

from __future__ import annotations

import ssl
import threading

import trio

from gbmj_server.tls import tls_listeners
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.framing import FrameDecoder, encode


class TrioServer:
    """``with TrioServer(context) as server:`` listens on ``server.port`` until the
    block ends (``context`` None: plain TCP)."""

    def __init__(self, context: ssl.SSLContext | None, port: int = 0) -> None:
        self.context = context
        self.port = port
        self.received: list[bytes] = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None

    def __enter__(self) -> TrioServer:
        self._thread.start()
        assert self._ready.wait(30), "the trio server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None and self._scope is not None
        trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join(30)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as self._scope:
            listeners: list = await trio.open_tcp_listeners(self.port, host="127.0.0.1")
            self.port = listeners[0].socket.getsockname()[1]
            if self.context is not None:
                listeners = tls_listeners(listeners, self.context)
            async with trio.open_nursery() as nursery:
                await nursery.start(trio.serve_listeners, self._handle, listeners)
                self._ready.set()

    async def _handle(self, stream: trio.abc.Stream) -> None:
        decoder = FrameDecoder()
        try:
            while data := await stream.receive_some(65536):
                self.received.append(data)
                decoder.receive_data(data)
                if isinstance(decoder.next_message(), m.Hello):
                    await stream.send_all(encode(m.Welcome(version=1, server="trio-test/1")))
        except (trio.BrokenResourceError, ProtocolError):
            pass  # a client that broke off, or TLS bytes on the plain port
        finally:
            await trio.aclose_forcefully(stream)
