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
import errno
import os
import sys
import time
from pathlib import Path
from typing import Any

from tui.patches.asyncssh_import import asyncssh
from tui.patches.ssh_environment import session_channel
from tui.server import lifecycle
from tui.server.environment import safe_username
from tui.server.host import PRIVATE_UMASK, GameHost
from tui.server.links import link_message
from tui.server.options import ServeOptions
from tui.server.proxy_protocol import Address, trusted_by
from tui.server.served_game import ServedGame
from tui.server.server_log import log, use_format
from tui.server.ssh.channels import CLIENT_VARIABLES, GameProcess
from tui.server.ssh.host_key import default_host_key_path, host_key
from tui.server.ssh.listener import ProxyListener
from tui.server.ssh.transport import SshTransport
from tui.storage.backend import StoreError
from tui.storage.store_choice import connect_store

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
        self.games: set[ServedGame] = set()
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


class KomaServer(GameHost):
    """``koma serve``: the SSH listener over the :class:`GameHost`: connections not logged in yet (``--max-startups``),
    authentication, and each session's game."""

    def __init__(self, options: ServeOptions):
        super().__init__(options)
        self.connections: set[Connection] = set()  # every open connection
        self.logging_in: dict[Connection, None] = {}  # those not logged in yet, the longest waiting first
        self.authorized: asyncssh.SSHAuthorizedKeys | None = None
        self.listener: asyncssh.SSHAcceptor | ProxyListener | None = None

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

    def seat(self, connection: object) -> str:
        if isinstance(connection, Connection):
            self.logging_in.pop(connection, None)
        return super().seat(connection)

    def leave(self, connection: object) -> None:
        super().leave(connection)
        if isinstance(connection, Connection):
            self.connections.discard(connection)
            self.logging_in.pop(connection, None)

    async def play(self, process: asyncssh.SSHServerProcess, player: str, name: str, connection: Connection) -> None:
        if connection.lost:  # gone before its session's handler ran: nothing to start (from here on, a game it
            return           # starts is in connection.games before the first await, where connection_lost finds it)
        if not self.options.open:
            refusal = await asyncio.to_thread(name_refusal, player, name)
            if refusal:
                lifecycle.refused(f"{connection.peer} player {player}", "name_taken", refusal, player=player)
                SshTransport(process).write(f"koma: {refusal}\r\n".encode())
                return SshTransport(process).close(1)
            if connection.lost:
                return
        if process.command == "link":
            log(f"{connection.peer} player {player}: asked for a browser link code", "link", client=connection.peer,
                player=player)
            SshTransport(process).write(link_message(self.links, player, name).encode())
            return SshTransport(process).close(0)
        await self.host(SshTransport(process), player, name, connection.peer, connection.games, connection.connected,
                        connection.address)

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
        key_path = Path(options.host_key) if options.host_key else default_host_key_path(log)
        key = host_key(key_path, log)
        self.keep_secret(key_path)
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

    def stop_listening(self) -> None:
        if self.listener is not None:
            self.listener.close()

    async def close_connections(self) -> None:
        for connection in list(self.connections):
            if connection.conn is not None:
                connection.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "the Koma server is shutting down")
        if self.listener is not None:
            try:
                await asyncio.wait_for(self.listener.wait_closed(), 3.0)
            except TimeoutError:
                pass


def name_refusal(player: str, name: str) -> str:
    """Why ``player`` (a key) may not play as ``name`` ('' when they may): under ``--authorized-keys`` the first key
    to use a name owns it (any case).  When the database cannot answer now, the key plays: its name is claimed
    at its next login, and a game writes the name only as the players' row of its own key."""
    try:
        store = connect_store(None, player, name)
    except StoreError as problem:
        log(f"player {player}: the name {name!r} could not be checked ({problem}); let in", "name_unchecked", player=player)
        return ""
    try:
        owner = store.claim_name()
    except StoreError as problem:
        log(f"player {player}: the name {name!r} could not be checked ({problem}); let in", "name_unchecked", player=player)
        return ""
    finally:
        store.close()
    if owner == player:
        return ""
    return f"the name {name} belongs to another key here; log in with another name (ssh OTHERNAME@host)"


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
