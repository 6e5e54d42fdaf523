"""A reverse proxy for the tests, as a host puts one before the page: it serves the page
under a path prefix (``/gbmj/``), strips the prefix, passes WebSockets through, and
says who asked (``X-Forwarded-For``, ``X-Forwarded-Host``), in its own thread."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

import aiohttp
from aiohttp import web

PREFIX = "/gbmj"


async def _pipe(source, target) -> None:
    async for message in source:
        if message.type == aiohttp.WSMsgType.TEXT:
            await target.send_str(message.data)
        elif message.type == aiohttp.WSMsgType.BINARY:
            await target.send_bytes(message.data)
        else:
            break
    await target.close()


def _app(upstream: str) -> web.Application:
    async def forward(request: web.Request) -> web.StreamResponse:
        path = request.path_qs.removeprefix(PREFIX)
        headers = {
            "X-Forwarded-For": request.remote or "",
            "X-Forwarded-Host": request.host,
            "X-Forwarded-Proto": request.scheme,
        }
        if "Origin" in request.headers:
            headers["Origin"] = request.headers["Origin"]
        async with aiohttp.ClientSession() as http:
            if request.headers.get("Upgrade", "").lower() == "websocket":
                async with http.ws_connect(upstream + path, headers=headers) as inner:
                    outer = web.WebSocketResponse()
                    await outer.prepare(request)
                    await asyncio.gather(_pipe(outer, inner), _pipe(inner, outer))
                    return outer
            async with http.get(upstream + path, headers=headers) as answer:
                body = await answer.read()
                return web.Response(
                    body=body, status=answer.status, content_type=answer.content_type
                )

    app = web.Application()
    app.router.add_route("GET", PREFIX + "{tail:.*}", forward)
    return app


@contextlib.contextmanager
def prefix_proxy(upstream: str) -> Iterator[str]:
    """The proxy's address for the page (``http://127.0.0.1:PORT/gbmj/``) while open."""
    ready = threading.Event()
    state: dict[str, object] = {}

    async def main() -> None:
        runner = web.AppRunner(_app(upstream.rstrip("/")))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["port"] = site._server.sockets[0].getsockname()[1]
        stop = asyncio.Event()
        state["stop"] = (asyncio.get_running_loop(), stop)
        ready.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    ready.wait(30)
    try:
        yield f"http://127.0.0.1:{state['port']}{PREFIX}/"
    finally:
        loop, stop = state["stop"]
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
