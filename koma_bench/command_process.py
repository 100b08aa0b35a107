"""``koma bench cli``: the time and CPU of one ``koma`` command in a process of its own.

Each run starts ``python -m tui.main solve 15 BOARD`` afresh (the tables and kernels already made by a first run
that is not counted) and takes its wall time and its CPU (user and system, from the kernel's accounting of the
child). With ``koma bench --against REV`` the same command runs on REV's checkout too, the two alternating run by
run, so that both see the same load on a shared machine.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from koma_bench.harness import running_checkout, side_by_side

SOLVE_15 = ("solve", "15", "5 1 2 3/9 6 7 4/13 10 11 8/_ 14 15 12")  # 9 moves: the search itself takes microseconds
RUNS = 9


def one_process(arguments: tuple[str, ...], checkout: str | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds of ``koma ARGUMENTS`` run once (on ``checkout``'s code, if given)."""
    env = running_checkout(dict(os.environ), checkout)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tui.main", *arguments], capture_output=True, text=True, env=env,
                          cwd=checkout, timeout=600)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"koma {' '.join(arguments)} failed: {done.stderr.strip()[-300:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def figures(times: list[tuple[float, float]]) -> dict[str, Any]:
    walls, cpus = [wall for wall, _ in times], [cpu for _, cpu in times]
    return {"process_s": round(statistics.median(walls), 3), "process_cpu_s": round(statistics.median(cpus), 3),
            "fastest_s": round(min(walls), 3)}


def solve_processes(against: str | None = None, runs: int = RUNS) -> dict[str, Any]:
    """Medians of ``runs`` processes of ``koma solve 15`` (and of REV's, alternating, if ``against`` is a checkout)."""
    sides = [None, against] if against else [None]
    for checkout in sides:
        one_process(SOLVE_15, checkout)  # builds or loads the tables and kernels: not counted
    times: dict[str | None, list[tuple[float, float]]] = {checkout: [] for checkout in sides}
    for _ in range(runs):
        for checkout in sides:
            times[checkout].append(one_process(SOLVE_15, checkout))
    here = figures(times[None])
    return side_by_side(here, figures(times[against])) if against else here
