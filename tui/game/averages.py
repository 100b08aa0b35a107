"""Speedsolving averages of a session's results, without the UI.

A result is a time in milliseconds, or :data:`DNF` (``inf``: it sorts as the worst).  The rules (the WCA's and
Slidysim's, with the 5% trim of csTimer and slidy for the long averages):

- **mo3**: the plain mean of 3; one DNF makes it a DNF.
- **aoN** (N >= 5): sort the N results, drop the ``ceil(5% of N)`` best and as many worst (ao5 and ao12: 1 each,
  ao25: 2, ao50: 3, ao100: 5) and take the mean of the rest; a DNF among the results kept (more DNFs than the worst
  dropped) makes it a DNF.
- **best** of an average: the lowest over every run of N consecutive results; **current**: the last N.
- **mean** and **standard deviation** (the sample's, N - 1) are over the solves finished (DNFs left out).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

DNF = math.inf
AVERAGES = (("mo3", 3), ("ao5", 5), ("ao12", 12), ("ao25", 25), ("ao50", 50), ("ao100", 100))


def trimmed(n: int) -> int:
    """How many results an aoN drops at each end: 5% of N, rounded up."""
    return -(-n * 5 // 100)


def mean_of(results: Sequence[float]) -> float:
    """The mean of all the results (mo3); DNF if any is one."""
    return DNF if any(math.isinf(r) for r in results) else sum(results) / len(results)


def average_of(results: Sequence[float]) -> float:
    """The trimmed average of N >= 5 results (see the module's docstring); DNF if a DNF is among those kept."""
    n = len(results)
    if n < 5:
        raise ValueError(f"an average needs 5 results or more, not {n}")
    drop = trimmed(n)
    kept = sorted(results)[drop:n - drop]
    return DNF if math.isinf(kept[-1]) else sum(kept) / len(kept)


def statistic(name: str, results: Sequence[float]) -> float:
    """``mo3`` or ``aoN`` of exactly N results."""
    return mean_of(results) if name.startswith("mo") else average_of(results)


@dataclass(frozen=True)
class Figure:
    """One statistic over a session: its current value (the last N results) and its best; None: too few results."""

    current: float | None = None
    best: float | None = None


def rolling(name: str, size: int, results: Sequence[float]) -> Figure:
    """``name`` (mo3, aoN) over every ``size`` consecutive results: the last window's and the lowest."""
    if len(results) < size:
        return Figure()
    values = [statistic(name, results[i:i + size]) for i in range(len(results) - size + 1)]
    return Figure(values[-1], min(values))


@dataclass(frozen=True)
class SessionSummary:
    """A session's (or a size's) figures: single, mo3, ao5, ao12, ao25, ao50, ao100, the mean, std dev and counts."""

    count: int = 0
    solved: int = 0
    single: Figure = Figure()
    averages: dict[str, Figure] = field(default_factory=dict)
    mean: float | None = None
    std_dev: float | None = None

    @property
    def dnfs(self) -> int:
        return self.count - self.solved


def summarize(results: Sequence[float]) -> SessionSummary:
    """Every figure of ``results`` (oldest first)."""
    finished = [r for r in results if not math.isinf(r)]
    single = Figure(results[-1], min(results)) if results else Figure()
    return SessionSummary(
        count=len(results), solved=len(finished), single=single,
        averages={name: rolling(name, size, results) for name, size in AVERAGES},
        mean=statistics.fmean(finished) if finished else None,
        std_dev=statistics.stdev(finished) if len(finished) > 1 else None,
    )


def result_text(value: float | None) -> str:
    """A result or average in seconds to the millisecond (``12.345``), ``DNF``, or ``-`` when there is none."""
    if value is None:
        return "-"
    if math.isinf(value):
        return "DNF"
    return seconds_text(value)


def seconds_text(ms: float) -> str:
    """Milliseconds as seconds, to the millisecond (half up): ``61234`` -> ``1:01.234``; under a minute ``12.345``."""
    thousandths = math.floor(ms + 0.5)
    minutes, rest = divmod(thousandths, 60_000)
    seconds = f"{rest // 1000}.{rest % 1000:03d}"
    return f"{minutes}:{rest // 1000:02d}.{rest % 1000:03d}" if minutes else seconds
