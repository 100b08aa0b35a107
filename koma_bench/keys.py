"""``koma bench keys``: the CPU a key costs in ``koma play 15``, beside the floor, the least Textual does for a key.

Each program runs in a terminal of its own (a pseudo-terminal, 80x24) and gets :data:`KEYS` arrow keys, one every
:data:`GAP` seconds, back and forth, as a player types; its CPU (all its threads, from the kernel's accounting) over
that time, divided by the keys, is its figure.  A run counts only if the screen then shows every key played.
Each figure is also split: the main thread's CPU (the app's loop: handling the key and drawing the frame) and the
other threads' (the terminal's input and output threads, and Koma's storage threads: the journal, its fsync, the
database writer).  The floor has no storage; its main thread is the fair comparison for Koma's.

- ``koma``: ``koma play 15`` (animations off, as ``koma bench serve`` runs its games), once its distance is shown.
- ``floor``: :mod:`koma_bench.floor_app`, a bare Textual app that redraws one line per key.

The two alternate, :data:`ROUNDS` rounds, so that both see the same load on a shared machine; the figures are the
medians, and their ratio.  With ``koma bench --against REV`` REV's ``koma play 15`` takes its turn in each round too.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

from koma_bench.harness import running_checkout
from koma_bench.serve.scenarios import ScreenGrid
from tui.server.procfs import cpu_seconds
from tui.server.terminal import set_window_size

KEYS = 200
GAP = 0.1
ROUNDS = 3
READY_SECONDS = 180.0  # a first run may build tables and compile kernels
BOARD = "5 1 2 3/9 6 7 4/13 10 11 8/_ 14 15 12"
ARROWS = {"left": "\x1b[D", "right": "\x1b[C"}


def main_thread_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid``'s main thread alone (the one that runs a Textual app's loop), to the nanosecond: the
    first field of ``/proc/PID/task/PID/schedstat``.  NaN where the kernel keeps no schedstat."""
    try:
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return float("nan")


class Terminal:
    """A program on a pseudo-terminal of 80x24, its screen read back (:class:`koma_bench.serve.scenarios.ScreenGrid`)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str | None = None):
        self.grid = ScreenGrid()
        self.lock = threading.Lock()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            try:
                if cwd:
                    os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        set_window_size(self.fd, 24, 80)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.5)
                if not ready:
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.grid.feed(data.decode("utf-8", "replace"))

    def screen(self) -> str:
        with self.lock:
            return "\n".join(self.grid.lines())

    def wait_for(self, pattern: str, seconds: float) -> re.Match[str]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = re.search(pattern, self.screen())
            if found:
                return found
            time.sleep(0.05)
        raise RuntimeError(f"{pattern!r} never appeared on the screen")

    def key(self, name: str) -> None:
        os.write(self.fd, ARROWS.get(name, name).encode())

    def close(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    os.close(self.fd)
                    return
                time.sleep(0.05)
        os.close(self.fd)


class PerKey(NamedTuple):
    """CPU milliseconds per key: the whole process's, and its main thread's."""

    total: float
    main: float


def typed(terminal: Terminal, counter: str, keys: int = KEYS) -> PerKey:
    """CPU milliseconds per key over ``keys`` arrow keys, back and forth (the process's and its main thread's); the
    counter on the screen (``Moves`` or ``Keys``) must show every one."""
    first = "left"
    terminal.key(first)
    try:
        terminal.wait_for(counter + r" 1\b", 5)
    except RuntimeError:  # the board's blank is at its edge: the other way is the legal one
        first = "right"
        terminal.key(first)
        terminal.wait_for(counter + r" 1\b", 30)
    time.sleep(0.5)  # what the first move set going (the distance's search) is over before the count starts
    other = "right" if first == "left" else "left"
    before, main_before = cpu_seconds(terminal.pid, children=False), main_thread_cpu_seconds(terminal.pid)
    for number in range(keys):
        terminal.key(other if number % 2 == 0 else first)
        time.sleep(GAP)
    terminal.wait_for(rf"{counter} {keys + 1}\b", 30)
    spent = cpu_seconds(terminal.pid, children=False) - before
    main = main_thread_cpu_seconds(terminal.pid) - main_before
    return PerKey(1000 * spent / keys, 1000 * main / keys)


def koma_key_ms(checkout: str | None = None, keys: int = KEYS) -> PerKey:
    """``koma play 15`` (on ``checkout``'s code, if given) in a fresh data directory."""
    with tempfile.TemporaryDirectory(prefix="koma-keys-") as data:
        env = running_checkout(dict(os.environ, KOMA_DATA_DIR=data, TEXTUAL_ANIMATIONS="none", TERM="xterm-256color"),
                               checkout)
        terminal = Terminal([sys.executable, "-m", "tui.main", "play", "15", "--board", BOARD], env, cwd=checkout)
        try:
            terminal.wait_for("from solved", READY_SECONDS)
            return typed(terminal, "Moves", keys)
        finally:
            terminal.close()


def floor_key_ms(keys: int = KEYS) -> PerKey:
    env = dict(os.environ, TEXTUAL_ANIMATIONS="none", TERM="xterm-256color")
    terminal = Terminal([sys.executable, "-m", "koma_bench.floor_app"], env)
    try:
        terminal.wait_for("Keys 0", READY_SECONDS)
        return typed(terminal, "Keys", keys)
    finally:
        terminal.close()


def keys_beside_the_floor(against: str | None = None, rounds: int = ROUNDS, keys: int = KEYS) -> dict[str, Any]:
    """Medians of ``rounds`` alternating runs: Koma's CPU per key, the floor's, their ratio (and REV's, if given); each
    also for the main thread alone, and Koma's other threads (the whole figure less the main thread's)."""
    runs: dict[str, list[PerKey]] = {"koma": [], "floor": [], "against": []}
    for _ in range(rounds):
        runs["koma"].append(koma_key_ms(keys=keys))
        runs["floor"].append(floor_key_ms(keys))
        if against:
            runs["against"].append(koma_key_ms(against, keys))

    def median(name: str, part: str = "total") -> float:
        return statistics.median(getattr(run, part) for run in runs[name])

    koma, floor = median("koma"), median("floor")
    koma_main, floor_main = median("koma", "main"), median("floor", "main")
    figures: dict[str, Any] = {
        "koma_key_cpu_ms": round(koma, 2), "floor_key_cpu_ms": round(floor, 2), "koma/floor": round(koma / floor, 2),
        "koma_main_thread_ms": round(koma_main, 2), "floor_main_thread_ms": round(floor_main, 2),
        "koma/floor_main_thread": round(koma_main / floor_main, 2),
        "koma_other_threads_ms": round(statistics.median(run.total - run.main for run in runs["koma"]), 2)}
    if against:
        there = median("against")
        figures.update({"against_key_cpu_ms": round(there, 2), "koma/against": round(koma / there, 2),
                        "against_main_thread_ms": round(median("against", "main"), 2)})
    figures["runs_ms"] = {name: [round(run.total, 2) for run in values] for name, values in runs.items() if values}
    return figures
