"""What ``koma web`` can be asked for: its options, their defaults and checks.  Imports neither aiohttp nor Textual.

``koma web`` runs the games through the same :class:`tui.server.host.GameHost` as ``koma serve`` (its warm
pool, seats, per-player cap, rate limit, idle timeout and CPU and memory limits), so the options those share
are ``koma serve``'s own; ``--ssh-port`` adds the SSH server to the same process, which ``--link-only`` needs
(the one-time codes are shown over SSH and kept in this process's memory).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, fields
from typing import Any

from solver.errors import KomaError
from tui.server.options import DEFAULTS, ServeOptions, add_game_options, proxy_networks


@dataclass
class WebOptions:
    """The web server's own settings (the games' limits are the :class:`ServeOptions`)."""

    host: str = "127.0.0.1"
    port: int = 8080
    open: bool = False  # any browser plays, as a guest named by its cookie
    link_only: bool = False  # only browsers linked to an SSH player (a one-time code)
    trust_proxy: list[Any] = field(default_factory=list)  # networks whose X-Forwarded-For is believed
    proxy_protocol: bool = False  # connections from trust_proxy start with a PROXY header (HAProxy send-proxy-v2)
    max_connections: int = 200  # WebSockets at once
    max_per_address: int = 8  # WebSockets, and games (parked ones too), at once from one address (an IPv6 /64)
    max_message: int = 64 * 1024  # bytes in one message from a browser
    max_http_per_address: int = 32  # connections (pages, files, WebSockets) open at once from one address
    request_timeout: float = 15.0  # seconds a connection may take to send a request (and stay idle between two)
    heartbeat: float = 20.0  # seconds between pings (a browser that does not answer in half that is dropped), and
    # the longest a browser may take none of its game's output before it is dropped
    cookie_key: str | None = None  # default: web_cookie_key in the data dir
    ssh_port: int | None = None  # also serve SSH on this port, in this process
    reconnect_seconds: float = 60.0  # how long a game whose browser went waits for it to come back


LOWEST = (("port", 0), ("max_connections", 1), ("max_per_address", 1), ("max_http_per_address", 1),
          ("request_timeout", 1), ("reconnect_seconds", 0), ("heartbeat", 1))


def add_web_command(commands: Any) -> argparse.ArgumentParser:
    """Add ``koma web`` and its options to the ``koma`` parser's subcommands; returns its parser."""
    d, s = WebOptions(), DEFAULTS
    web = commands.add_parser("web", help="serve Koma to browsers over a WebSocket (needs the web extra)",
                              description="Serve Koma to browsers: the same game processes as koma serve, over a "
                                          "WebSocket, with xterm.js in the page.")
    web.add_argument("--host", default=d.host, help=f"address to listen on (default {d.host})")
    web.add_argument("--port", type=int, default=d.port, help=f"HTTP port (default {d.port}; 0 picks one)")
    who = web.add_mutually_exclusive_group(required=True)
    who.add_argument("--open", action="store_true", help="any browser plays, as a guest its cookie names")
    who.add_argument("--link-only", action="store_true",
                     help="only browsers linked to an SSH player with the one-time code `ssh -p PORT HOST link` shows "
                          "(needs --ssh-port)")
    web.add_argument("--trust-proxy", action="append", default=[], metavar="CIDR",
                     help="believe X-Forwarded-For from these addresses (a balancer); may be repeated")
    web.add_argument("--proxy-protocol", action="store_true",
                     help="connections from --trust-proxy addresses start with a PROXY v1/v2 header naming the "
                          "browser's address (HAProxy: send-proxy-v2); one without it is refused")
    web.add_argument("--max-connections", type=int, default=d.max_connections, metavar="N",
                     help=f"WebSockets at once (default {d.max_connections})")
    web.add_argument("--max-per-address", type=int, default=d.max_per_address, metavar="N",
                     help=f"WebSockets, and games (a closed page's too, while it waits), at once from one address "
                          f"(IPv6: one /64) (default {d.max_per_address})")
    web.add_argument("--max-http-per-address", type=int, default=d.max_http_per_address, metavar="N",
                     help=f"HTTP connections at once from one address (IPv6: one /64), a balancer's not counted "
                          f"(default {d.max_http_per_address})")
    web.add_argument("--request-timeout", type=float, default=d.request_timeout, metavar="SECONDS",
                     help=f"close a connection that has not sent a whole request this long after it opened or its "
                          f"last request ended (default {d.request_timeout:g})")
    web.add_argument("--reconnect-seconds", type=float, default=d.reconnect_seconds, metavar="SECONDS",
                     help=f"a game whose browser went (a reload, a dropped network) waits this long for it, then "
                          f"saves and ends (default {d.reconnect_seconds:g})")
    web.add_argument("--heartbeat", type=float, default=d.heartbeat, metavar="SECONDS",
                     help=f"ping each browser this often and drop one that does not answer in half that, or that "
                          f"takes none of its game's output for this long (default {d.heartbeat:g})")
    web.add_argument("--cookie-key", metavar="FILE",
                     help="the key that signs player cookies (made if missing); give replicas the same one "
                          "(default: web_cookie_key in the data dir)")
    web.add_argument("--ssh-port", type=int, metavar="PORT", help="also serve SSH on this port, in this process")
    ssh = web.add_mutually_exclusive_group()
    ssh.add_argument("--authorized-keys", metavar="FILE", help="with --ssh-port: admit only these public keys")
    ssh.add_argument("--ssh-open", action="store_true", help="with --ssh-port: admit any SSH username")
    web.add_argument("--max-sessions", type=int, default=s.max_sessions, metavar="N",
                     help=f"most games at once, SSH and web together (default {s.max_sessions})")
    web.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                     help="where games are saved (as koma serve)")
    add_game_options(web)
    return web


def web_options_from(args: Any) -> tuple[ServeOptions, WebOptions]:
    """Check the parsed arguments (one-line KomaErrors) and build both sets of options."""
    for name, low in LOWEST:
        value = getattr(args, name)
        if not math.isfinite(value) or value < low or (name == "port" and value > 65535):
            raise KomaError(f"--{name.replace('_', '-')} {value} is out of range")
    networks = proxy_networks(args.trust_proxy, args.proxy_protocol)
    if args.ssh_port is not None and not 0 <= args.ssh_port <= 65535:
        raise KomaError(f"--ssh-port {args.ssh_port} is out of range")
    if args.link_only and args.ssh_port is None:
        raise KomaError("--link-only needs --ssh-port: the codes are shown over SSH by this same process")
    if args.ssh_port is not None and not (args.authorized_keys or args.ssh_open):
        raise KomaError("--ssh-port needs --authorized-keys FILE, or --ssh-open to admit any username")
    from tui.storage.store_choice import database_url  # the store's modules only when serving, not for every command

    database_url(getattr(args, "database", None))
    web = WebOptions(**{f.name: getattr(args, f.name) for f in fields(WebOptions) if hasattr(args, f.name)})
    web.trust_proxy = networks
    serve = ServeOptions(host=args.host, port=args.ssh_port or 0, open=bool(args.ssh_open),
                         authorized_keys=args.authorized_keys, max_sessions=args.max_sessions,
                         max_sessions_per_player=args.max_sessions_per_player, idle_timeout=args.idle_timeout,
                         max_games_per_address=args.max_per_address,
                         cpu_limit=args.cpu_limit, memory_limit=args.memory_limit, rate_limit=args.rate_limit,
                         database=getattr(args, "database", None), cold=args.cold,
                         admin_host=getattr(args, "admin_host", DEFAULTS.admin_host),
                         admin_port=getattr(args, "admin_port", None),
                         drain_seconds=getattr(args, "drain_seconds", DEFAULTS.drain_seconds))
    for name, low in (("max_sessions", 1), ("max_sessions_per_player", 0), ("idle_timeout", 0), ("cpu_limit", 0),
                      ("memory_limit", 0), ("rate_limit", 0), ("admin_port", 0), ("drain_seconds", 0)):
        value = getattr(serve, name)
        if value is None:
            continue
        if not math.isfinite(value) or value < low or (name == "admin_port" and value > 65535):
            raise KomaError(f"--{name.replace('_', '-')} {value} is out of range")
    return serve, web
