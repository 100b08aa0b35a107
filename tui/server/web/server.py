"""``koma web``: Koma in a browser, on the same game processes, limits and admission as ``koma serve``.

An aiohttp server serves our small page (``static/``), xterm.js with textual-serve's driver from the
installed ``textual-serve`` package (never copied here, nothing from another site) and a WebSocket at ``ws``
beside the page.  Each game is :class:`tui.server.served_game.ServedGame` on a
:class:`~tui.server.web.transport.WebTransport`: the same pump, seats, per-player cap, rate limit and idle
timeout as over SSH.  A WebSocket is refused, with one line and before anything is allocated, when its
``Origin`` is not this page's host, its player cookie is missing or not ours, or the server (or its address)
already has its cap of sockets; messages are bounded (a bigger one closes the socket, 1009) and a heartbeat
drops browsers that stop answering.  ``X-Forwarded-For`` is believed only from ``--trust-proxy`` addresses.
A game survives its socket for a minute: the page's session token (one per tab) re-attaches a reload.
With ``--admin-port`` the games and refusals are in ``koma serve``'s metrics as ``transport="web"``, and SIGTERM
drains as there (:func:`tui.server.lifecycle.until_stopped`): ``/healthz`` fails at once, new sockets are refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from tui.patches.server_header import SERVER_NAME, use_plain_server_name
from tui.server import lifecycle, metrics
from tui.server.host import PRIVATE_UMASK, GameHost
from tui.server.links import LinkCodes
from tui.server.log_lines import escape_controls
from tui.server.private_files import default_key_path
from tui.server.proxy_protocol import address_group, trusted_by
from tui.server.served_game import ServedGame
from tui.server.server_log import Throttle, use_name
from tui.server.terminal import window_size
from tui.server.web.identity import COOKIE_KEY_NAME, COOKIE_MAX_AGE, COOKIE_NAME, Identities, cookie_key
from tui.server.web.listener import WebProxyListener
from tui.server.web.options import WebOptions, web_options_from
from tui.server.web.transport import WebTransport

TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
# textual-serve's static files that the page uses, served from the installed package (a fixed list: no listing)
XTERM_FILES = {"textual.js": ("js/textual.js", "application/javascript"), "xterm.css": ("css/xterm.css", "text/css"),
               "fonts/RobotoMono-VariableFont_wght.ttf": ("fonts/RobotoMono-VariableFont_wght.ttf", "font/ttf")}
OWN_FILES = {"koma.js": "application/javascript", "koma.css": "text/css"}
HEADERS = {"Content-Security-Policy": "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; "
                                      "img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


async def plain_server_header(request: web.Request, response: web.StreamResponse) -> None:
    """Every response names the server without a version (aiohttp's default names Python's and its own)."""
    response.headers["Server"] = SERVER_NAME


def log(message: str, *_: Any, **__: Any) -> None:
    print(f"koma web: {escape_controls(message)}", file=sys.stderr, flush=True)


# What any client can cause as often as it likes (a refused socket, a foreign cookie) is logged through a throttle.
REFUSALS_LOGGED = Throttle(what="refusal(s)", say=log)


def log_refusal(message: str) -> None:
    if REFUSALS_LOGGED.allow():
        log(message)


@dataclass(eq=False)
class WebSession:
    """One browser tab's game: its player, its transport, and the task that runs it."""

    token: str
    player: str
    name: str
    transport: WebTransport
    games: set[ServedGame] = field(default_factory=set)
    task: asyncio.Task | None = None


class WebServer:
    """The HTTP side of ``koma web``; the games themselves are the :class:`GameHost`'s."""

    def __init__(self, server: GameHost, options: WebOptions):
        self.server, self.options = server, options
        key_path = Path(options.cookie_key) if options.cookie_key else default_key_path(COOKIE_KEY_NAME, log)
        self.identities = Identities(cookie_key(key_path, log))
        server.keep_secret(key_path)
        self.links = LinkCodes() if options.link_only else None
        self.sessions: dict[str, WebSession] = {}
        self.sockets: dict[web.WebSocketResponse, str] = {}  # open WebSockets -> client address
        self.files = self.load_files()
        self.runner: web.AppRunner | None = None
        self.listener: WebProxyListener | None = None  # accepts for aiohttp: PROXY headers, caps, deadlines
        self.port = options.port

    @staticmethod
    def load_files() -> dict[str, tuple[bytes, str]]:
        """Every file the page needs, read once: ours from this package, xterm.js's from textual-serve's."""
        own = resources.files("tui.server.web") / "static"
        files = {f"static/{name}": ((own / name).read_bytes(), kind) for name, kind in OWN_FILES.items()}
        files.update({page: ((own / page).read_bytes(), "text/html") for page in ("index.html", "link.html")})
        try:
            package = resources.files("textual_serve") / "static"
            files.update({f"xterm/{name}": ((package / path).read_bytes(), kind)
                          for name, (path, kind) in XTERM_FILES.items()})
        except (ModuleNotFoundError, FileNotFoundError) as missing:
            raise ValueError(f"textual-serve's xterm.js is missing ({missing}): pip install -e '.[web]'") from None
        return files

    def application(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024, middlewares=[self.handling])
        app.on_response_prepare.append(plain_server_header)
        use_plain_server_name()  # and what aiohttp answers itself, to a request it cannot parse
        app.router.add_get("/", self.page)
        app.router.add_post("/link", self.link)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/healthz", self.health)
        app.router.add_get(r"/{path:(static|xterm)/[A-Za-z0-9_./-]+}", self.file)
        return app

    async def start(self) -> None:
        self.runner = web.AppRunner(self.application(), access_log=None, handle_signals=False, shutdown_timeout=3.0)
        await self.runner.setup()
        options = self.options
        self.listener = WebProxyListener(self.runner.server, lambda a: options.proxy_protocol and self.trusted(a),
                                         self.trusted, log, options.max_http_per_address, options.request_timeout)
        try:
            await self.listener.start(options.host, options.port)
        except OSError as problem:
            raise ValueError(f"cannot listen on {options.host}:{options.port}: {problem.strerror or problem}") from None
        self.port = self.listener.get_port() or options.port
        self.server.links = self.links
        mode = "guests welcome" if options.open else "linked browsers only"
        log(f"listening on http://{options.host}:{self.port}/ ({mode}; {options.max_connections} sockets, "
            f"{options.max_per_address} per address, {options.max_http_per_address} HTTP connections per address, "
            f"{options.request_timeout:g} s to ask; trusting "
            f"{'a PROXY header and ' if options.proxy_protocol else ''}X-Forwarded-For from "
            f"{', '.join(map(str, options.trust_proxy)) or 'nobody'})")

    async def close(self) -> None:
        """After the games have ended: let their sockets close with their reasons, then stop serving."""
        running = [session.task for session in self.sessions.values() if session.task is not None]
        if running:
            await asyncio.wait(running, timeout=10.0)
        if self.listener is not None:
            self.listener.close()
        if self.runner is not None:
            await self.runner.cleanup()

    @web.middleware
    async def handling(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """While a request is handled (a WebSocket: while it is open) its connection is not timed out."""
        if self.listener is not None:
            self.listener.handling(request.transport, True)
        try:
            return await handler(request)
        finally:
            if self.listener is not None:
                self.listener.handling(request.transport, False)

    # --- who is asking ---

    def trusted(self, address: str) -> bool:
        return trusted_by(self.options.trust_proxy)(address)

    def client(self, request: web.Request) -> tuple[str, str]:
        """The client's address and its ``address:port`` for the log: the socket's (or its PROXY header's), or
        from a trusted proxy the last ``X-Forwarded-For`` hop that is not itself a trusted proxy."""
        peer = request.transport.get_extra_info("peername") if request.transport else None
        address, port = (str(peer[0]), peer[1]) if peer else ("?", 0)
        if self.listener is not None:
            address, port = self.listener.client_of(request.transport) or (address, port)
        forwarded = ",".join(request.headers.getall("X-Forwarded-For", []))  # every copy: the last hop is the proxy's
        if forwarded and self.trusted(address):
            for hop in reversed([h.strip() for h in forwarded[-2048:].split(",")][-16:]):
                try:
                    ipaddress.ip_address(hop)
                except ValueError:
                    break
                address, port = hop, 0
                if not self.trusted(hop):
                    break
        return address, f"{address}:{port}"

    def secure(self, request: web.Request) -> bool:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        forwarded = request.headers.get("X-Forwarded-Proto", "")
        return request.secure or (peer is not None and self.trusted(str(peer[0])) and forwarded == "https")

    def who(self, request: web.Request) -> tuple[str, str] | None:
        """The player a request's cookie names, if the cookie is ours (and, with --link-only, linked)."""
        found = self.identities.read(request.cookies.get(COOKIE_NAME))
        if found and self.links is not None and found[0].startswith("web:"):
            return None
        return found

    def with_cookie(self, request: web.Request, response: web.Response, player: str, name: str) -> web.Response:
        response.set_cookie(COOKIE_NAME, self.identities.sign(player, name), max_age=COOKIE_MAX_AGE, path="/",
                            httponly=True, samesite="Lax", secure=self.secure(request))
        return response

    # --- pages ---

    def html(self, page: str, status: int = 200, problem: str = "") -> web.Response:
        body = self.files[page][0]
        if page == "link.html":
            ssh_port = str(self.server.port)
            body = body.replace(b"SSH_PORT", ssh_port.encode()).replace(b"PROBLEM", problem.encode())
        return web.Response(body=body, status=status, content_type="text/html", charset="utf-8",
                            headers={**HEADERS, "Cache-Control": "no-store"})

    async def page(self, request: web.Request) -> web.Response:
        found = self.who(request)
        if found is not None:
            return self.html("index.html")
        if self.links is not None:
            return self.html("link.html")
        _, peer = self.client(request)
        if request.cookies.get(COOKIE_NAME):
            log_refusal(f"{peer}: a player cookie that is not ours; a new guest")
        return self.with_cookie(request, self.html("index.html"), *Identities.new_guest())

    async def link(self, request: web.Request) -> web.Response:
        if self.links is None:
            raise web.HTTPNotFound(text="koma: this server does not link browsers\n")
        address, peer = self.client(request)
        origin = request.headers.get("Origin", "")  # browsers send it with every POST; a form without one is no page's
        if not origin or urlsplit(origin[:300]).netloc.lower() != request.host.lower():  # none, or another site's form
            raise web.HTTPForbidden(text="koma: refused: the form's origin is not this server\n")
        try:
            form = await asyncio.wait_for(request.post(), self.options.request_timeout or None)
        except TimeoutError:
            raise web.HTTPRequestTimeout(text="koma: the form took too long\n") from None
        found = self.links.redeem(str(form.get("code", "")), address_group(address))
        if isinstance(found, str):
            return self.html("link.html", 400, found)
        player, name = found
        log(f"{peer}: a browser linked to player {player}")
        return self.with_cookie(request, web.HTTPSeeOther("./"), player, name)

    async def file(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["path"])
        if found is None or found[1] == "text/html":
            raise web.HTTPNotFound(text="koma: no such file\n")
        return web.Response(body=found[0], content_type=found[1],
                            headers={**HEADERS, "Cache-Control": "public, max-age=3600"})

    async def health(self, request: web.Request) -> web.Response:
        if self.server.stopping:
            return web.Response(status=503, text="stopping\n")
        return web.Response(text="ok\n")

    # --- the WebSocket ---

    def refusal(self, request: web.Request, address: str) -> tuple[int, str, str] | None:
        """Why a WebSocket is refused before it is upgraded (an HTTP status, a line, the metrics' reason), or None."""
        origin = request.headers.get("Origin", "")
        if urlsplit(origin[:300]).netloc.lower() != request.host.lower() or not origin:
            return 403, f"koma: refused: the page's origin ({origin[:80] or 'none'}) is not this server", "origin"
        if self.who(request) is None:
            return 403, "koma: refused: no valid player cookie (reload the page)", "auth"
        if not TOKEN.fullmatch(request.query.get("session", "")):
            return 400, "koma: refused: no valid session token", "bad_request"
        if self.server.stopping:
            return 503, "koma: the Koma server is shutting down", "shutting_down"
        if len(self.sockets) >= self.options.max_connections:
            return 503, f"koma: the Koma server is full ({self.options.max_connections} connections); try again later", "full"
        group, cap = address_group(address), self.options.max_per_address
        if sum(1 for a in self.sockets.values() if a == group) >= cap:
            return 429, f"koma: too many connections from {address} ({cap} at once)", "per_address"
        session = self.sessions.get(request.query["session"])
        if (session is None or session.transport.ended) and sum(1 for g in self.server.games if g.address == group) >= cap:
            return 429, f"koma: too many games from {address} ({cap} at once; a closed page's game waits a while)", "per_address"
        why = self.server.admit(address)
        return (429, f"koma: {why}", "rate_limit") if why else None

    async def socket(self, request: web.Request) -> web.StreamResponse:
        connected = time.monotonic()  # the home screen's time counts from here, as from an SSH connection
        address, peer = self.client(request)
        refused = self.refusal(request, address)
        if refused is not None:
            metrics.REFUSALS.labels(metrics.WEB, refused[2]).inc()
            log_refusal(f"{peer}: WebSocket refused ({refused[1].removeprefix('koma: ')})")
            return web.Response(status=refused[0], text=refused[1] + "\n")
        player, name = self.who(request) or ("", "")
        token = request.query["session"]
        columns, rows, _, _ = window_size(*(int(request.query.get(k, "0")[:5] or 0) if request.query.get(k, "0")[:5]
                                            .isdigit() else 0 for k in ("width", "height")))
        ws = web.WebSocketResponse(heartbeat=self.options.heartbeat, max_msg_size=self.options.max_message)
        await ws.prepare(request)
        self.sockets[ws] = address_group(address)
        session: WebSession | None = None
        try:
            session = self.sessions.get(token)
            if session is not None and session.player != player:
                await ws.close(code=1008, message=b"that session is not yours; reload the page")
                return ws
            if session is None or session.transport.ended:  # a game just ended may still be closing its socket
                session = await self.new_session(ws, request, token, player, name, peer, columns, rows, connected, address)
                if session is None:
                    return ws
            else:
                log(f"{peer} player {player}: back to its game")
                if session.transport.socket is not None:
                    session.transport.detach(session.transport.socket, "the game was opened again elsewhere")
                session.transport.attach(ws, columns, rows, reconnect=True, wire=request.transport)
            await self.read(ws, session.transport)
        finally:
            self.sockets.pop(ws, None)
            if session is not None:
                session.transport.detach(ws)
        return ws

    async def new_session(self, ws: web.WebSocketResponse, request: web.Request, token: str, player: str, name: str,
                          peer: str, columns: int, rows: int, connected: float, address: str) -> WebSession | None:
        wait = self.options.reconnect_seconds

        def gone(why: str) -> None:
            went = f"its socket was dropped: {why}" if why else "the browser went"
            log(f"{peer} player {player}: {went}; its game waits {wait:g} s for it")

        transport = WebTransport(columns, rows, gone, wait, self.options.heartbeat, lambda: self.server.stopping)
        session = WebSession(token, player, name, transport)
        refusal = self.server.seat(session)
        if refusal:
            metrics.REFUSALS.labels(metrics.WEB, "full").inc()
            log_refusal(f"{peer} player {player}: refused ({refusal})")
            await ws.send_bytes(f"koma: {refusal}.\r\n".encode())
            await ws.close(code=1013, message=refusal.encode()[:120])
            self.server.leave(session)
            return None
        self.sessions[token] = session
        transport.attach(ws, columns, rows, reconnect=False, wire=request.transport)
        session.task = asyncio.get_running_loop().create_task(self.run(session, peer, connected, address))
        return session

    async def run(self, session: WebSession, peer: str, connected: float, address: str) -> None:
        try:
            await self.server.host(session.transport, session.player, session.name, peer, session.games, connected,
                                   address)
            if session.transport.tasks:  # the socket's close, with the game's last line as its reason
                await asyncio.wait(set(session.transport.tasks), timeout=8.0)
        finally:
            if self.sessions.get(session.token) is session:  # not a new game its token started since
                del self.sessions[session.token]
            self.server.leave(session)

    async def read(self, ws: web.WebSocketResponse, transport: WebTransport) -> None:
        """The browser's messages, in order, until its socket closes; anything unexpected is ignored."""
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, *rest = json.loads(message.data)
            except (ValueError, TypeError):
                continue
            if kind == "stdin" and rest and isinstance(rest[0], str):
                await transport.feed(rest[0].encode("utf-8", "replace"))
            elif kind == "resize" and rest and isinstance(rest[0], dict):
                with contextlib.suppress(TypeError, ValueError):
                    columns, rows, _, _ = window_size(int(rest[0].get("width", 0)), int(rest[0].get("height", 0)))
                    await transport.feed((columns, rows, 0, 0))
            elif kind == "ping" and rest:
                await ws.send_str(json.dumps(["pong", str(rest[0])[:32]]))


async def serve_web(serve_options: Any, options: WebOptions, ssh: Callable[[Any], GameHost] | None) -> int:
    os.umask(PRIVATE_UMASK)
    use_name("koma web")  # the server's own lines (the warm process's, the SSH listener's) are koma web's too
    server = ssh(serve_options) if ssh is not None and options.ssh_port is not None else GameHost(serve_options)
    web_server = WebServer(server, options)
    await server.start()  # the admin listener, the warm pool and the drainer (with --ssh-port, the SSH listener too)
    await web_server.start()
    # as koma serve's: SIGTERM drains (/readyz and /healthz fail, new sockets are refused, players told), then stops
    await lifecycle.until_stopped(server, web_server.close)
    log("stopped")
    return 0


def web_command(args: Any, ssh: Callable[[Any], GameHost] | None = None) -> int:
    """``koma web``: check the options (one-line errors), then run the server until it is stopped; ``ssh`` makes the
    SSH front end that also listens with ``--ssh-port`` (the command line gives it: the web front end never imports
    the SSH one)."""
    serve_options, options = web_options_from(args)
    try:
        return asyncio.run(serve_web(serve_options, options, ssh))
    except ValueError as problem:
        print(f"koma: error: {problem}", file=sys.stderr)
        return 2
    except OSError as problem:
        print(f"koma: error: {problem.strerror or problem}", file=sys.stderr)
        return 2
