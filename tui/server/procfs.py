"""What ``/proc`` says about a game process: its CPU time, its memory, and what it is doing now (Linux)."""

from __future__ import annotations

import os
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
CPUCLOCK_SCHED = 2  # a process-wide CPU-time clock id is (~pid << 3) | 2, as clock_getcpuclockid(3) makes it


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(child) for child in Path(f"/proc/{current}/task/{task}/children").read_text().split()]
            except OSError:
                pass
    return found


def process_cpu_clock(pid: int) -> float | None:
    """CPU seconds of live process ``pid`` (all its threads) to the nanosecond, read from its CPU-time clock
    (``clock_getcpuclockid``); None where the kernel refuses.  ``/proc/PID/stat`` counts only whole ticks."""
    try:
        return time.clock_gettime(((~pid) << 3) | CPUCLOCK_SCHED)
    except OSError:
        return None


def cpu_seconds(pid: int, children: bool = True) -> float:
    """CPU seconds (user + system) of ``pid`` and, unless ``children`` is false, of its children, live and reaped.

    Live processes are read from their CPU-time clock where the kernel allows it; reaped children (and
    kernels without those clocks) in ticks from ``/proc/PID/stat``."""
    total = 0.0
    for each in descendants(pid) if children else [pid]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        precise = process_cpu_clock(each)
        own = precise if precise is not None else (int(fields[11]) + int(fields[12])) / TICK  # utime stime
        reaped = (int(fields[13]) + int(fields[14])) / TICK if children else 0.0  # cutime cstime
        total += own + reaped
    return total


def memory_mib(pid: int) -> dict[str, float]:
    """RSS, PSS and USS of ``pid`` in MiB: PSS splits shared pages between the processes that map them, USS
    counts only the pages no other process maps (what one more game costs)."""
    kib: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
                kib[name] = int(value.split()[0])
    except OSError:
        return {}
    return {"rss": kib.get("Rss", 0) / 1024, "pss": kib.get("Pss", 0) / 1024,
            "uss": (kib.get("Private_Clean", 0) + kib.get("Private_Dirty", 0)) / 1024}


def process_state(pid: int) -> str:
    """The state letter of ``pid``'s main thread (``R`` running, ``S`` sleeping, ``D`` in I/O, ``T`` stopped...);
    ``""`` when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def doing(pid: int) -> str:
    """One line on what process ``pid`` is doing: its state, CPU seconds so far, and the kernel call it waits in."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
    try:
        waiting = Path(f"/proc/{pid}/wchan").read_text().strip() or "-"
    except OSError:
        waiting = "?"
    return f"state {state}, {cpu_seconds(pid):.2f} s of CPU, waiting in {waiting}"
