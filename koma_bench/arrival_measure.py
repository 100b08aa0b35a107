"""The measuring half of ``koma bench serve``'s arrival by phase (:mod:`koma_bench.arrival`), run in a process of its
own by file (``runpy``), on this checkout's code or on another's first on the path.

``koma``: this process becomes a warm process as ``koma serve``'s is (:func:`tui.zygote.warm_up`, the real one) and
forks games through :meth:`tui.zygote.Zygote.request` (the real request, fork and ``become_game``), each on a pty of
80x24 of its own, for one player in a fresh data dir.  ``floor``: a process that has imported Textual and run a bare
app shaped like Koma's home screen once (:class:`koma_bench.floor_app.FloorArrivalApp`) forks the same way: the child
takes the pty as its terminal in a session of its own and runs the app.

Each game's main thread is timed by phase (``time.thread_time``, each moment counted in the innermost phase it is in):
what the fork and the terminal's set-up take before the app, the app's construction, the driver's start, the
stylesheet (reading and parsing), styling (applying it to the widgets), compose (building the widgets), layout,
render (the compositor's frames and the writes), and the rest (the event loop, messages, mounting).  The game's
other threads (the storage's, the driver's input and output) are one more phase.  Everything is read in the game at
the moment its output holds the home screen's text (the write that carries it), so the figures stop where the player's
screen shows the home screen.  It prints one JSON object: the phases' medians over the counted games, in ms.
"""

from __future__ import annotations

import collections
import functools
import json
import os
import re
import resource
import select
import signal
import socket
import statistics
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

GAMES = 10
WARM_GAMES = 2  # the first games make the database and its tables: not counted
GAME_SECONDS = 20.0
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[@-Z\\-_=>])")
BEFORE_THE_APP = "fork and terminal set-up"
OTHER = "event loop, messages, mounting"
OTHER_THREADS = "other threads (storage, input, output)"


class Phases:
    """The main thread's CPU by phase: each wrapped function's time goes to its phase, minus the wrapped functions
    it calls (they count in theirs)."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = collections.defaultdict(float)
        self.stack = [BEFORE_THE_APP]
        self.main = threading.get_ident()
        self.last = time.thread_time()

    def restart(self) -> None:
        """In a new game (the child of a fork): from zero, on this thread."""
        self.totals.clear()
        self.stack = [BEFORE_THE_APP]
        self.main = threading.get_ident()
        self.last = time.thread_time()

    def _switch(self) -> None:
        now = time.thread_time()
        self.totals[self.stack[-1]] += now - self.last
        self.last = now

    def wrap(self, owner: Any, name: str, phase: str) -> None:
        original = getattr(owner, name)
        if getattr(original, "timed_phase", None):
            return

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() != self.main:
                return original(*args, **kwargs)
            self._switch()
            self.stack.append(phase)
            try:
                return original(*args, **kwargs)
            finally:
                self._switch()
                self.stack.pop()

        timed.timed_phase = phase  # type: ignore[attr-defined]
        setattr(owner, name, timed)

    def snapshot(self) -> dict[str, float]:
        """The phases so far, in ms, with the other threads' CPU and the process's page faults and system time."""
        self._switch()
        main = sum(self.totals.values())
        process = time.process_time()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        figures = {phase: 1000 * seconds for phase, seconds in self.totals.items()}
        figures[OTHER_THREADS] = 1000 * max(0.0, process - main)
        figures["total"] = 1000 * process
        figures["system (kernel) part of the total"] = 1000 * usage.ru_stime
        figures["minor page faults"] = float(usage.ru_minflt)
        return figures


def time_textual(phases: Phases, app_class: type, driver_classes: Sequence[type]) -> None:
    """Wrap Textual's (and the app's) functions of each phase."""
    from textual import app as textual_app
    from textual import widget as textual_widget
    from textual._compositor import Compositor
    from textual.css.stylesheet import Stylesheet

    phases.wrap(app_class, "__init__", "app construction")
    for driver in driver_classes:
        phases.wrap(driver, "start_application_mode", "driver start")
    for name in ("read", "read_all", "add_source", "parse", "reparse", "_parse_rules"):
        phases.wrap(Stylesheet, name, "stylesheet (read, parse)")
    for name in ("apply", "update", "update_nodes"):
        phases.wrap(Stylesheet, name, "styling (applied to widgets)")
    for module in (textual_widget, textual_app):
        if hasattr(module, "compose"):
            phases.wrap(module, "compose", "compose (widgets built)")
    for name in ("reflow", "reflow_visible", "_arrange_root"):
        phases.wrap(Compositor, name, "layout")
    for name in ("render_update", "render_full_update", "render_partial_update"):
        phases.wrap(Compositor, name, "render")


class HomeReport:
    """Where a game writes its figures (a pipe's end, set before each fork) when its output holds ``home``."""

    def __init__(self, phases: Phases, home: str):
        self.phases = phases
        self.home = home
        self.fd = -1
        self.written: list[str] = []

    def watch(self, driver_classes: Sequence[Any]) -> None:
        """Wrap each driver's ``write``: its time counts as rendering; the write that completes ``home`` reports."""
        for driver in driver_classes:
            self.phases.wrap(driver, "write", "render")
            timed = driver.write

            def write(driver_self: Any, data: str, timed: Callable = timed) -> None:
                timed(driver_self, data)
                self.seen(data)

            driver.write = write

    def seen(self, data: str) -> None:
        if self.fd < 0:
            return
        self.written.append(data)
        if self.home in ESCAPES.sub("", "".join(self.written)):
            figures = self.phases.snapshot()
            os.write(self.fd, (json.dumps(figures) + "\n").encode())
            self.fd = -1


def open_terminal(columns: int = 80, rows: int = 24) -> tuple[int, int]:
    import fcntl
    import struct

    master, slave = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    os.set_blocking(master, False)
    return master, slave


def wait_for_figures(result: int, master: int) -> dict[str, float]:
    """Drain the game's screen until it reports its figures (a deadline of :data:`GAME_SECONDS`)."""
    deadline = time.monotonic() + GAME_SECONDS
    received, screen = b"", b""
    while time.monotonic() < deadline:
        readable, _, _ = select.select([result, master], [], [], 0.5)
        if master in readable:
            try:
                screen = (screen + os.read(master, 65536))[-2000:]
            except OSError:
                pass
        if result in readable:
            received += os.read(result, 65536)
            if b"\n" in received:
                return json.loads(received.split(b"\n")[0])
    raise RuntimeError(f"the game never drew its home screen: {ESCAPES.sub('', screen.decode(errors='replace'))[-300:]!r}")


def end_game(pid: int, master: int) -> None:
    """Quit the game as a player would (``q``), and wait for it; killed if it lingers."""
    try:
        os.write(master, b"q")
    except OSError:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.read(master, 65536)
        except OSError:
            pass
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def koma_games(count: int) -> list[dict[str, float]]:
    """Games forked by a warm process of this checkout's code, as ``koma serve``'s are."""
    from textual.drivers.linux_driver import LinuxDriver

    from tui import zygote
    from tui.patches.driver import QuietLinuxDriver
    from tui.server.environment import base_environment

    zygote.warm_up()
    phases = Phases()
    drivers: list[type] = [LinuxDriver, QuietLinuxDriver]
    time_textual(phases, zygote.KomaApp, drivers)
    phases.wrap(zygote, "launch", OTHER)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    warm = zygote.Zygote(theirs)
    report = HomeReport(phases, "8-puzzle")
    report.watch([QuietLinuxDriver])
    os.register_at_fork(after_in_child=phases.restart)
    figures = []
    for number in range(WARM_GAMES + count):
        read_end, write_end = os.pipe()
        report.fd = write_end
        master, slave = open_terminal()
        env = {**base_environment(), "TERM": "xterm-256color", "COLORTERM": "truecolor",
               "KOMA_PLAYER": f"arrival{number:03d}", "KOMA_PLAYER_NAME": f"arrival{number:03d}",
               "KOMA_TRANSPORT": "ssh"}
        request = zygote.encode({"id": number, "env": env, "cwd": None, "cpu_limit": 0, "memory_limit": 0})
        warm.request(request, [slave])
        os.close(write_end)
        pid = zygote.decode(ours.recv(65536))["pid"]
        try:
            measured = wait_for_figures(read_end, master)
        finally:
            os.close(read_end)
            end_game(pid, master)
            os.close(master)
        if number >= WARM_GAMES:
            figures.append(measured)
    return figures


def floor_games(count: int) -> list[dict[str, float]]:
    """Games of a bare Textual app forked the same way from a process that ran it once, headless."""
    import fcntl
    import gc
    import io

    from textual.drivers.linux_driver import LinuxDriver

    from koma_bench.floor_app import FloorArrivalApp

    async def to_home(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.exit()

    FloorArrivalApp().run(headless=True, size=(80, 24), auto_pilot=to_home)
    gc.collect()
    gc.freeze()
    phases = Phases()
    time_textual(phases, FloorArrivalApp, [LinuxDriver])
    report = HomeReport(phases, "8-puzzle")
    report.watch([LinuxDriver])
    phases.wrap(FloorArrivalApp, "run", OTHER)
    figures = []
    for number in range(WARM_GAMES + count):
        read_end, write_end = os.pipe()
        report.fd = write_end
        master, slave = open_terminal()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the game
            phases.restart()
            try:
                os.close(read_end)
                os.close(master)
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                os.close(slave)
                os.environ.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
                for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
                    raw = io.FileIO({"stdin": 0, "stdout": 1, "stderr": 2}[name], mode, closefd=False)
                    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
                    stream = io.TextIOWrapper(buffered, encoding="utf-8", line_buffering=mode == "w")
                    setattr(sys, name, stream)
                    setattr(sys, f"__{name}__", stream)
                FloorArrivalApp().run()
            finally:
                os._exit(0)
        os.close(slave)
        os.close(write_end)
        try:
            measured = wait_for_figures(read_end, master)
        finally:
            os.close(read_end)
            end_game(pid, master)
            os.close(master)
        if number >= WARM_GAMES:
            figures.append(measured)
    return figures


def medians(games: list[dict[str, float]]) -> dict[str, float]:
    names = sorted({name for game in games for name in game})
    return {name: round(statistics.median(game.get(name, 0.0) for game in games), 2) for name in names}


def measure(which: str, count: int = GAMES) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="koma-arrival-") as data:
        os.environ.update({"KOMA_DATA_DIR": data, "TEXTUAL_ANIMATIONS": "none"})
        games = floor_games(count) if which == "floor" else koma_games(count)
    return medians(games)


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else GAMES)))
