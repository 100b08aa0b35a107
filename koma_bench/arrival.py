"""``koma bench serve``'s arrival by phase: where a forked game's CPU goes from the fork to its home screen, beside a
bare Textual app forked the same way (the floor), and REV's game with ``--against REV``.

Each side runs :mod:`koma_bench.arrival_measure` by its file in a process of its own (REV's code first on the path for
``--against``), which forks :data:`koma_bench.arrival_measure.GAMES` games from a warm process and prints the medians
of their phases in ms (the main thread's CPU by phase, the other threads', the total, its system part and the minor
page faults).  This module imports neither Textual nor the app.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

MEASURE = Path(__file__).resolve().with_name("arrival_measure.py")
PROCESS_SECONDS = 600.0  # a first run may compile kernels


def phases(which: str, checkout: str | None = None, games: int = 10) -> dict[str, float]:
    """The medians of ``games`` arrivals of ``which`` (``koma`` or ``floor``), on ``checkout``'s code if given."""
    from koma_bench.harness import running_checkout

    env = running_checkout(dict(os.environ), checkout)
    script = (f"import runpy, sys; sys.argv = ['arrival_measure', {which!r}, '{games}']; "
              f"runpy.run_path({str(MEASURE)!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=checkout,
                          timeout=PROCESS_SECONDS)
    if done.returncode != 0:
        raise RuntimeError(f"the {which} arrivals failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def arrival_beside_the_floor(against: str | None = None, games: int = 10) -> dict[str, Any]:
    """Koma's arrival by phase (``koma ...``), the floor's (``floor ...``), REV's (``against ...``), in ms."""
    sides = {"koma": phases("koma", None, games), "floor": phases("floor", None, games)}
    if against:
        sides["against"] = phases("koma", against, games)
    figures: dict[str, Any] = {"games_each": games}
    for side, measured in sides.items():
        for phase, value in measured.items():
            figures[f"{side} {phase}"] = value
    figures["koma/floor total"] = round(sides["koma"]["total"] / sides["floor"]["total"], 2)
    if against:
        figures["koma/against total"] = round(sides["koma"]["total"] / sides["against"]["total"], 2)
    return figures
