"""What ``koma serve`` can be asked for: the options, their defaults (stated once, here) and their checks.

This module imports neither asyncssh nor Textual, so that ``koma --help`` stays cheap.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import sys
from dataclasses import dataclass, field, fields
from typing import Any

from solver.errors import KomaError


@dataclass
class ServeOptions:
    """What ``koma serve`` was asked for; the limits are per game process."""

    host: str = "127.0.0.1"
    port: int = 2222
    max_sessions: int = 32  # games at once (SSH and web), and logged-in connections at once; one logging in takes none
    # Connections not yet logged in, at most (OpenSSH's MaxStartups, where 100 is the point it drops every new one):
    # one more drops the one that has waited longest.  A burst of 100 players connecting at once fits.
    max_startups: int = 100
    max_starting: int = 0  # games starting (forked, not drawn yet) at once; the others wait in order (0: one per core)
    login_grace_time: float = 20.0  # seconds from connecting to logged in (OpenSSH's LoginGraceTime)
    max_sessions_per_player: int = 3  # games one player may have at once (0: no limit)
    max_games_per_address: int = 0  # games at once from one address (an IPv6 /64), parked web games too (0: no limit)
    idle_timeout: float = 1800.0
    keepalive_interval: float = 15.0  # an SSH keepalive after this long without a word from the client
    keepalive_count_max: int = 3  # unanswered keepalives before a client is taken for gone (its games hang up)
    authorized_keys: str | None = None
    open: bool = False
    cpu_limit: int = 600  # seconds of CPU per game (0: none)
    memory_limit: int = 4096  # MiB of address space per game (0: none)
    rate_limit: int = 20  # new connections per address per minute (0: none)
    host_key: str | None = None  # default: the data dir's ssh_host_ed25519_key
    database: str | None = None  # default: $KOMA_DATABASE_URL, else SQLite in the data dir
    proxy_protocol: bool = False  # connections from trust_proxy start with a PROXY v1/v2 header (behind HAProxy)
    trust_proxy: list[Any] = field(default_factory=list)  # the balancers' networks: only their PROXY headers are read
    cold: bool = False  # start every game as a fresh process instead of forking it from the warm process
    admin_host: str = "127.0.0.1"  # the admin listener: /metrics, /healthz, /readyz
    admin_port: int | None = None  # None: no admin listener; 0 picks a free port
    drain_seconds: float = 0.0  # on SIGTERM, how long players may keep playing (told to reconnect) before their games end
    log_format: str = "text"  # or "json": one object per line
    game_command: list[str] = field(default_factory=lambda: [sys.executable, "-m", "tui.main"])


DEFAULTS = ServeOptions()
# (option, lowest allowed value); the port also has a highest
LOWEST = (("port", 0), ("max_sessions", 1), ("max_startups", 1), ("max_starting", 0), ("login_grace_time", 1),
          ("max_sessions_per_player", 0), ("max_games_per_address", 0), ("idle_timeout", 0),
          ("keepalive_interval", 1), ("keepalive_count_max", 1),
          ("cpu_limit", 0), ("memory_limit", 0), ("rate_limit", 0), ("admin_port", 0), ("drain_seconds", 0))


def add_serve_command(commands: Any) -> argparse.ArgumentParser:
    """Add ``koma serve`` and its options to the ``koma`` parser's subcommands; returns its parser."""
    d = DEFAULTS
    serve = commands.add_parser("serve", help="host Koma as an SSH game (needs the ssh extra)",
                                description="Host Koma as an SSH game: one sandboxed game per connection.")
    serve.add_argument("--host", default=d.host, help=f"address to listen on (default {d.host})")
    serve.add_argument("--port", type=int, default=d.port, help=f"port to listen on (default {d.port}; 0 picks one)")
    serve.add_argument("--max-sessions", type=int, default=d.max_sessions, metavar="N",
                       help=f"most games at once, and most players logged in at once (default {d.max_sessions})")
    serve.add_argument("--max-games-per-address", type=int, default=d.max_games_per_address, metavar="N",
                       help="most games at once from one address (IPv6: one /64) (default: no limit)")
    serve.add_argument("--max-startups", type=int, default=d.max_startups, metavar="N",
                       help=f"most connections not yet logged in; one more drops the one that has waited longest "
                            f"(default {d.max_startups})")
    serve.add_argument("--login-grace-time", type=float, default=d.login_grace_time, metavar="SECONDS",
                       help=f"close a connection not logged in after this long (default {d.login_grace_time:g})")
    serve.add_argument("--keepalive-interval", type=float, default=d.keepalive_interval, metavar="SECONDS",
                       help=f"send an SSH keepalive after this long without a word from the client "
                            f"(default {d.keepalive_interval:g})")
    serve.add_argument("--keepalive-count-max", type=int, default=d.keepalive_count_max, metavar="N",
                       help=f"hang up a client's games after N keepalives unanswered (default {d.keepalive_count_max})")
    who = serve.add_mutually_exclusive_group(required=True)
    who.add_argument("--authorized-keys", metavar="FILE", help="admit only these public keys (OpenSSH format)")
    who.add_argument("--open", action="store_true", help="admit any username, with no password")
    serve.add_argument("--host-key", metavar="FILE", help="the ed25519 host key (made if missing); give replicas the same "
                       "one (default: ssh_host_ed25519_key in the data dir)")
    # SUPPRESS: ``koma --database URL serve`` keeps the top-level value
    serve.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                       help="where games are saved: postgresql://… shared by replicas, or sqlite:///PATH "
                            "(default $KOMA_DATABASE_URL, else koma.db in the data dir)")
    serve.add_argument("--proxy-protocol", action="store_true",
                       help="connections from --trust-proxy addresses start with a PROXY v2 or v1 header naming the "
                            "client (HAProxy's send-proxy-v2); one without it is refused, and no other address's "
                            "header is read")
    serve.add_argument("--trust-proxy", action="append", default=[], metavar="CIDR",
                       help="with --proxy-protocol: the balancers' addresses or networks; may be repeated")
    add_game_options(serve)
    serve.add_argument("--log-format", choices=("text", "json"), default=d.log_format,
                       help="the server's log on stderr: readable lines (default), or one JSON object per line")
    return serve


def add_game_options(command: argparse.ArgumentParser) -> None:
    """The options ``koma serve`` and ``koma web`` share: each game's limits, how games start, the admin listener
    and the drain (one definition, so the two commands never drift apart)."""
    d = DEFAULTS
    command.add_argument("--max-sessions-per-player", type=int, default=d.max_sessions_per_player, metavar="N",
                         help=f"most games one player may have at once (default {d.max_sessions_per_player}; 0 no limit)")
    command.add_argument("--idle-timeout", type=float, default=d.idle_timeout, metavar="SECONDS",
                         help=f"close a game after this long without a key (default {d.idle_timeout:g}; 0 never)")
    command.add_argument("--cpu-limit", type=int, default=d.cpu_limit, metavar="SECONDS",
                         help=f"CPU seconds per game (default {d.cpu_limit}; 0 none)")
    command.add_argument("--memory-limit", type=int, default=d.memory_limit, metavar="MIB",
                         help=f"address space per game in MiB (default {d.memory_limit}; 0 none)")
    command.add_argument("--rate-limit", type=int, default=d.rate_limit, metavar="N",
                         help=f"new connections per address per minute (default {d.rate_limit}; 0 none)")
    command.add_argument("--max-starting", type=int, default=d.max_starting, metavar="N",
                         help="most games starting at once (from the fork to their first frame); players arriving "
                              "beyond wait in order, told how many are ahead (default: one per core)")
    command.add_argument("--cold", action="store_true",
                         help="start each game as a fresh Python process (slower; for comparison) instead of forking "
                              "it from the warm process")
    command.add_argument("--admin-host", default=d.admin_host, metavar="H",
                         help=f"address of the admin listener (default {d.admin_host}: loopback only)")
    command.add_argument("--admin-port", type=int, default=d.admin_port, metavar="P",
                         help="serve Prometheus metrics (/metrics), /healthz and /readyz over HTTP on this port "
                              "(default: none; 0 picks one)")
    command.add_argument("--drain-seconds", type=float, default=d.drain_seconds, metavar="SECONDS",
                         help="on SIGTERM: stop taking players (/readyz and /healthz fail), tell each player their game "
                              f"is saved, and let them play on this long before their games end (default "
                              f"{d.drain_seconds:g})")


def proxy_networks(cidrs: list[str], proxy_protocol: bool) -> list[Any]:
    """The ``--trust-proxy`` networks (a one-line KomaError for a bad one); ``--proxy-protocol`` needs one: a PROXY
    header is believed only from a balancer the operator named."""
    networks = []
    for cidr in cidrs:
        try:
            networks.append(ipaddress.ip_network(cidr[:64], strict=False))
        except ValueError:
            raise KomaError(f"--trust-proxy {cidr[:64]!r} is not an address or network (e.g. 10.0.0.0/8)") from None
    if proxy_protocol and not networks:
        raise KomaError("--proxy-protocol needs --trust-proxy CIDR: the balancers whose connections carry the header")
    return networks


def options_from(args: Any) -> ServeOptions:
    """Check the parsed arguments (a one-line KomaError for a value out of range) and build the options."""
    for name, low in LOWEST:
        value = getattr(args, name, None)
        if value is None:
            continue
        if not math.isfinite(value) or value < low or (name in ("port", "admin_port") and value > 65535):
            raise KomaError(f"--{name.replace('_', '-')} {value} is out of range")
    from tui.storage.store_choice import database_url  # the store's modules only when serving, not for every command

    database_url(getattr(args, "database", None))
    given = {f.name: getattr(args, f.name) for f in fields(ServeOptions) if hasattr(args, f.name)}
    given["trust_proxy"] = proxy_networks(getattr(args, "trust_proxy", []), bool(getattr(args, "proxy_protocol", False)))
    return ServeOptions(**given)
