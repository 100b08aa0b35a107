"""The kernels' warm-up service: a wait for the table the process beside builds ends on that process's line, on its
end, on quitting and when the background warm-up gives way; never by polling."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from solver.registry import get_puzzle
from solver.tools import warm
from tui.game.solver_jobs import SolverJob
from tui.kernel_warmup import KernelWarmUp

DEADLINE = 30.0


def beside(script: str) -> subprocess.Popen:
    """A stand-in for the ``table`` process beside: it runs ``script`` (stdin is kept open: it can wait on it)."""
    return subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def waiting(warmup: KernelWarmUp, job: SolverJob) -> threading.Thread:
    thread = threading.Thread(target=warmup.wait_for_the_table, args=(get_puzzle("15"), job), daemon=True)
    thread.start()
    return thread


@pytest.fixture(autouse=True)
def no_table_yet(monkeypatch):
    monkeypatch.setattr(warm, "table_built", lambda: False)  # as on a fresh install (this run's cache may have it)


def test_the_wait_ends_when_the_process_beside_says_its_table_is_built():
    process = beside(f"import sys; print({warm.TABLE_BUILT!r}, flush=True); sys.stdin.read()")
    try:
        thread = waiting(KernelWarmUp({"table": process}), SolverJob("warm-up"))
        thread.join(DEADLINE)
        assert not thread.is_alive(), "the wait did not end on the line"
        assert process.poll() is None  # the process is still running: its line ended the wait, not its end
    finally:
        process.kill()
        process.wait(DEADLINE)


def test_the_wait_ends_when_the_process_beside_ends_without_a_table():
    process = beside("import sys; sys.exit(1)")
    thread = waiting(KernelWarmUp({"table": process}), SolverJob("warm-up"))
    thread.join(DEADLINE)
    assert not thread.is_alive() and process.wait(DEADLINE) == 1


def test_quitting_ends_the_wait_and_stops_the_process_beside():
    process = beside("import sys; sys.stdin.read()")
    warmup = KernelWarmUp({"table": process})
    thread = waiting(warmup, SolverJob("warm-up"))
    warmup.stop()
    thread.join(DEADLINE)
    assert not thread.is_alive()
    assert process.wait(DEADLINE) != 0  # terminated
    assert warmup.processes == {}


def test_a_puzzle_opened_meanwhile_ends_the_background_warm_up_s_wait():
    process = beside("import sys; sys.stdin.read()")
    try:
        warmup = KernelWarmUp({"table": process})
        fifteen, other = SolverJob("background warm-up"), SolverJob("background warm-up")
        warmup.warming = ("15", fifteen)
        warmup.give_way(get_puzzle("15"))  # the puzzle it warms: it goes on
        assert not fifteen.cancelled
        thread = waiting(warmup, other)
        warmup.warming = ("15", other)
        warmup.give_way(get_puzzle("8"))
        thread.join(DEADLINE)
        assert not thread.is_alive() and other.cancelled
    finally:
        process.kill()
        process.wait(DEADLINE)


def test_no_wait_for_a_puzzle_that_does_not_need_that_table_or_without_the_process():
    process = beside("import sys; sys.stdin.read()")
    try:
        eight = threading.Thread(target=KernelWarmUp({"table": process}).wait_for_the_table,
                                 args=(get_puzzle("8"), SolverJob("warm-up")), daemon=True)
        eight.start()
        alone = waiting(KernelWarmUp(), SolverJob("warm-up"))
        for thread in (eight, alone):
            thread.join(DEADLINE)
            assert not thread.is_alive()
    finally:
        process.kill()
        process.wait(DEADLINE)
