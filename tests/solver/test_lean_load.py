"""Kernels load from numba's cache without numba's full context refresh, and work as compiled ones do.

numba refreshes its whole target context (every typing and lowering registry) before each cache load; Koma's
load guard skips that for its own kernels (:func:`solver.engines.numba_patches.lean_loader`). A process that only
loads (``koma solve`` with the kernels cached) never imports the registries; one that also compiles gets them from
numba's compiler, and its loaded kernels go on working.
"""

import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, sys
from solver.registry import get_puzzle
from solver.solving import solve

CASES = [("8", "8 6 7/2 5 4/3 _ 1", "ida"), ("8", "8 6 7/2 5 4/3 _ 1", "bidirectional"),
         ("15", "5 1 2 3/9 6 7 4/13 10 11 8/_ 14 15 12", "ida"), ("goat", "-BBd/.WrS/-jli", "pdb")]


def solutions():
    found = []
    for name, board, method in CASES:
        puzzle = get_puzzle(name)
        solution = solve(puzzle, puzzle.parse(board), method)
        found.append({"puzzle": name, "board": board, "method": solution.method, "moves": list(solution.moves),
                      "optimal": solution.optimal})
    return found


loaded = solutions()
registries_before = "numba.np.arraymath" in sys.modules
if sys.argv[1] == "compile":
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def total(values):
        return values.sum()

    assert total(np.arange(5)) == 10
again = solutions()
print(json.dumps({"registries_before_compile": registries_before, "loaded": loaded, "again": again,
                  "registries_at_end": "numba.np.arraymath" in sys.modules}))
"""

LENGTHS = {"8": 31, "15": 9, "goat": None}  # the 8-puzzle's article board is 31 moves; goat: checked by replay


def run(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def warmed() -> None:
    run("load")  # compiles (and caches) whatever this cache lacks; the runs below only load


def check(solutions: list[dict]) -> None:
    from solver.registry import get_puzzle

    for found in solutions:
        puzzle = get_puzzle(found["puzzle"])
        path = puzzle.replay(puzzle.parse(found["board"]), found["moves"])
        assert path[-1] == puzzle.goal and found["optimal"], found
        if LENGTHS[found["puzzle"]] is not None:
            assert len(found["moves"]) == LENGTHS[found["puzzle"]], found


def test_a_process_that_only_loads_kernels_never_refreshes_numbas_registries(warmed):
    result = run("load")
    assert result["registries_before_compile"] is False and result["registries_at_end"] is False
    check(result["loaded"])
    check(result["again"])


def test_a_compile_after_lean_loads_refreshes_and_the_loaded_kernels_still_work(warmed):
    result = run("compile")
    assert result["registries_before_compile"] is False and result["registries_at_end"] is True
    check(result["loaded"])
    assert result["again"] == result["loaded"]


def test_a_numba_without_the_seam_loads_the_usual_way(monkeypatch):
    """The seam is checked when the patches' module is imported: a numba without it gets no lean loader."""
    import importlib

    from numba.core.caching import Cache

    from solver.engines import numba_patches

    assert numba_patches.lean_loader() is not None
    monkeypatch.delattr(Cache, "_load_overload")
    try:
        assert importlib.reload(numba_patches).lean_loader() is None
    finally:
        monkeypatch.undo()
        importlib.reload(numba_patches)
    assert numba_patches.lean_loader() is not None
