"""Solving: the one front door over every puzzle's solvers (``methods``, ``solve``, ``distance``).

A puzzle model (``solver/<puzzle>/model.py``) knows its rules and its depth table; the solvers that need
more (IDA* with heuristics, bidirectional BFS, the loop method) live in each puzzle's folder
(``solver/sliding/search.py``, ``solver/goat/search.py``).  The table below maps a puzzle's CLI key to that module; a puzzle without one (Ura-omote)
is solved from its depth table alone.  Modules are imported when first asked, so importing this
package costs nothing.
"""

from __future__ import annotations

from types import ModuleType

from solver.errors import KomaError, UnsolvableError
from solver.puzzle import ProgressCallback, Puzzle, Solution, State

SLIDING_KEYS = ("8", "15", "sliding")


def _solvers(puzzle: Puzzle) -> ModuleType | None:
    """The search module of ``puzzle``'s family, or None when its table is all it has."""
    if puzzle.key in SLIDING_KEYS:
        from solver.sliding import search as sliding

        return sliding
    if puzzle.key == "goat":
        from solver.goat import search as goat

        return goat
    return None


def methods(puzzle: Puzzle) -> list[str]:
    """Solving methods for ``puzzle``, the default first (empty when Koma cannot solve it)."""
    module = _solvers(puzzle)
    if module is not None:
        return list(module.methods(puzzle))
    return ["table"] if puzzle.enumerable else []


def solve(puzzle: Puzzle, state: State, method: str | None = None, *, stop=None,
          progress: ProgressCallback | None = None, **options) -> Solution:
    """An optimal solution unless the method says otherwise.

    Raises UnsolvableError (with the proof) when the board cannot reach the goal, KomaError for an
    unknown method or heuristic, and Cancelled when ``stop[0]`` is set.
    """
    state = tuple(state)
    heuristic = options.get("heuristic")
    proof = puzzle.proof(state)
    if not proof.solvable:
        if method == "loop" and "loop" in methods(puzzle):
            raise _solvers(puzzle).refute_by_loop(puzzle, state)  # type: ignore[union-attr]
        raise UnsolvableError(f"this board cannot be solved: {proof.summary}", proof)
    if method in (None, "table") and puzzle.enumerable and heuristic is None:
        # The table is every enumerable puzzle's default, and reading it needs no search module (no numba).
        return puzzle.solve_by_table(state, stop=stop, progress=progress)
    available = methods(puzzle)
    module = _solvers(puzzle)
    if heuristic is not None:
        if "ida" not in available:
            raise KomaError(f"--heuristic is for IDA* on sliding puzzles; the {puzzle.title} does not take one")
        if method not in (None, "ida"):
            raise KomaError(f"--heuristic applies to the ida method, not {method!r}")
        method = "ida"
    if not available and puzzle.key in SLIDING_KEYS:
        from solver.sliding import search as sliding

        raise KomaError(sliding.too_large(puzzle))  # type: ignore[arg-type]
    if not available:
        raise KomaError(f"no solver for the {puzzle.title} at {puzzle.size_label} yet")
    method = method or available[0]
    if method not in available:
        raise KomaError(f"unknown method {method!r} for {puzzle.title}; choose from {', '.join(available)}")
    assert module is not None  # every method but the table comes from a search module
    return module.run(puzzle, state, method, stop=stop, progress=progress, **options)


def distance(puzzle: Puzzle, state: State, *, stop=None, progress: ProgressCallback | None = None) -> int:
    """The optimal distance to the goal (-1 if unreachable)."""
    if puzzle.enumerable:
        return puzzle.depth_table(stop=stop, progress=progress).distance(puzzle, state)
    return solve(puzzle, state, stop=stop, progress=progress).length


def warm(puzzle: Puzzle, *, stop=None) -> None:
    """Make ``puzzle``'s first solve fast: load (or build) its depth table, or load its search kernels
    from numba's cache (compiling them once) by solving a board two moves from the goal.  Tables that
    a solve starts building in the background are waited for, so nothing is left running."""
    if puzzle.enumerable:
        puzzle.depth_table(stop=stop)
        return
    if not methods(puzzle):
        return
    near = puzzle.goal
    for _ in range(2):
        near = puzzle.apply(near, puzzle.moves(near)[0])
    solve(puzzle, near, stop=stop)
    module = _solvers(puzzle)
    waiting = getattr(module, "wait_for_tables", None)
    if waiting is not None and not waiting(0):
        waiting()
        solve(puzzle, near, stop=stop)  # again, with the tables the first solve had to do without
