"""Lasting speed records, without the UI or SQL: the all-time bests of a size and event, and their dated history.

A record is the best **single** or the best **mo3, ao5, ao12, ao25, ao50 or ao100** (the rules of
:mod:`tui.game.averages`) over every run of consecutive solves of one size and event, oldest first.  Beside its time
it carries the **moves** (STM) and **TPS** of the same solves, averaged the same way (each sorted and trimmed on its
own, as Slidysim's session tracker does; a mo3 is the plain mean) and the time it was **achieved** (the end of its
last solve).  A DNF (or an average a DNF spoils) is never a record.  The store keeps the records in a table and
updates them as solves are stored (:mod:`tui.storage.store`), so they survive any number of later solves.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tui.game.averages import AVERAGES, trimmed
from tui.game.speed import SpeedResult

SINGLE_RECORD = "single"
RECORD_STATISTICS: tuple[tuple[str, int], ...] = ((SINGLE_RECORD, 1), *AVERAGES)
STATISTIC_SIZES = dict(RECORD_STATISTICS)
LONGEST_WINDOW = max(size for _, size in RECORD_STATISTICS)


@dataclass(frozen=True)
class Entry:
    """What a record needs of one solve: its result (ms, ``inf`` for a DNF), STM, TPS and when it ended."""

    result_ms: float
    stm: int
    tps: float | None
    finished: float

    @classmethod
    def of(cls, result: SpeedResult, finished: float | None = None) -> Entry:
        at = finished if finished is not None else result.finished or 0.0
        return cls(result.result_ms, result.stm, result.tps, at)


@dataclass(frozen=True)
class Record:
    """One statistic's value over a run of solves: time (ms), moves, TPS (None where a solve had none), when."""

    statistic: str
    time_ms: float
    moves: float
    tps: float | None
    achieved: float


def _trimmed_mean(values: Sequence[float], size: int) -> float:
    if size < 5:
        return sum(values) / len(values)
    drop = trimmed(size)
    kept = sorted(values)[drop:size - drop]
    return sum(kept) / len(kept)


def figure(statistic: str, window: Sequence[Entry]) -> Record | None:
    """``statistic`` over exactly its number of solves (``window``); None if a DNF spoils it."""
    size = STATISTIC_SIZES[statistic]
    if len(window) != size:
        raise ValueError(f"{statistic} takes {size} solves, not {len(window)}")
    results = [entry.result_ms for entry in window]
    if size == 1:
        time = results[0]
    elif size < 5:
        time = math.inf if any(math.isinf(r) for r in results) else sum(results) / size
    else:
        time = _trimmed_mean(results, size)
    if math.isinf(time):
        return None
    moves = _trimmed_mean([float(entry.stm) for entry in window], size)
    rates = [entry.tps for entry in window]
    tps = None if any(rate is None for rate in rates) else _trimmed_mean([rate or 0.0 for rate in rates], size)
    return Record(statistic, time, moves, tps, window[-1].finished)


def current_figures(entries: Sequence[Entry]) -> dict[str, Record]:
    """Every statistic over the solves that end with the last one (those the newest solve may have made records)."""
    out: dict[str, Record] = {}
    for name, size in RECORD_STATISTICS:
        if len(entries) >= size:
            value = figure(name, entries[len(entries) - size:])
            if value is not None:
                out[name] = value
    return out


def better(new: Record, old: Record | None) -> bool:
    """A new record beats the old one only when strictly faster (a tie keeps the first to reach it)."""
    return old is None or new.time_ms < old.time_ms


def bests(entries: Iterable[Entry]) -> tuple[dict[str, Record], list[Record]]:
    """The records of ``entries`` (oldest first) and their history: each record as it was reached, oldest first."""
    best: dict[str, Record] = {}
    history: list[Record] = []
    window: list[Entry] = []
    for entry in entries:
        window.append(entry)
        if len(window) > LONGEST_WINDOW:
            del window[0]
        for name, value in current_figures(window).items():
            if better(value, best.get(name)):
                best[name] = value
                history.append(value)
    return best, history
