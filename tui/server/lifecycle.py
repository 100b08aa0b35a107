"""``koma serve`` as an operated service: readiness, the SIGTERM drain, and the watches that explain trouble.

- :func:`not_ready` is what ``/readyz`` answers: draining, the warm process not ready, the store unreachable with
  no outbox to fall back on.
- :func:`drain` is a rolling restart's half on the replica: not ready at once and the listener closed (HAProxy sends
  newcomers to another replica), each player told in one line that their game is saved (SIGURG: the game saves and
  shows a notice, and plays on; one player every 0.3 s at most, so they do not all reconnect at once), then up to
  ``--drain-seconds`` for them to leave (a second SIGTERM or SIGINT ends it now); :func:`until_stopped` starts it
  (``koma serve`` and ``koma web`` alike).
- :func:`watch` runs once a second: a key a game has not answered for :data:`SLOW_FRAME_SECONDS` while it is busy
  (running, in I/O or stopped: an idle game had nothing to draw) is logged (``slow_frame``) and counted, and
  refusals left out of the log by its throttle are summed up, and the metrics files of ended games are folded
  into one (:func:`tui.server.metrics.compact`).
- :func:`metric_state` is what the metrics read at scrape time.
Never imports Textual.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from tui.server import metrics
from tui.server.procfs import process_state
from tui.server.server_log import Throttle, log

# The server (tui.server.host's GameHost) is typed loosely here: the host imports this module.
GameHost: TypeAlias = Any
ServedGame: TypeAlias = Any

SLOW_FRAME_SECONDS = 5.0
DRAIN_POLL_SECONDS = 0.1
TELL_SPACING_SECONDS = 0.3  # between two players told of a drain (at most; less when many must be told)
RESTARTING = "The Koma server is restarting. Your game is saved: connect again to carry on.\r\n"
REFUSALS_LOGGED = Throttle()
CONNECTS_LOGGED = Throttle(what="connection(s)")  # a bare TCP connect costs an attacker nothing: so must its log line
# escape sequences (CSI, OSC, charset, single-character) and white space: output made only of these draws nothing
DRAWS_NOTHING = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[@-Z\\-_=>])|\s")


def not_ready(server: GameHost) -> list[str]:
    """Why the server cannot take a player now (empty: it can)."""
    reasons = []
    if server.stopping:
        reasons.append("draining" if server.draining else "shutting down")
    if server.pool is not None and not server.pool.ready:
        reasons.append("the warm process is not ready")
    if server.drainer is not None:
        state = server.drainer.state()
        if state["database_trouble"] and not state["outbox_accepting"]:
            reasons.append("the database cannot be reached and the outbox cannot take moves")
    return reasons


def metric_state(server: GameHost) -> dict[str, Any]:
    """The states :class:`tui.server.metrics.ServerCollector` reports (called from the admin listener's thread)."""
    games = list(server.games)
    sessions = dict.fromkeys(((transport, phase) for transport in metrics.TRANSPORTS for phase in metrics.PHASES), 0)
    for game in games:
        sessions[game.transport.kind, "playing" if game.first_output.is_set() else "starting"] += 1
    pool = server.pool
    state = {"sessions": sessions, "ready": int(not not_ready(server)),
             "draining": int(server.draining), "warm_up": int(pool is not None and pool.ready),
             "warm_forks": server.warm_forks, "warm_restarts": server.warm_restarts,
             "database_trouble": 0, "outbox_ops": 0, "outbox_journals": 0,
             "game_pids": [game.child.pid for game in games if game.child is not None],
             "start_queue": server.start_queue.state()}
    if server.drainer is not None:
        state.update(server.drainer.state())
    return state


def refused(peer: str, reason: str, why: str, verb: str = "refused", transport: str = metrics.SSH, **fields: Any) -> None:
    """A refusal: counted always, logged unless refusals are flooding in (see :class:`Throttle`)."""
    metrics.REFUSALS.labels(transport, reason).inc()
    if REFUSALS_LOGGED.allow():
        log(f"{peer}: {verb} ({why})", verb, client=peer, reason=reason, **fields)


def connected(peer: str, via: str) -> None:
    """A new connection: logged unless connections are flooding in (then summed up, as refusals are)."""
    if CONNECTS_LOGGED.allow():
        log(f"{peer}: connected{via}", "connected", client=peer)


def proxy_refused(message: str) -> None:
    """The PROXY listener's log: its only line is a refusal (no valid header), counted and throttled as any."""
    metrics.REFUSALS.labels(metrics.SSH, "proxy").inc()
    if REFUSALS_LOGGED.allow():
        log(message, "refused", reason="proxy")


def warm_pool_log(server: GameHost):
    """The warm pool's log: its lines as ``warm_process`` events; a restart is counted."""
    def say(message: str) -> None:
        if message.startswith("the warm process is gone"):
            server.warm_restarts += 1
            log(message, "warm_process_restart")
        else:
            log(message, "warm_process")
    return say


def drew(game: ServedGame, data: bytes) -> None:
    """The game wrote ``data``: the answer to a key waiting for one, and (once) the first frame of the home screen,
    the first output that draws something (the terminal set-up sequences before it draw nothing)."""
    now = time.monotonic()
    if game.key_at is not None:
        metrics.KEY_LATENCY[game.transport.kind].observe(now - game.key_at)
        game.key_at = None
    if game.home_at is None and DRAWS_NOTHING.sub(b"", data):
        game.home_at = now
        metrics.HOME_LATENCY[game.transport.kind].observe(now - game.connected)


def how_it_ended(game: ServedGame, status: int | None) -> str:
    """For ``koma_games_ended``: why a game stopped."""
    if status is not None and status < 0:
        return {int(signal.SIGXCPU): "cpu_limit", int(signal.SIGKILL): "killed", int(signal.SIGSEGV): "crashed"}.get(
            -status, "killed")
    if game.end_reason:
        return game.end_reason
    return "quit" if status == 0 else "error"


def tell_restarting(game: ServedGame) -> bool:
    """Ask a game that has drawn to save and tell its player the server is restarting (True once asked)."""
    child = game.child
    if child is None or child.returncode is not None or not game.first_output.is_set():
        return False
    try:
        os.kill(child.pid, signal.SIGURG)
    except ProcessLookupError:
        return False
    return True


async def drain(server: GameHost, seconds: float) -> None:
    """Wait up to ``seconds`` for the players to leave, telling each (and each who arrives meanwhile) once."""
    server.draining = True
    told: set[ServedGame] = set()
    began = time.monotonic()
    deadline = began + seconds
    # One player told every `spacing` seconds, all within the first third of the drain: they reconnect one after
    # another, not as one herd that the other replicas would have to start all at once.
    spacing = min(TELL_SPACING_SECONDS, seconds / 3 / max(1, len(server.games)))
    log(f"draining: not ready; {len(server.games)} game(s) told to reconnect, up to {seconds:g} s for them to leave",
        "drain_started", games=len(server.games), seconds=seconds)
    while server.games and time.monotonic() < deadline and not server.cut_drain:
        for game in list(server.games):
            if len(told) >= 1 + (time.monotonic() - began) / spacing:
                break
            if game not in told and tell_restarting(game):
                told.add(game)
        await asyncio.sleep(min(DRAIN_POLL_SECONDS, spacing))
    log(f"drained in {time.monotonic() - began:.1f} s; {len(server.games)} game(s) left to stop", "drain_ended",
        seconds=round(time.monotonic() - began, 3), games=len(server.games))
    server.draining = False


async def until_stopped(server: GameHost, close: Callable[[], Awaitable[None]] | None = None) -> None:
    """Run until SIGTERM, SIGHUP or SIGINT, then shut ``server`` down and ``close()`` what else the command runs
    (``koma web``'s HTTP side).  SIGTERM and SIGHUP (the operator's terminal closed, or a reload asked) drain for
    ``--drain-seconds``, so nobody is cut off; SIGINT (ctrl+c at a terminal) stops at once; a second signal ends
    a drain now."""
    loop = asyncio.get_running_loop()
    first: list[signal.Signals] = []
    asked = asyncio.Event()

    def stop(number: signal.Signals) -> None:
        server.cut_drain = bool(first)
        if not first:
            first.append(number)
            asked.set()

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(number, stop, number)
    await asked.wait()
    await server.shutdown(first[0].name, server.options.drain_seconds if first[0] != signal.SIGINT else 0.0)
    if close is not None:
        await close()


async def watch(server: GameHost) -> None:
    """Once a second: slow frames, and the refusal log's summary."""
    while True:
        await asyncio.sleep(1.0)
        now = time.monotonic()
        for game in list(server.games):
            asked = game.key_at
            if asked is not None and now - asked > SLOW_FRAME_SECONDS and game.slow_logged != asked:
                pid = game.child.pid if game.child is not None else 0
                if process_state(pid) in ("S", "I", ""):  # idle: the key simply changed nothing on the screen
                    game.key_at = None
                    continue
                game.slow_logged = asked
                metrics.SLOW_FRAMES.labels(game.transport.kind).inc()
                log(f"{game.peer} player {game.player}: slow frame: the game (pid {pid}) has drawn nothing "
                    f"{now - asked:.0f} s after a key", "slow_frame", client=game.peer, player=game.player, pid=pid,
                    seconds=round(now - asked, 3))
        REFUSALS_LOGGED.flush(now)
        CONNECTS_LOGGED.flush(now)
        if metrics.ENDED:
            ended, metrics.ENDED[:] = list(metrics.ENDED), []
            try:
                await asyncio.to_thread(metrics.compact, ended)
            except (OSError, ValueError) as problem:  # metrics must never take the server down
                log(f"metrics: could not compact the ended games' files ({problem})", "metrics_error")
