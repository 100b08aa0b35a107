"""The process beside (``python -m solver.tools.warm``): it compiles the 15-puzzle's search with a stand-in table,
the very kernels a real search then loads; it stops when the process that started it goes; ``koma`` starts the two
parts on a fresh install and stops them as it quits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.sliding import search as fifteen
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle
from solver.tools import warm

FIFTEEN = SlidingPuzzle(4, 4)


def gone(pid: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":  # ended, not yet reaped by its parent
            return True
        time.sleep(0.05)
    return False


def test_the_stand_in_compiles_the_kernels_a_real_search_runs():
    import numba

    fifteen.build_tables("6-6-3")  # the real table (built once per cache)
    real, stand_in = fifteen._load("pdb663", build=False), fifteen.stand_in_table()
    assert stand_in.size == real.size and not stand_in.any()  # the search reads where it would read the real one
    assert numba.typeof(stand_in) == numba.typeof(real)  # the same compiled kernels
    fifteen.compile_database_search()
    compiled = {kernel: list(kernel.signatures) for kernel in (kernels.ida_pdb,)}
    assert all(len(signatures) == 1 for signatures in compiled.values())
    start = (5, 1, 2, 3, 9, 6, 7, 4, 13, 10, 11, 8, 0, 14, 15, 12)
    solution = fifteen.solve_sliding(FIFTEEN, start, heuristic="pdb663")
    assert solution.optimal and len(solution.moves) == 9
    assert FIFTEEN.replay(start, solution.moves)[-1] == FIFTEEN.goal
    for kernel, signatures in compiled.items():  # the real search added no kernel of its own: it ran the stand-in's
        assert list(kernel.signatures) == signatures, kernel


def test_the_process_beside_stops_when_its_parent_goes(tmp_path):
    """On empty caches (it has seconds of compiling ahead): killed without a goodbye, its parent leaves it to stop on
    its own, before it built the table, and with no temporary file left behind."""
    tables = tmp_path / "tables"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tables)}
    parent = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time\n"
        "from solver.tools.warm import command\n"
        "beside = subprocess.Popen(command(os.getpid(), 'table'), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(beside.pid, flush=True)\n"
        "time.sleep(120)\n")], stdout=subprocess.PIPE, text=True, env=env)
    try:
        beside = int(parent.stdout.readline())
        deadline = time.monotonic() + 60
        while b"solver.tools.warm" not in Path(f"/proc/{beside}/cmdline").read_bytes():  # started afresh (exec)
            assert time.monotonic() < deadline, "the process beside never started"
            time.sleep(0.01)
        parent.kill()  # no goodbye: the beside process notices it was left
        parent.wait(30)
        assert gone(beside), "the process beside outlived its parent"
        assert not list(tables.glob("*pdb663*")), "it went on to build the table"
    finally:
        parent.kill()


def test_the_process_beside_refuses_arguments_it_does_not_know():
    done = subprocess.run([sys.executable, "-m", "solver.tools.warm", "--part", "everything"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "invalid choice: 'everything'" in done.stderr
    assert done.stderr.startswith("usage: python -m solver.tools.warm")


@pytest.mark.asyncio
async def test_koma_starts_the_processes_beside_on_a_fresh_install_and_stops_them_as_it_quits(tmp_path, monkeypatch):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))
    from tui_helpers import make_app, wait_for

    monkeypatch.setattr(warm, "needed", lambda: True)  # as on a fresh install (this run's cache has the kernels)
    app = make_app(tmp_path, prewarm=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.kernel_warmup.processes, what="the processes beside")
        beside = app.kernel_warmup.processes
        assert {part: process.args for part, process in beside.items()} == {
            part: warm.command(os.getpid(), part) for part in warm.PARTS}
        await pilot.press("q")
    for part, process in beside.items():
        assert gone(process.pid), "a process beside outlived koma"
        # stopped by SIGTERM: by its handler (temporary files removed on the way out), or before it had one (still
        # importing, with no file written yet); or it had finished (this run's caches are warm)
        log = warm.beside_log(part)
        assert process.wait(5) in (128 + signal.SIGTERM, -signal.SIGTERM, 0), (
            f"{part}: exit {process.returncode}; its log says: "
            f"{log.read_text(errors='replace')[-2000:] if log is not None and log.exists() else '(no log)'}")


def test_what_goes_wrong_in_a_process_beside_is_in_its_log(tmp_path, monkeypatch):
    monkeypatch.setattr(warm, "needed", lambda: True)
    monkeypatch.setattr(warm, "beside_log", lambda part: tmp_path / f"{part}.log")
    monkeypatch.setattr(warm, "command", lambda parent, part: [
        sys.executable, "-c", f"import sys; print('{part} could not warm the 15 puzzle', file=sys.stderr); sys.exit(1)"])
    (tmp_path / "table.log").write_text("the last start's\n")
    started = warm.start_beside()
    assert set(started) == set(warm.PARTS)
    assert all(process.wait(30) == 1 for process in started.values())
    for part in warm.PARTS:
        assert (tmp_path / f"{part}.log").read_text() == f"{part} could not warm the 15 puzzle\n"


def test_a_failed_warm_up_says_which_part_and_why(tmp_path):
    done = subprocess.run([sys.executable, "-c", (
        "import sys\n"
        "from solver.tools import warm\n"
        "from solver import solving\n"
        "def broken(puzzle, stop=None):\n"
        "    raise OSError('the disk is gone')\n"
        "solving.warm = broken\n"
        "sys.exit(warm.main(['--part', 'table']))\n")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "table (process " in done.stderr and "could not warm the 15 puzzle (OSError: the disk is gone)" in done.stderr


@pytest.mark.asyncio
async def test_the_15_puzzle_opened_while_the_process_beside_builds_its_table_waits_for_it(tmp_path, monkeypatch):
    """On a fresh install the play screen's warm-up used to build the table itself when it got there first (the process
    beside was still starting), compiling the table's builder in the interface's process, under the GIL: the screen
    froze for seconds.  It waits for the table the process beside builds, then loads it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))
    from tui_helpers import make_app, wait_for

    from solver.sliding import tables as sliding_tables
    from tui.kernel_warmup import KernelWarmUp

    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path / "tables"))  # no table yet (the kernels are in the run's cache)
    monkeypatch.setattr(sliding_tables, "_loaded", {})
    built_here = []
    build_into = sliding_tables._build_into

    def spy(*args, **kwargs):
        built_here.append(args[0])
        return build_into(*args, **kwargs)

    monkeypatch.setattr(sliding_tables, "_build_into", spy)
    table = subprocess.Popen(warm.command(os.getpid(), "table"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        app = make_app(tmp_path, "15", prewarm=False, kernel_warmup=KernelWarmUp({"table": table}))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "warm", None) is not None and app.screen.warm.is_set(),
                           timeout=120, what="the warm-up")
            assert warm.table_built()
            assert built_here == [], "the interface's process built the table itself"
            await pilot.press("q")
    finally:
        table.kill()
        table.wait(30)


@pytest.mark.parametrize("served", [False, True])
def test_a_game_of_koma_serve_starts_no_process_beside(monkeypatch, served):
    """``koma`` on a fresh install starts the processes beside as it launches; a served game never does (its warm
    process compiles, once, for every game: a game that compiled too would cost the server a cold start per player)."""
    from tui import launch as launching
    from tui.app import KomaApp
    from tui.cli import parse_args

    started: list[str] = []
    made: list[dict] = []
    monkeypatch.setattr(launching, "start_compiling_beside", lambda: started.append("beside") or {"table": "a process"})
    monkeypatch.setattr(KomaApp, "run", lambda self, *a, **k: made.append(self.kernel_warmup.processes))
    monkeypatch.setattr(launching.os, "_exit", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    if served:
        monkeypatch.setenv("KOMA_SERVE", "1")
    else:
        monkeypatch.delenv("KOMA_SERVE", raising=False)
    with pytest.raises(SystemExit):
        launching.launch(parse_args([]))
    assert started == ([] if served else ["beside"])
    assert made == [{} if served else {"table": "a process"}]
