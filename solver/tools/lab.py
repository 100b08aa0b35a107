"""The articles' solving methods side by side, on one board: nodes, time and solution length.

Used by the TUI's algorithm lab.  ``bfs`` is a fresh one-way BFS from the goal over the whole
state space (article 002's 181,440 states for the 8-puzzle; article 001's 5,443,200 for Goat),
whose node count is every state it reached; every other method is the puzzle's own
:meth:`~solver.puzzle.Puzzle.solve`, whose node count is that method's own (generated states for
the bidirectional BFS, expanded nodes for IDA*).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from solver import solving as search
from solver.errors import KomaError
from solver.puzzle import Puzzle, State

DESCRIPTIONS = {
    "bfs": "one-way BFS from the goal (every state)",
    "bidirectional": "bidirectional BFS (article 002)",
    "article": "IDA*, the article's per-piece bound",
    "pdb": "IDA*, additive pattern databases",
    "table": "the cached depth table",
    "ida:md+lc": "IDA*, Manhattan + linear conflict",
    "ida:wd": "IDA*, walking distance",
    "ida:pdb663": "IDA*, 6-6-3 pattern databases",
    "ida:pdb78": "IDA*, 7-8 pattern databases",
    "ida:pdb663+dual": "IDA*, 6-6-3 pattern databases and their dual lookups",
    "ida:pdb78+dual": "IDA*, 7-8 pattern databases and their dual lookups",
}


@dataclass(frozen=True)
class LabResult:
    method: str
    length: int
    nodes: int
    seconds: float
    optimal: bool
    note: str = ""


def lab_methods(puzzle: Puzzle) -> list[tuple[str, str]]:
    """The methods to compare on ``puzzle``, with a one-line description each (empty: none yet)."""
    found = ["bfs"] if puzzle.enumerable else []
    for method in search.methods(puzzle):
        if method == "ida":  # one entry per heuristic, weakest first: Manhattan against the PDBs
            from solver.sliding.model import SlidingPuzzle
            from solver.sliding.search import available_heuristics

            assert isinstance(puzzle, SlidingPuzzle)  # only sliding puzzles have IDA* with heuristics
            found += [f"ida:{h}" for h in reversed(available_heuristics(puzzle))]
        elif method not in ("table", "loop"):
            found.append(method)
    return [(m, DESCRIPTIONS.get(m, m)) for m in found]


def run_method(puzzle: Puzzle, state: State, method: str, *, stop=None, progress=None) -> LabResult:
    """Solve ``state`` with ``method``; raises Cancelled when ``stop`` is set, KomaError if it cannot."""
    state = tuple(state)
    if method == "bfs":
        if not puzzle.proof(state).solvable:
            raise KomaError("this board cannot be solved")
        began = time.perf_counter()
        depth, queue, _ = puzzle.bfs_arrays(stop=stop, progress=progress)
        length = int(depth[puzzle.rank(state)])
        return LabResult("bfs", length, len(queue), time.perf_counter() - began, True,
                         "nodes = every state the BFS reached")
    if method.startswith("ida:"):
        solution = search.solve(puzzle, state, "ida", stop=stop, progress=progress, heuristic=method[4:])
    else:
        solution = search.solve(puzzle, state, method, stop=stop, progress=progress)
    return LabResult(method, solution.length, solution.nodes, solution.seconds, solution.optimal, solution.note)
