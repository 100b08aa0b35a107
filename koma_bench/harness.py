"""How ``koma bench`` measures a case: the first call's time and the median of warm runs; and the other checkout of
``koma bench --against REV``.

A case is a zero-argument callable returning a dict of figures (nodes, lengths, ...) that are
printed beside the times; the cases themselves are literal tables (:mod:`koma_bench.cases`).  Groups let ``koma bench 15``
run one puzzle's figures; ``quick=False`` cases run only with ``--full``; ``on_request`` cases (``koma bench serve``)
run only when their group is named.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.errors import KomaError

WARM_RUNS = 5
AGAINST_VARIABLE = "KOMA_BENCH_AGAINST"  # the checkout that ``--against`` cases also run on


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    run: Callable[[], dict[str, Any] | None]
    target: str = ""
    quick: bool = True
    runs: int = WARM_RUNS
    on_request: bool = False  # long: runs only when its group is named


@dataclass
class Result:
    name: str
    group: str
    first_seconds: float
    median_seconds: float
    runs: int
    target: str
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "group": self.group, "first_seconds": self.first_seconds,
                "median_seconds": self.median_seconds, "warm_runs": self.runs, "target": self.target,
                **self.figures}


def run_case(case: Case) -> Result:
    """One cold call (includes JIT loading or compiling), then ``case.runs`` warm calls."""
    began = time.perf_counter()
    figures = case.run() or {}
    first = time.perf_counter() - began
    times = []
    for _ in range(case.runs):
        began = time.perf_counter()
        figures = case.run() or figures
        times.append(time.perf_counter() - began)
    import statistics

    median = statistics.median(times) if times else first
    return Result(case.name, case.group, first, median, case.runs, case.target, dict(figures))


def format_seconds(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def running_checkout(env: dict[str, str], checkout: str | None) -> dict[str, str]:
    """``env`` with ``checkout``'s packages first on the path, so that a process started with it runs that checkout's
    code (a process it forks too); ``env`` unchanged without a checkout."""
    if not checkout:
        return env
    return {**env, "PYTHONPATH": os.pathsep.join([checkout, *filter(None, [env.get("PYTHONPATH")])])}


@contextlib.contextmanager
def checkout_of(revision: str) -> Iterator[Path]:
    """A checkout of ``revision``: a directory holding ``tui`` and ``solver`` as it is, or a git revision of this
    repository checked out into a temporary worktree for as long as the ``with`` lasts."""
    given = Path(revision).expanduser()
    if (given / "tui").is_dir() and (given / "solver").is_dir():
        yield given.resolve()
        return
    repository = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="koma-bench-against-")) / "checkout"
    added = subprocess.run(["git", "-C", str(repository), "worktree", "add", "--detach", str(folder), revision],
                           capture_output=True, text=True)
    if added.returncode != 0:
        raise KomaError(f"cannot check out {revision!r}: {(added.stderr or added.stdout).strip().splitlines()[-1:]}")
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(repository), "worktree", "remove", "--force", str(folder)], capture_output=True)
        with contextlib.suppress(OSError):
            folder.parent.rmdir()


def beside_the_other(here: dict[str, Any], run_there: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """:func:`side_by_side` with the figures ``run_there`` gives; if the scenario fails on the other checkout (its
    code may lack what the scenario drives, such as a screen), ``here`` with one line saying why, not an abort."""
    try:
        there = run_there()
    except Exception as error:
        text = str(error).strip()
        return {**here, "against": f"not run there: {text.splitlines()[0] if text else type(error).__name__}"}
    return side_by_side(here, there)


def side_by_side(here: dict[str, Any], there: dict[str, Any]) -> dict[str, Any]:
    """This checkout's figures, the other's (``name@against``) and their ratios (``name/against``), in one run."""
    figures: dict[str, Any] = {}
    for name, value in here.items():
        figures[name] = value
        other = there.get(name)
        if isinstance(value, (int, float)) and isinstance(other, (int, float)) and not isinstance(value, bool):
            figures[f"{name}@against"] = other
            if other:
                figures[f"{name}/against"] = round(value / other, 3)
    return figures
