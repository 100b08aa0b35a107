"""The warm process of ``koma serve`` (a "zygote"): warmed once, it forks one game per connection.

``python -m tui.zygote FD`` imports Textual and the app, loads the solvers' kernels from numba's
cache and maps their tables (see :func:`solver.solving.warm`), runs one game headless to its home
screen so that what every game builds alike is built once (:func:`rehearse`), freezes the garbage
collector's view of all that (``gc.freeze()``: the pages stay shared copy-on-write), then serves requests from
``koma serve`` on the Unix socket ``FD`` (the protocol is in :mod:`tui.server.warm_pool`).  It starts
no thread and no event loop, so forking is safe.  For each request it forks a child that takes the
given pty as its controlling terminal in a session of its own (``setsid``, ``TIOCSCTTY``, ``dup2`` onto
0/1/2), takes the player's environment, working directory and limits, reseeds ``random``, and runs
the app as ``koma`` would, with the command line parsed here once.  A game imports no module of its
own (tests/tui/test_warm_process.py): each import would be kept by every game, and its new names
could make the interned-strings table, shared until then, grow into a private copy (1.9 MB).
It reaps its children and reports their exit statuses.  Compare ``multiprocessing``'s forkserver
(``set_forkserver_preload``), gunicorn's ``preload_app`` and Android's zygote.
"""

from __future__ import annotations

import fcntl
import gc
import io
import os
import random
import select
import signal
import socket
import sys
import termios
import threading
import time
import traceback
from concurrent.futures import thread as preloaded_thread_pool  # noqa: F401 - Textual's thread workers need it

from rich.emoji import Emoji

from solver.engines.jit_cache import load_compiler
from solver.goat import search as preloaded_goat_search  # noqa: F401 - the algorithm lab's Goat methods
from solver.tools.warm import PARTS as BESIDE_PARTS
from solver.tools.warm import command as beside_command
from solver.tools.warm import needed as beside_needed
from solver.tools.warm import warm_all
from tui import game_metrics
from tui.app import SERVED_FAILURES, KomaApp
from tui.cli import parse_args
from tui.launch import launch
from tui.play import new_game as preloaded_new_game  # noqa: F401 - the screens imported when first opened
from tui.play import parity_proof as preloaded_proof  # noqa: F401
from tui.screens import algorithm_lab as preloaded_algorithm_lab  # noqa: F401
from tui.screens import gallery as preloaded_gallery  # noqa: F401
from tui.screens import help as preloaded_help  # noqa: F401
from tui.screens import leaderboard as preloaded_leaderboard  # noqa: F401
from tui.screens import loop_demo as preloaded_loop_demo  # noqa: F401
from tui.screens import parity_lab as preloaded_parity_lab  # noqa: F401
from tui.screens import stats as preloaded_stats  # noqa: F401
from tui.screens import watch as preloaded_watch  # noqa: F401
from tui.screens.home import HomeScreen
from tui.server.log_lines import escape_controls
from tui.server.sandbox import confine, confine_game, not_dumpable, secrets_from_environment
from tui.server.server_log import SERVER_LOG
from tui.server.server_log import log as log_event
from tui.server.warm_pool import MESSAGE_BYTES, apply_limits, decode, encode
from tui.storage.store import MEMORY, Store

REHEARSAL_THREADS_SECONDS = 30.0  # the longest the rehearsal waits for its app's workers to end


def log(message: str) -> None:
    log_event(f"warm process: {message}", "warm_process")


def warm_up(kernels: bool = True) -> float:
    """Load everything a game would load on its own (``kernels``: the puzzles' kernels and tables too, else they are
    being compiled beside: :func:`compile_beside`); the CPU seconds this process has spent, imports included."""
    if kernels:
        warm_all(lambda name, problem: log(f"could not warm the {name} puzzle ({problem})"))
    try:
        load_compiler()  # a game that compiles a kernel (one not in the cache) then imports nothing of its own
    except Exception as problem:  # such a game then loads numba's compiler itself, as it would alone
        log(f"could not load numba's compiler ({problem})")
    Emoji.replace(":koma:")  # loads Rich's emoji table, which the leaderboard's markup needs
    game_metrics.instruments()  # the games' metrics (when the server asked for them), shared by every game
    try:
        rehearse()
    except Exception as problem:  # each game then parses its stylesheet itself, as it would alone
        log(f"could not rehearse a game ({problem})")
    if threading.active_count() > 1:
        log(f"{threading.active_count() - 1} thread(s) still running after the warm-up")
    gc.collect()
    gc.freeze()
    return time.process_time()


def compile_beside() -> dict[int, str]:
    """When the puzzles' kernels are not in the cache yet (a fresh install, a new solver), start the processes of
    ``python -m solver.tools.warm`` to compile them (8 CPU-seconds or more, on two cores), so that this process is ready
    for games in a second or two instead: their parts by pid (none when the kernels are there, or no cache is shared:
    they are loaded here).  They stop if this process goes.  Forked, not :class:`subprocess.Popen`:
    :meth:`Zygote.reap` waits for them with the games."""
    if not beside_needed():
        return {}
    started = {}
    for part in BESIDE_PARTS:
        argv = beside_command(os.getpid(), part)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the forked child
            try:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        started[pid] = part
    log(f"the kernels are not in the cache yet: processes {', '.join(map(str, started))} compile them; "
        "games start meanwhile")
    return started


def rehearse() -> None:
    """Run one game headless to its home screen, with a store in memory, and quit.  What every game would
    build the same way is then built once, here, and shared: above all the parsed stylesheet
    (:class:`tui.patches.stylesheet.SharedStylesheet`).  The run leaves no thread and no event loop behind."""
    app = KomaApp(store=Store(MEMORY))
    earlier = set(threading.enumerate())  # threads the caller runs (not the app's): never waited for

    async def to_home(pilot) -> None:
        for _ in range(1000):  # at most 10 s
            if isinstance(pilot.app.screen, HomeScreen):
                break
            await pilot.pause(0.01)
        await pilot.pause()
        pilot.app.exit()

    app.run(headless=True, size=(80, 24), auto_pilot=to_home)
    # The app's loop no longer waits for its thread workers (tui.workers.QuitNowExecutor); a fork must not find one
    # running, so wait here for them to end (their jobs were stopped when the app quit).
    deadline = time.monotonic() + REHEARSAL_THREADS_SECONDS
    for thread in set(threading.enumerate()) - earlier:
        thread.join(max(0.0, deadline - time.monotonic()))


class Zygote:
    """The request loop: fork a game per request, reap the games, report to the server."""

    def __init__(self, channel: socket.socket, beside: dict[int, str] | None = None):
        self.channel = channel
        self.beside = dict(beside or {})  # the processes compiling the kernels beside (compile_beside): their parts
        # a game's command line is always plain ``koma``: parsed once, here, without the installed packages' commands
        self.arguments = parse_args([], registered=())
        self.wakeup_read, self.wakeup_write = os.pipe()
        os.set_blocking(self.wakeup_read, False)
        os.set_blocking(self.wakeup_write, False)

    def send(self, message: dict) -> None:
        try:
            self.channel.send(encode(message))
        except OSError:
            pass  # the server is gone; the loop notices

    def serve(self) -> None:
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wakeup_write)
        self.reap()  # a child that ended before the handler was there (the compiler beside, on a quick box)
        channel = self.channel.fileno()
        while True:
            readable, _, _ = select.select([channel, self.wakeup_read], [], [])
            if self.wakeup_read in readable:
                try:
                    while os.read(self.wakeup_read, 512):
                        pass
                except BlockingIOError:
                    pass
                self.reap()
            if channel in readable:
                try:
                    data, fds, _, _ = socket.recv_fds(self.channel, MESSAGE_BYTES, 1)
                except OSError:
                    return
                if not data:
                    return  # the server closed its end: stop (the games go on in their sessions)
                self.request(data, fds)

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            part = self.beside.pop(pid, None)
            if part == "search":  # the one that ends last: it warmed every puzzle, with what the other made
                self.load_compiled_kernels(os.waitstatus_to_exitcode(status))
            elif part is not None and os.waitstatus_to_exitcode(status) != 0:
                log(f"the compiler beside ({part}) stopped with status {os.waitstatus_to_exitcode(status)}")
            if part is not None:
                continue
            self.send({"exited": pid, "status": os.waitstatus_to_exitcode(status)})

    def load_compiled_kernels(self, code: int) -> None:
        """The compiler beside is done: load the kernels (and tables) here, so every game forked from now on shares
        them.  If it failed, nothing is compiled here (it would hold up every new game): games compile what they need
        under the kernels' locks, as a game alone would, and the next start tries again."""
        if code != 0:
            log(f"the compiler beside stopped with status {code}; games compile the kernels they need themselves")
            return
        began = time.process_time()
        warm_all(lambda name, problem: log(f"could not warm the {name} puzzle ({problem})"))
        gc.collect()
        gc.freeze()
        log(f"the compiler beside compiled the kernels; loaded here in {time.process_time() - began:.2f} s of CPU")

    def request(self, data: bytes, fds: list[int]) -> None:
        request: dict = {}
        try:
            request = decode(data)
            if len(fds) != 1:
                raise ValueError("a request carries exactly one terminal")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
        except (OSError, ValueError) as problem:
            for fd in fds:
                os.close(fd)
            self.send({"id": request.get("id"), "error": str(problem)})
            return
        if pid == 0:
            self.become_game(request, fds[0])  # never returns
        os.close(fds[0])
        self.send({"id": request["id"], "pid": pid})

    def become_game(self, request: dict, terminal: int) -> None:  # pragma: no cover - runs in the forked child
        code = 1
        server_log = -1
        SERVED_FAILURES.clear()  # the warm process's own, if any, are not this game's
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in (self.channel.fileno(), self.wakeup_read, self.wakeup_write):
                os.close(fd)
            server_log = os.dup(2)  # the server's log, where a failure is told in full (not inherited by exec)
            apart = confine_game()  # a domain of its own: this game reaches neither the warm process nor another game
            if apart:
                tell_server_log([apart], "is not kept apart from the other games", server_log)
            os.setsid()
            fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(terminal, fd)
            if terminal > 2:
                os.close(terminal)
            apply_limits(int(request.get("cpu_limit") or 0), int(request.get("memory_limit") or 0))
            os.environ.clear()
            os.environ.update({str(k): str(v) for k, v in dict(request.get("env") or {}).items()})
            reread_per_game_settings()
            if request.get("cwd"):
                os.chdir(request["cwd"])
            random.seed()
            sys.argv = ["koma"]
            reopen_standard_streams()
            code = launch(self.arguments)
            if SERVED_FAILURES:  # the app ended on an error: the player read one line, the log gets the traceback
                tell_server_log("".join(SERVED_FAILURES).splitlines(), "the app stopped on an internal error",
                                server_log)
        except SystemExit as leaving:
            code = leaving.code if isinstance(leaving.code, int) else 1
        except BaseException as problem:
            report_failure(problem, server_log)
        os._exit(code)


def report_failure(problem: BaseException, server_log: int) -> None:  # pragma: no cover - runs in the forked child
    """A game that fails: the player reads one line (never a traceback: it names the server's files), and the
    server's log gets the traceback, a log line per line of it, escaped."""
    try:
        os.write(2, f"\r\nkoma: the game stopped on an internal error ({type(problem).__name__}); "
                    "connect again to play.\r\n".encode())
    except OSError:
        pass
    tell_server_log("".join(traceback.format_exception(problem)).splitlines(),
                    f"stopped on an internal error ({type(problem).__name__})", server_log)


def tell_server_log(lines: list[str], what: str, server_log: int) -> None:  # pragma: no cover - runs in a game
    """A game's failure in the server's log (the descriptor ``server_log``; nothing if negative): a log line per line
    of its traceback, escaped, or one JSON object saying ``what`` with the lines in one field."""
    if server_log < 0:
        return
    prefix = f"{SERVER_LOG.prefix}warm process: game {os.getpid()}: "
    report = "".join(f"{prefix}{escape_controls(line)}\n" for line in lines)
    if SERVER_LOG.form == "json":  # one object: the traceback in one field
        report = SERVER_LOG.line(f"game {os.getpid()} {what}", "game_failure", pid=os.getpid(), traceback=lines) + "\n"
    try:
        os.write(server_log, report.encode(errors="replace"))
    except OSError:
        pass


def reread_per_game_settings() -> None:  # pragma: no cover - runs in the forked child
    """Textual read its settings from the warm process's environment when it was imported; the one that
    differs from game to game is the colour system (truecolor or 256, from the client's COLORTERM)."""
    from textual import constants

    constants.COLOR_SYSTEM = constants.get_environ("TEXTUAL_COLOR_SYSTEM", "auto")  # type: ignore[misc]


def reopen_standard_streams() -> None:  # pragma: no cover - runs in the forked child
    """Python's std streams were made for the zygote's files: make them anew for the terminal, as at start-up."""
    streams = {
        "stdin": io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8",
                                  errors="surrogateescape"),
        "stdout": io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8",
                                   errors="surrogateescape", line_buffering=True),
        "stderr": io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8",
                                   errors="backslashreplace", line_buffering=True),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m tui.zygote FD (started by koma serve)", file=sys.stderr)
        return 2
    not_dumpable()  # an exec made this process dumpable again: its games (forked) stay as it is
    channel = socket.socket(fileno=int(argv[0]))
    beside = compile_beside()
    seconds = warm_up(kernels=not beside)
    refusal = confine(secrets_from_environment(os.environ))  # before the first fork: every game inherits it
    if refusal:
        log(f"games are not sandboxed: {refusal}")
    zygote = Zygote(channel, beside)
    zygote.send({"ready": os.getpid(), "seconds": seconds})
    zygote.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
