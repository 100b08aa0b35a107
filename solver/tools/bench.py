"""``koma bench``: first-call time and the median of warm runs for every benchmark case.

A case is a zero-argument callable returning a dict of figures (nodes, lengths, ...) that are
printed beside the times; the cases themselves are one literal table in
:mod:`solver.tools.bench_cases`.  Groups let ``koma bench 15`` run one puzzle's figures;
``quick=False`` cases run only with ``--full``; ``on_request`` cases (``koma bench serve``, added
by the ``koma`` command from the tui side) run only when their group is named.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WARM_RUNS = 5


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
