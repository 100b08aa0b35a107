"""``koma serve``: host Koma as an SSH game (asyncssh), one sandboxed game process per connection.

Each accepted session with a terminal runs the real app on its own pseudo-terminal, in a process of its
own: forked from the warm process (:mod:`tui.server.warm_pool`, :mod:`tui.zygote`), or, with ``--cold``
or while no warm process is ready, started afresh as ``python -m tui.main``.  It runs in its own
session, under CPU-time and address-space limits, with the client's
terminal type and size, ``LANG=C.UTF-8``, ``ESCDELAY``, the player's identity (``KOMA_PLAYER``: the
username with ``--open``, else the key's SHA256 fingerprint) and the operator's display settings
(:data:`DISPLAY_VARIABLES`).  Bytes are bridged both ways with asyncio and window changes are
forwarded.  A session without a terminal gets one line and is closed; exec, subsystems (SFTP), port
forwarding, agent and X11 forwarding are refused.  New connections are rate-limited per address, each
player has at most ``--max-sessions-per-player`` games at once, idle games are closed with a message,
and SIGTERM (or SIGINT) stops every game (each saves on SIGTERM), tells every client, and returns 0.

This module never imports Textual: the server process stays small, and a crash or hang in one game
cannot touch the others.
"""

from __future__ import annotations

import asyncio
import collections
import errno
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import asyncssh

from solver.engines.paths import data_dir
from tui.patches.ssh_environment import session_channel
from tui.server import lifecycle, metrics
from tui.server.admin import AdminListener
from tui.server.environment import base_environment, safe_username
from tui.server.game import STOP_GRACE_SECONDS, Game, child_setup
from tui.server.options import ServeOptions, options_from
from tui.server.server_log import log, use_format
from tui.server.ssh.channels import CLIENT_VARIABLES, GameProcess
from tui.server.ssh.host_key import default_host_key_path, host_key
from tui.server.ssh.proxy import Address, ProxyListener, address_group, trusted_by
from tui.server.transport import SshTransport, Transport
from tui.server.warm_pool import WarmGame, WarmPool, become_subreaper
from tui.server.web.identity import LinkCodes, link_message
from tui.storage.outbox_drain import OutboxDrainer
from tui.storage.stores import DATABASE_VARIABLE, check_database, database_url

RATE_WINDOW_SECONDS = 60.0
__all__ = ["log", "safe_username"]  # the log (tui.server.server_log) escapes what a client sent: no forged lines


class Connection(asyncssh.SSHServer):
    """One client connection: admission (capacity, rate), authentication, and its game sessions."""

    def __init__(self, server: KomaServer, client: Address | None = None, balancer: Address | None = None):
        """``client``: the address a PROXY header gave (else the socket's); ``balancer``: who sent that header."""
        self.server = server
        self.client, self.balancer = client, balancer
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.peer = "?"
        self.username = ""
        self.fingerprint: str | None = None
        self.refusal = ""
        self.games: set[Game] = set()
        self.connected = time.monotonic()
        self.authenticated = False
        self.lost = False  # connection_lost has run: a session handler that starts after it starts no game

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        address = self.client or conn.get_extra_info("peername") or ("?", 0)
        self.address, self.peer = str(address[0]), f"{address[0]}:{address[1]}"
        via = f" through {self.balancer[0]}:{self.balancer[1]}" if self.balancer else ""
        # Refused connections are told why once the key exchange is done (see begin_auth): a disconnect
        # sent before it would reach the client as a garbled banner.
        if self.balancer is not None and self.client is None:  # a PROXY LOCAL header: the balancer's own check
            self.refusal = "a PROXY LOCAL connection is the balancer's health check: it does not log in"
            lifecycle.refused(f"{self.peer}{via}", "health_check", self.refusal, "health check")
        else:
            lifecycle.connected(self.peer, via)
            self.refusal = self.server.admit(self.address)
            if self.refusal:
                lifecycle.refused(self.peer, "shutting_down" if self.server.stopping else "rate_limit", self.refusal)
        self.server.arrive(self)

    def drop(self, why: str) -> None:
        """Close a connection that has not logged in, without a word (it may not even speak SSH)."""
        lifecycle.refused(self.peer, "startups", why, "dropped")
        if self.conn is not None:
            self.conn.abort()

    def auth_completed(self) -> None:
        self.authenticated = True
        refusal = self.server.seat(self)
        if refusal and not self.refusal and self.conn is not None:
            self.refusal = refusal
            lifecycle.refused(self.peer, "full", refusal)
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone (closed, reset, or silent past the keepalives): hang up its games now."""
        self.lost = True
        self.server.leave(self)
        if self.username and not self.authenticated and not self.refusal:
            lifecycle.refused(self.peer, "auth", f"{self.username[:40]!r} did not log in")
        if exc is not None and self.games:
            log(f"{self.peer}: connection lost ({exc}); hanging up {len(self.games)} game(s)", "connection_lost",
                client=self.peer)
        for game in list(self.games):
            game.hang_up()

    def begin_auth(self, username: str) -> bool:
        self.username = username
        if self.refusal and self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
            return True
        return not self.server.options.open  # --open: no authentication at all

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return not self.server.options.open

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        keys = self.server.authorized
        if keys is None or keys.validate(key, self.address, self.address) is None:
            return False
        self.fingerprint = key.get_fingerprint("sha256")
        return True

    def identity(self) -> tuple[str, str]:
        name = safe_username(self.username)
        if self.server.options.open or not self.fingerprint:
            return f"user:{name}", name
        return f"key:{self.fingerprint}", name

    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, GameProcess] | bool:
        if self.refusal or self.conn is None:
            return False
        player, name = self.identity()
        channel = session_channel(self.conn, CLIENT_VARIABLES)  # it keeps only the environment a game reads
        return channel, GameProcess(lambda process: self.server.play(process, player, name, self), None, 0, False)

    # Everything but a session is refused (these are asyncssh's defaults, stated here on purpose).
    def connection_requested(self, *args: Any) -> bool:
        log(f"{self.peer}: refused a port forward")
        return False

    def server_requested(self, *args: Any) -> bool:
        log(f"{self.peer}: refused a remote port forward")
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        return False

    def tun_requested(self, *args: Any) -> bool:
        return False

    def tap_requested(self, *args: Any) -> bool:
        return False


class KomaServer:
    """The listening server: admission, the games in progress, and a graceful shutdown."""

    def __init__(self, options: ServeOptions):
        self.options = options
        self.connections: set[Connection] = set()  # every open connection
        self.logging_in: dict[Connection, None] = {}  # those not logged in yet, the longest waiting first
        self.players: set[Connection] = set()  # those logged in: each takes a seat
        self.games: set[Game] = set()
        self.recent: dict[str, collections.deque] = {}
        self.authorized: asyncssh.SSHAuthorizedKeys | None = None
        self.listener: asyncssh.SSHAcceptor | ProxyListener | None = None
        self.stopping = False
        self.port = options.port
        self.pool: WarmPool | None = None
        self.drainer: OutboxDrainer | None = None
        self.drain_task: asyncio.Task | None = None
        self.links: LinkCodes | None = None  # koma web --link-only in this process: its one-time codes
        self.draining = self.cut_drain = False
        self.warm_forks = self.warm_restarts = 0
        self.admin: AdminListener | None = None
        self.watch_task: asyncio.Task | None = None

    def arrive(self, connection: Connection) -> None:
        """A connection was made: it waits to log in, and takes no seat until it has.  With ``--max-startups``
        connections already waiting, one is dropped: a refused one (rate-limited, a health check) if any waits,
        else the newcomer if it is refused itself, else the one that has waited longest.  A refused connection
        never pushes out a login within its limits."""
        self.connections.add(connection)
        while len(self.logging_in) >= self.options.max_startups:
            waiting = len(self.logging_in)
            victim = next((c for c in self.logging_in if c.refusal), None)
            if victim is None and connection.refusal:
                asyncio.get_running_loop().call_soon(connection.drop, f"{waiting} connections not logged in; "
                                                                      "this one is refused")
                return
            if victim is None:
                victim, why = next(iter(self.logging_in)), "this one waited longest"
            else:
                why = "this one is refused"
            del self.logging_in[victim]
            victim.drop(f"{waiting} connections not logged in; {why}")
        self.logging_in[connection] = None

    def admit(self, address: str) -> str:
        """Why a new connection is refused ('' to admit it): shutting down, or too many from one address."""
        if self.stopping:
            return "the Koma server is shutting down"
        limit = self.options.rate_limit
        if limit:
            now = time.monotonic()
            times = self.recent.setdefault(address_group(address), collections.deque())
            while times and now - times[0] > RATE_WINDOW_SECONDS:
                times.popleft()
            if len(times) >= limit:
                return f"too many connections from {address} ({limit} a minute); try again in a minute"
            times.append(now)
            if len(self.recent) > 10_000:  # forget quiet addresses
                for quiet in [a for a, t in self.recent.items() if not t or now - t[-1] > RATE_WINDOW_SECONDS]:
                    del self.recent[quiet]
        return ""

    def seat(self, connection: Connection) -> str:
        """A connection has logged in: why it is refused ('' when it takes one of the ``--max-sessions`` seats)."""
        self.logging_in.pop(connection, None)
        if len(self.players) >= self.options.max_sessions:
            return f"the Koma server is full ({self.options.max_sessions} players); try again later"
        self.players.add(connection)
        return ""

    def leave(self, connection: Connection) -> None:
        self.connections.discard(connection)
        self.logging_in.pop(connection, None)
        self.players.discard(connection)

    def game_refusal(self, player: str, address: str) -> tuple[str, str]:
        """Why one more game for ``player`` from ``address`` is refused, and the metrics' reason (('', '') to allow
        it).  What is capped is games, wherever they came from (SSH, or web, parked ones too): on the server, per
        player, and per address (an IPv6 /64)."""
        options = self.options
        if len(self.games) >= options.max_sessions:
            return f"the Koma server is full ({options.max_sessions} games); try again later", "full"
        cap = options.max_sessions_per_player
        if cap and sum(1 for game in self.games if game.player == player) >= cap:
            return f"you already have {cap} Koma game{'s' if cap != 1 else ''} open; close one and try again", "per_player"
        cap, group = options.max_games_per_address, address_group(address)
        if cap and sum(1 for game in self.games if game.address == group) >= cap:
            return f"too many games from your address ({cap} at once); close one and try again", "per_address"
        return "", ""

    async def start_game(self, terminal: int, env: dict[str, str]) -> tuple[asyncio.subprocess.Process | WarmGame, str]:
        """Start a game on the pty whose terminal end is ``terminal``: forked warm, else a fresh process.

        Returns the process and how it started (for the log); raises OSError when neither works.
        """
        options = self.options
        cwd = str(data_dir()) if data_dir().is_dir() else None
        if self.pool is not None and self.pool.ready:
            try:
                game = await self.pool.spawn(terminal, env, cwd, options.cpu_limit, options.memory_limit)
                self.warm_forks += 1
                return game, "warm"
            except OSError as problem:
                metrics.WARM_FALLBACKS.inc()
                log(f"the warm process could not start a game ({problem}); starting it cold", "warm_process_fallback")
        process = await asyncio.create_subprocess_exec(
            *options.game_command, stdin=terminal, stdout=terminal, stderr=terminal, env=env, start_new_session=True,
            close_fds=True, cwd=cwd, preexec_fn=lambda: child_setup(options.cpu_limit, options.memory_limit))
        return process, "cold"

    async def play(self, process: asyncssh.SSHServerProcess, player: str, name: str, connection: Connection) -> None:
        if connection.lost:  # gone before its session's handler ran: nothing to start (from here on, a game it
            return           # starts is in connection.games before the first await, where connection_lost finds it)
        if process.command == "link":
            log(f"{connection.peer} player {player}: asked for a browser link code", "link", client=connection.peer,
                player=player)
            SshTransport(process).write(link_message(self.links, player, name).encode())
            return SshTransport(process).close(0)
        await self.host(SshTransport(process), player, name, connection.peer, connection.games, connection.connected,
                        connection.address)

    async def host(self, transport: Transport, player: str, name: str, peer: str, games: set[Game],
                   connected: float = 0.0, address: str = "") -> None:
        """Run one game for ``player`` over ``transport`` (SSH or WebSocket: the same admission, limits and
        metrics); ``games`` is the connection's own set, which holds the game while it runs; ``connected``: when
        the connection was made (the home screen's time counts from it); ``address``: the client's."""
        if self.stopping and not self.draining:  # a connection made before the drain still gets its game
            transport.close(1)
            return
        address = address or peer.rsplit(":", 1)[0]
        refusal, reason = self.game_refusal(player, address)
        if refusal:
            lifecycle.refused(f"{peer} player {player}", reason, refusal, transport=transport.kind, player=player)
            transport.write(f"koma: {refusal}.\r\n".encode())
            transport.close(1)
            return
        game = Game(self, transport, player, name, peer, connected, address)
        self.games.add(game)
        games.add(game)
        try:
            await game.run()
        except Exception as problem:  # one game's trouble must never reach the server
            log(f"{peer} player {player}: {problem!r}", "game_error", client=peer, player=player)
            await game.stop(None, signal.SIGKILL)
            transport.close(1)
        finally:
            self.games.discard(game)
            games.discard(game)

    async def start(self) -> None:
        options = self.options
        use_format(options.log_format)
        if not options.open:
            if not options.authorized_keys:
                raise ValueError("give --authorized-keys FILE, or --open to admit anyone")
            try:
                self.authorized = asyncssh.read_authorized_keys(options.authorized_keys)
            except (OSError, ValueError, asyncssh.KeyImportError) as problem:
                raise ValueError(f"cannot read the authorized keys {options.authorized_keys}: {problem}") from None
        database = self.use_database()
        key_path = Path(options.host_key) if options.host_key else default_host_key_path()
        key = host_key(key_path, log)
        ssh_options: dict[str, Any] = dict(
            server_host_keys=[key], encoding=None, line_editor=False, agent_forwarding=False, x11_forwarding=False,
            allow_scp=False, login_timeout=options.login_grace_time, keepalive_interval=options.keepalive_interval,
            keepalive_count_max=options.keepalive_count_max)
        try:
            if options.proxy_protocol:
                self.listener = ProxyListener(lambda client, balancer: Connection(self, client, balancer), ssh_options,
                                              lifecycle.proxy_refused, trusted_by(options.trust_proxy))
                await self.listener.start(options.host, options.port)
            else:
                self.listener = await asyncssh.create_server(lambda: Connection(self), options.host, options.port,
                                                             **ssh_options)
        except OSError as problem:
            reason = problem.strerror or str(problem)
            if problem.errno == errno.EADDRINUSE:
                reason = f"port {options.port} is in use"
            raise ValueError(f"cannot listen on {options.host}:{options.port}: {reason}") from None
        self.port = self.listener.get_port() or options.port
        await self.start_games(database)
        mode = "open to any username" if options.open else f"keys in {options.authorized_keys}"
        if options.proxy_protocol:
            mode += f"; PROXY headers read from {', '.join(map(str, options.trust_proxy))} only"
        log(f"listening on {options.host}:{self.port} ({mode}; host key {key.get_fingerprint('sha256')}; "
            f"{options.max_sessions} sessions, {options.max_sessions_per_player or 'any'} per player, "
            f"{options.max_startups} logging in within {options.login_grace_time:g} s, "
            f"idle {options.idle_timeout:g} s, CPU {options.cpu_limit} s, memory {options.memory_limit} MiB per game)",
            "listening", port=self.port)

    def use_database(self) -> str | None:
        """Check the database the games will save in (ValueError if unusable); every game inherits its URL."""
        database = database_url(self.options.database)
        if database:
            log(f"games are saved in {check_database(database)}")
            os.environ[DATABASE_VARIABLE] = database
        return database

    async def start_games(self, database: str | None) -> None:
        """What every game needs, whichever transport brings its player: the admin listener (with
        ``--admin-port``: first, so the warm process inherits where the games write their metrics), the warm pool,
        the outbox drainer, and the watch (slow frames, the metrics files of ended games)."""
        if self.options.admin_port is not None:
            await self.start_admin()
        if not self.options.cold:
            become_subreaper()
            self.pool = WarmPool(base_environment(), lifecycle.warm_pool_log(self))
            self.pool.start()
        self.drainer = OutboxDrainer(database, log, events=log)
        self.drain_task = asyncio.create_task(self.drainer.keep_draining())
        self.watch_task = asyncio.create_task(lifecycle.watch(self))

    async def start_admin(self) -> None:
        """The admin listener (metrics, health); the games write their own metrics where the server reads them."""
        metrics.start_games_dir()
        metrics.watch(lambda: lifecycle.metric_state(self))
        self.admin = AdminListener(lambda: lifecycle.not_ready(self), self.options.admin_host, self.options.admin_port or 0)
        try:
            await self.admin.start()
        except OSError as problem:
            raise ValueError(f"cannot listen on {self.options.admin_host}:{self.options.admin_port} for the admin "
                             f"listener: {problem.strerror or problem}") from None
        log(f"admin listener at http://{self.options.admin_host}:{self.admin.port}/ (metrics, healthz, readyz)", "admin",
            port=self.admin.port)

    async def shutdown(self, why: str = "asked", drain: float = 0.0) -> None:
        """Stop accepting (not ready at once); with ``drain`` seconds, tell the players and let them leave
        (:func:`lifecycle.drain`); then stop every game left (each saves), tell every client, close."""
        if self.stopping:
            return
        self.stopping = True
        log(f"{why}: shutting down: {len(self.games)} game(s) to save", "shutting_down", games=len(self.games))
        if self.listener is not None:
            self.listener.close()
        message = "The Koma server is shutting down. Your game is saved: connect again later to resume.\r\n"
        if drain and self.games:
            await lifecycle.drain(self, drain)
            message = lifecycle.RESTARTING
        for game in list(self.games):
            game.end_reason = "drained" if drain else "shutdown"
        await asyncio.gather(*(game.stop(message) for game in list(self.games)), return_exceptions=True)
        deadline = time.monotonic() + STOP_GRACE_SECONDS + 3
        while self.games and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for task in (self.drain_task, self.watch_task):
            if task is not None:
                task.cancel()
        if self.drainer is not None:
            await self.drainer.last_pass()
        if self.pool is not None:
            await self.pool.close()
        for connection in list(self.connections):
            if connection.conn is not None:
                connection.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "the Koma server is shutting down")
        if self.listener is not None:
            try:
                await asyncio.wait_for(self.listener.wait_closed(), 3.0)
            except TimeoutError:
                pass
        if self.admin is not None:
            await self.admin.close()
        metrics.remove_games_dir()


PRIVATE_UMASK = 0o077  # what a server writes (keys, the database, the outbox, its games' files) is 0600 and 0700


async def serve(options: ServeOptions) -> int:
    os.umask(PRIVATE_UMASK)
    server = KomaServer(options)
    await server.start()
    await lifecycle.until_stopped(server)
    log("stopped", "stopped")
    return 0


def run(options: ServeOptions) -> int:
    """Run the server until it is stopped; returns the exit status."""
    try:
        return asyncio.run(serve(options))
    except ValueError as problem:
        print(f"koma: error: {problem}", file=sys.stderr)
        return 2
    except OSError as problem:  # not foreseen above: still one line, naming what failed
        print(f"koma: error: {problem.strerror or problem}{f': {problem.filename}' if problem.filename else ''}",
              file=sys.stderr)
        return 2


def serve_command(args) -> int:
    """``koma serve``: check the options (one-line errors), then run the server."""
    return run(options_from(args))
