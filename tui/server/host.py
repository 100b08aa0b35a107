"""What ``koma serve`` and ``koma web`` share: the games, their seats and limits, the warm pool, the outbox drainer,
the admin listener, and a graceful shutdown.  A front end (:mod:`tui.server.ssh`, :mod:`tui.server.web`) brings
players over its transport and asks :class:`GameHost` to admit them and :meth:`GameHost.host` their games.
Never imports Textual or asyncssh; aiohttp only for the admin listener (``--admin-port``), when it starts.
"""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from solver.errors import KomaError
from tui.config.daily_secret import daily_secret
from tui.config.paths import data_dir, tables_dir, user_cache_root
from tui.server import lifecycle, metrics, sandbox
from tui.server.admission import StartQueue, default_at_once
from tui.server.environment import base_environment
from tui.server.links import LinkCodes
from tui.server.options import ServeOptions
from tui.server.private_files import why_not_written
from tui.server.proxy_protocol import address_group
from tui.server.served_game import STOP_GRACE_SECONDS, ServedGame, child_setup
from tui.server.server_log import log
from tui.server.transport import Transport
from tui.server.warm_pool import WarmGame, WarmPool, become_subreaper
from tui.storage.outbox_drain import OutboxDrainer
from tui.storage.store_choice import DATABASE_VARIABLE, check_database, check_game_access, database_url, is_postgres, password_files, sqlite_path

if TYPE_CHECKING:
    from tui.server.admin import AdminListener

RATE_WINDOW_SECONDS = 60.0
WARM_WAIT_SECONDS = 30.0  # the longest a game waits for a warming warm process before it starts cold
WARMING = "Koma is warming up; your game starts in a moment.\r\n"
PRIVATE_UMASK = 0o077  # what a server writes (keys, the database, the outbox, its games' files) is 0600 and 0700


def make_data_dir() -> None:
    """The data dir, made if missing (mode 0700); a one-line ValueError when it cannot be."""
    data = data_dir()
    try:
        data.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as problem:
        why = f"{data} is not a directory" if data.exists() else why_not_written(data, problem)
        raise ValueError(f"cannot use the data dir {data}: {why}") from None


def games_write(database: str | None) -> list[Path]:
    """The folders games make new files in: the data dir, a SQLite database's folder, the caches."""
    folders = [data_dir(), tables_dir().parent, user_cache_root()]
    if database and not is_postgres(database):
        folders.append(sqlite_path(database).parent)
    return folders


class GameHost:
    """The games of one server process, whichever front end brings their players: admission (the rate per address,
    the seats), the limits on games, starting each game (forked warm, else cold), and stopping them all."""

    def __init__(self, options: ServeOptions):
        self.options = options
        self.players: set[object] = set()  # the logged-in connections (SSH) or sockets (web): each takes a seat
        self.games: set[ServedGame] = set()
        self.recent: dict[str, collections.deque] = {}
        self.stopping = False
        self.port = options.port  # the SSH port players are told of (the SSH front end sets the real one)
        self.pool: WarmPool | None = None
        self.drainer: OutboxDrainer | None = None
        self.drain_task: asyncio.Task | None = None
        self.links: LinkCodes | None = None  # koma web --link-only in this process: its one-time codes
        self.draining = self.cut_drain = False
        self.warm_forks = self.warm_restarts = 0
        self.admin: AdminListener | None = None
        self.watch_task: asyncio.Task | None = None
        self.secrets: list[Path] = []  # files no game may touch (see keep_secret)
        self.start_queue = StartQueue(options.max_starting or default_at_once())  # games start a few at a time

    def keep_secret(self, path: Path) -> None:
        """``path`` (a key the server reads) is kept from every game: see :mod:`tui.server.sandbox`."""
        self.secrets.append(path)

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

    def seat(self, connection: object) -> str:
        """A connection has logged in: why it is refused ('' when it takes one of the ``--max-sessions`` seats)."""
        if len(self.players) >= self.options.max_sessions:
            return f"the Koma server is full ({self.options.max_sessions} players); try again later"
        self.players.add(connection)
        return ""

    def leave(self, connection: object) -> None:
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

    async def start_game(self, terminal: int, env: dict[str, str],
                         notice: Callable[[str], None] = lambda line: None) -> tuple[asyncio.subprocess.Process | WarmGame, str]:
        """Start a game on the pty whose terminal end is ``terminal``: forked warm, else a fresh process.  While the
        warm process is warming up, the game waits for it (``notice`` tells the player once, up to
        :data:`WARM_WAIT_SECONDS`) rather than costing a cold start's seconds of CPU.

        Returns the process and how it started (for the log); raises OSError when neither works.
        """
        options = self.options
        cwd = str(data_dir()) if data_dir().is_dir() else None
        if self.pool is not None and self.pool.warming:
            notice(WARMING)
            await self.pool.wait_until_ready(WARM_WAIT_SECONDS)
        if self.pool is not None and self.pool.ready:
            try:
                game = await self.pool.spawn(terminal, env, cwd, options.cpu_limit, options.memory_limit)
                self.warm_forks += 1
                return game, "warm"
            except OSError as problem:
                metrics.WARM_FALLBACKS.inc()
                log(f"the warm process could not start a game ({problem}); starting it cold", "warm_process_fallback")
        secrets = [str(path) for path in self.secrets]
        process = await asyncio.create_subprocess_exec(
            *options.game_command, stdin=terminal, stdout=terminal, stderr=terminal, env=env, start_new_session=True,
            close_fds=True, cwd=cwd, preexec_fn=lambda: child_setup(options.cpu_limit, options.memory_limit, secrets))
        return process, "cold"

    async def host(self, transport: Transport, player: str, name: str, peer: str, games: set[ServedGame],
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
        game = ServedGame(self, transport, player, name, peer, connected, address)
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
        """Start what every game needs (see :meth:`start_games`); a front end adds its listener."""
        await self.start_games(self.use_database())

    def use_database(self) -> str | None:
        """Check the database the games will save in (ValueError if unusable, or if the games could only log in
        with the password); every game inherits its URL, without a password (:func:`~tui.server.environment.base_environment`)."""
        make_data_dir()
        sandbox.not_dumpable()  # games may not read this process's /proc entries (environment, descriptors, memory)
        if (note := sandbox.scope_note()) is not None:
            log(note)
        try:
            daily_secret()  # made now (or the operator's checked), before the games look for it
        except KomaError as problem:
            raise ValueError(str(problem)) from None
        database = database_url(self.options.database)
        if database:
            where = check_database(database)
            check_game_access(database)
            log(f"games are saved in {where}")
            os.environ[DATABASE_VARIABLE] = database
        return database

    async def start_games(self, database: str | None) -> None:
        """What every game needs, whichever transport brings its player: the admin listener (with
        ``--admin-port``: first, so the warm process inherits where the games write their metrics), the warm pool,
        the outbox drainer, and the watch (slow frames, the metrics files of ended games)."""
        if self.options.admin_port is not None:
            await self.start_admin()
        self.secrets += password_files()
        refusal = sandbox.confine_check(self.secrets, games_write(database))
        if refusal:
            log(f"games are not sandboxed: {refusal}", "sandbox")
            self.secrets = []
        if not self.options.cold:
            become_subreaper()
            zygote_environment = {**base_environment(), sandbox.SECRETS_VARIABLE: os.pathsep.join(map(str, self.secrets))}
            self.pool = WarmPool(zygote_environment, lifecycle.warm_pool_log(self))
            self.pool.start()
        self.drainer = OutboxDrainer(database, log, events=log)
        self.drain_task = asyncio.create_task(self.drainer.keep_draining())
        self.watch_task = asyncio.create_task(lifecycle.watch(self))

    async def start_admin(self) -> None:
        """The admin listener (metrics, health); the games write their own metrics where the server reads them."""
        from tui.server.admin import AdminListener  # aiohttp: imported only by a server that has an admin listener

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
        self.stop_listening()
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
        await self.close_connections()
        if self.admin is not None:
            await self.admin.close()
        metrics.remove_games_dir()

    def stop_listening(self) -> None:
        """Take no new connections (a front end closes its listener)."""

    async def close_connections(self) -> None:
        """Tell every connection left that the server is going, and close it (a front end's own)."""
