"""``koma bench open``: the CPU it costs to open the 15-puzzle from the home screen, beside the floor.

- ``koma``: the app, from the home screen, ``2`` (the 15-puzzle) and back with ``escape``, :data:`OPENINGS` times.
- ``floor``: a bare Textual app whose ``2`` opens a screen shaped like the play screen (:mod:`koma_bench.floor_app`: a 4x4
  grid of bordered tiles, a side panel of eight lines, a title line and a line of keys: about thirty widgets, as
  Koma's has) and ``escape`` closes it: what Textual itself costs to open such a screen.

Each runs headless (Textual's test driver: no terminal output) in a process of its own that runs
:mod:`koma_bench.open_measure` by its file, so that ``koma bench --against REV`` can run REV's app with it (REV's code first on
the path).  The figure is the main thread's CPU (``time.thread_time``: the solvers' threads, such as the distance's
search, are not in it) from the key to 0.3 s later, once the screen has settled; the first openings load the tables
and kernels and are not counted.  The idle app costs about 0.2 ms of that time (measured beside it).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROUNDS = 3
OPENINGS = 5  # counted per process (after the warm ones: see koma_bench.open_measure)
MEASURE = Path(__file__).resolve().with_name("open_measure.py")
PROCESS_SECONDS = 300.0  # a first run may build tables and compile kernels


def one_process(which: str, checkout: str | None = None, counted: int = OPENINGS) -> list[float]:
    """:func:`koma_bench.open_measure.measure` in a process of its own (on ``checkout``'s code, if given), in a fresh data
    directory: the main thread's CPU milliseconds of each counted opening."""
    from koma_bench.harness import running_checkout

    with tempfile.TemporaryDirectory(prefix="koma-open-") as data:
        env = running_checkout(dict(os.environ, KOMA_DATA_DIR=data), checkout)
        script = (f"import runpy, sys; sys.argv = ['open_measure', {which!r}, '{counted}']; "
                  f"runpy.run_path({str(MEASURE)!r}, run_name='__main__')")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=checkout,
                              timeout=PROCESS_SECONDS)
    if done.returncode != 0:
        raise RuntimeError(f"the {which} openings failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def open_beside_the_floor(against: str | None = None, rounds: int = ROUNDS, counted: int = OPENINGS) -> dict[str, Any]:
    """Medians over ``rounds`` alternating processes: Koma's main-thread CPU to open the 15-puzzle, the floor's, their
    ratio (and REV's Koma, if given)."""
    runs: dict[str, list[float]] = {"koma": [], "floor": [], "against": []}
    for _ in range(rounds):
        runs["koma"] += one_process("koma", None, counted)
        runs["floor"] += one_process("floor", None, counted)
        if against:
            runs["against"] += one_process("koma", against, counted)
    koma, floor = statistics.median(runs["koma"]), statistics.median(runs["floor"])
    figures: dict[str, Any] = {"koma_open_main_thread_ms": round(koma, 1), "floor_open_main_thread_ms": round(floor, 1),
                               "koma/floor": round(koma / floor, 2)}
    if against:
        there = statistics.median(runs["against"])
        figures.update({"against_open_main_thread_ms": round(there, 1), "koma/against": round(koma / there, 2)})
    figures["openings"] = {name: len(values) for name, values in runs.items() if values}
    return figures
