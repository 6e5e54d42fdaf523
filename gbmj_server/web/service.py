"""The web front door: ``gbmj-server --web-port PORT`` serves the gbmj client as a page.

The page is textual-serve's terminal (xterm.js in the browser, Textual's web driver in
the client): each browser session's WebSocket runs one client process, as an SSH
session does, with the same limits (``gbmj_server.hosted``: the session gate, the
clamped size, the bounded and hosted client, the end by SIGHUP, SIGTERM, SIGKILL, an
idle close). The client opens on its connect screen; the player signs in there, with
the account's password or as a guest as the game server allows, so no token and no
password is ever in a URL, and the client's standard error (where a crash report could
show what was typed) is not kept.

Why not textual-serve's own ``Server``: its page loads a font from the internet and
builds absolute addresses (no path prefix behind a proxy), its clients inherit the
server's whole environment and stay alive if they ignore "quit", and it checks no
origin. This module serves its own page (``page.html``, every address relative) and
session handler around textual-serve's ``AppService`` and static files.

Like the SSH server, the web server is aiohttp on asyncio in its own thread, started and
stopped from trio (``serve_web``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from gbmj_server.hosted import (
    END_GRACE,
    FrontDoor,
    GameDoor,
    SessionGate,
    clamp_size,
    client_environment,
    end_client,
    private_home,
    real_input,
    serve_door,
)
from gbmj_server.launcher import Child, Launcher, Request
from gbmj_server.web.config import WebSettings

log = logging.getLogger(__name__)

STATIC = Path(textual_serve.__file__).parent / "static"
PAGE = (Path(__file__).parent / "page.html").read_text("utf-8")
MAX_MESSAGE = 64 * 1024  # bytes of one message from the browser (keys, a paste)
# ws/OPTIONS of the page's WebSocket (from ?lang=en&tiles=ascii): the client's options;
# without a language, the browser's (Accept-Language).
OPTIONS_OF = {
    "": [],
    "zh": ["--lang", "zh"],
    "en": ["--lang", "en"],
    "ascii": ["--ascii"],
    "zh-ascii": ["--lang", "zh", "--ascii"],
    "en-ascii": ["--lang", "en", "--ascii"],
}
FULL_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gbmj: full</title></head>
<body style="background:#0c181f;color:#eee;font:18px monospace;text-align:center;padding:20vh 1em">
<p>gbmj 国标麻将</p><p>{reason}.</p><p>请稍后再试。</p></body></html>
"""


def browser_language(accept: str | None) -> str:
    """The client's language for a page that asks for none: ``zh`` when the browser's
    most wanted language (``Accept-Language``) is Chinese, else ``en``."""
    best, best_q = "", -1.0
    for part in (accept or "").split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and q > best_q:
            best, best_q = tag, q
    return "zh" if best.lower().split("-")[0] == "zh" else "en"


def _number(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


class ForkedClient:
    """A client forked by the launcher, as textual-serve's ``AppService`` reads a
    subprocess: its pipes as asyncio streams, its pid, its end."""

    def __init__(
        self, child: Child, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader
    ) -> None:
        self.child = child
        self.pid = child.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = asyncio.StreamReader()  # nothing: the client's goes nowhere
        self.stderr.feed_eof()

    @property
    def returncode(self) -> int | None:
        return self.child.returncode

    async def wait(self) -> int:
        return await self.child.wait()


class HostedApp(AppService):
    """textual-serve's app service with a hosted client: forked by the launcher with our
    options and environment, no URLs opened and no files delivered, and an end that does
    not wait forever."""

    def __init__(self, launcher: Launcher, request: Request, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.launcher = launcher
        self.request = request
        self.env = dict(request.env)
        self._client: ForkedClient | None = None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = dict(self.env)  # not the server's environment
        env.update(
            TEXTUAL_DRIVER="gbmj_server.web.driver:HostedWebDriver",
            TEXTUAL_FPS="60",
            TEXTUAL_COLOR_SYSTEM="truecolor",
            TERM_PROGRAM="textual",
            TERM_PROGRAM_VERSION=version("textual-serve"),
            COLUMNS=str(width),
            ROWS=str(height),
        )
        return env

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        """The client on two pipes (its standard error goes nowhere: a crash report
        could show what the player typed), forked by the launcher."""
        loop = asyncio.get_running_loop()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        devnull = os.open(os.devnull, os.O_WRONLY)
        request = replace(self.request, env=self._build_environment(width, height))
        try:
            child = await self.launcher.spawn(request, (stdin_r, stdout_w, devnull))
        except BaseException:
            os.close(stdin_w)
            os.close(stdout_r)
            raise
        finally:
            for fd in (stdin_r, stdout_w, devnull):
                os.close(fd)
        stdout = asyncio.StreamReader(limit=2**20)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(stdout_r, "rb", 0)
        )
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop), os.fdopen(stdin_w, "wb", 0)
        )
        stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        self._client = client = ForkedClient(child, stdin, stdout)
        self._process = client  # type: ignore[assignment]  # read as a subprocess is
        self._stdin = stdin
        return client

    async def run(self) -> None:
        await super().run()
        await self.remote_close()  # the client ended (quit, crashed or was ended)

    async def on_meta(self, data: bytes) -> None:
        with contextlib.suppress(ValueError, AttributeError):
            if json.loads(data).get("type") == "exit":  # no URLs to open, no files to deliver
                await super().on_meta(data)

    @property
    def pid(self) -> int | None:
        return None if self._client is None else self._client.pid

    async def stop(self) -> None:
        """Ask the client to quit; end it if it has not within ``END_GRACE``."""
        process = self._client
        if process is None:
            return
        if process.returncode is None:
            await self.send_meta({"type": "quit"})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), END_GRACE)
            await end_client(process.pid, lambda: process.returncode is not None)
            await process.wait()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        process.stdin.close()  # the pipe to a client that is gone


class WebService(FrontDoor):
    """The web server in its own thread; ``start()`` returns once it listens, ``stop()``
    ends every session and the listener and joins the thread."""

    thread_name = "gbmj-web"

    def __init__(self, settings: WebSettings, host: str, game: GameDoor) -> None:
        super().__init__()
        self.settings = settings
        self.host = host
        self.game = game  # how the clients reach the game server
        self.port = 0
        self.gate = SessionGate(settings.limits)
        self.sessions: set[HostedApp] = set()
        self.downloads = DownloadManager()  # textual-serve wants one; nothing uses it
        self._runner: web.AppRunner | None = None

    # -- the thread ---------------------------------------------------------------------
    async def listen(self) -> None:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.page),
                web.get("/ws", self.session),
                web.get("/ws/{options}", self.session),
                web.static("/static", STATIC),
            ]
        )
        runner = self._runner = web.AppRunner(
            app, handle_signals=False, shutdown_timeout=END_GRACE * 4
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.settings.port or 0)
        await site.start()
        self.port = runner.addresses[0][1]

    async def close(self) -> None:
        await asyncio.gather(*(s.stop() for s in list(self.sessions)))
        if self._runner is not None:
            await self._runner.cleanup()

    # -- who is asking ------------------------------------------------------------------
    def peer(self, request: web.Request) -> str:
        """The player's address: the connection's, or the one a reverse proxy on this
        machine forwarded (a header from anyone else is not believed)."""
        remote = request.remote or "?"
        forwarded = request.headers.get("X-Forwarded-For")
        if forwarded and _is_loopback(remote):
            return forwarded.split(",")[-1].strip() or remote
        return remote

    def origin_allowed(self, request: web.Request) -> bool:
        """A browser says which page opens a WebSocket (``Origin``): an origin the host
        listed (``web_origins``) may, and this page reached by an IP address or as
        ``localhost``. A page reached by any other name may not unless listed: a site
        whose name an attacker points at this server's address (DNS rebinding) has its
        own name in both ``Host`` and ``Origin``. No ``Origin``: not a browser, so no
        other site's page can be behind it."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        origin = origin.rstrip("/").lower()
        if origin in self.settings.origins:
            return True
        host = request.host
        if _is_loopback(request.remote or "?"):
            host = request.headers.get("X-Forwarded-Host", host)
        parts = urlsplit(origin)
        return parts.netloc == host.lower() and _named_by_address(parts.hostname or "")

    # -- the routes ---------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.Response:
        refused = self.gate.refusal(self.peer(request))
        if refused is not None:
            text = FULL_PAGE.format(reason=refused[0].upper() + refused[1:])
            return web.Response(text=text, status=503, content_type="text/html")
        return web.Response(
            text=PAGE,
            content_type="text/html",
            headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"},
        )

    async def session(self, request: web.Request) -> web.StreamResponse:
        options = OPTIONS_OF.get(request.match_info.get("options", ""))
        if options is None:
            raise web.HTTPNotFound(text="no such page")
        if "--lang" not in options:  # the page asked for none: the browser's own
            language = browser_language(request.headers.get("Accept-Language"))
            options = ["--lang", language, *options]
        if not self.origin_allowed(request):
            log.warning("web: refused a session from a page on %s", request.headers["Origin"])
            raise web.HTTPForbidden(text="this page may not open a gbmj session")
        address = self.peer(request)
        socket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        await socket.prepare(request)
        refused = self.gate.admit(address)
        if refused is not None:
            await socket.send_bytes(f"\r\n  gbmj: {refused}\r\n  请稍后再试。\r\n".encode())
            await socket.close(code=1013, message=b"try again later")
            return socket
        try:
            await self._run(request, socket, options)
        finally:
            self.gate.leave(address)
        return socket

    async def _run(
        self, request: web.Request, socket: web.WebSocketResponse, options: list[str]
    ) -> None:
        width, height = clamp_size(
            _number(request.query.get("width"), 80), _number(request.query.get("height"), 24)
        )
        options = [*options, "--server", self.game.address]  # the connect screen's, fixed
        with private_home() as home, self.game.session(self.peer(request)) as door_pass:
            env = client_environment(self.game, home, door_pass, {"TERM": "xterm-256color"})
            await self._play(socket, options, env, width, height)

    async def _play(
        self,
        socket: web.WebSocketResponse,
        options: list[str],
        env: dict[str, str],
        width: int,
        height: int,
    ) -> None:
        memory = self.settings.client_memory
        app = HostedApp(
            self.game.launcher,
            Request(tuple(options), env, memory),
            write_bytes=socket.send_bytes,
            write_str=socket.send_str,
            close=socket.close,
            download_manager=self.downloads,
        )
        last_input = asyncio.get_running_loop().time()

        async def watch_idle() -> None:
            timeout = self.settings.idle_timeout
            loop = asyncio.get_running_loop()
            while True:
                await asyncio.sleep(min(timeout / 4, 30.0))
                if loop.time() - last_input > timeout:
                    log.info("web: closing an idle session")
                    await socket.send_bytes(f"\r\n  idle for {timeout:.0f} s: goodbye\r\n".encode())
                    await socket.close()
                    return

        self.sessions.add(app)
        idle = asyncio.get_running_loop().create_task(watch_idle())
        try:
            await app.start(width, height)
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                kind, data = _envelope(message.data)
                if kind == "stdin" and isinstance(data, str):
                    keys = data.encode("utf-8")
                    if real_input(keys):  # a key or a click, not a NUL or a mouse move
                        last_input = asyncio.get_running_loop().time()
                    await app.send_bytes(keys)
                elif kind == "resize" and isinstance(data, dict):
                    columns, rows = clamp_size(
                        _number(str(data.get("width")), 80), _number(str(data.get("height")), 24)
                    )
                    await app.set_terminal_size(columns, rows)
                elif kind == "ping":
                    await socket.send_json(["pong", data])
                elif kind == "blur":
                    await app.blur()
                elif kind == "focus":
                    await app.focus()
        finally:
            idle.cancel()
            await app.stop()
            self.sessions.discard(app)


def _envelope(text: str) -> tuple[str | None, Any]:
    """``[kind, data]`` from the page's script; anything else is (None, None)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None, None
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return value[0], value[1]
    return None, None


def _named_by_address(host: str) -> bool:
    """Whether a page's host is an IP address or ``localhost``: names no DNS answer of
    an attacker's can stand for."""
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


async def serve_web(settings: WebSettings, host: str, game: GameDoor, *, task_status: Any) -> None:
    """Run the web page from trio until cancelled (then end its sessions and its thread).

    ``task_status.started(service)`` once it listens, on ``settings.host`` or else the
    game server's ``host``; its clients reach the game server through ``game``."""
    listen = settings.host if settings.host is not None else host
    service = WebService(settings, listen, game)
    shown = f"[{listen}]" if ":" in listen else listen
    await serve_door(
        service, lambda: f"web: listening on http://{shown}:{service.port}/", task_status
    )
