"""The optimal sliding-puzzle solver: IDA* with the best heuristic at hand, and its tables.

Heuristics (strongest first): ``pdb78`` and ``pdb663``, additive disjoint pattern databases for the
15-puzzle (max of the board and its reflection about the main diagonal), each also ``+dual``: the
same databases looked up a second time, on the dual of the board (see
:mod:`solver.sliding.dual`), which prunes a fifth of the nodes but costs about as much time
as it saves, so it is asked for by name; ``wd``, Takahashi's
walking distance (its small table is built at first use), taking the larger of it and Manhattan +
linear conflict, since neither dominates the other; ``md+lc``, Manhattan distance plus linear
conflict, which needs no table.

* 6-6-3 is built at first use, in seconds, and cached on disk; while it builds, a default solve
  runs on walking distance and switches over once the table is ready.
* 7-8 (576,576,000 entries) is built only on request (:func:`build_tables`); solving memory-maps it.

Boards up to 12 cells, 3x5, 5x3 and the 4x4 are solved optimally, and the 5x5 once its 6-6-6-6
databases are built (:mod:`solver.sliding.twentyfour`), and the 4x5 and 5x4 when their 5-5-5-4
databases are asked for by name (``heuristic="5-5-5-4"``, :mod:`solver.sliding.twenty`: a random board
can take hours).  Otherwise those boards (and the 5x5 without its tables) get a solution by reduction
to the 4x4 (see :mod:`solver.sliding.reduce`), labelled not optimal.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from solver.engines.ranking import pack, rank, unpack
from solver.engines.stop import new_stop_flag
from solver.errors import Cancelled, KomaError, UnsolvableError
from solver.puzzle import Solution
from solver.sliding import dual as sliding_dual
from solver.sliding import search_kernels as search_kernels
from solver.sliding import twenty, twentyfour
from solver.sliding.kernels import bidirectional_kernel
from solver.sliding.loop import run_loop_method
from solver.sliding.model import MAX_SOLVE_SIDE, SlidingPuzzle
from solver.sliding.reduce import reduce_board, small_enough, sub_board
from solver.sliding.tables import ALIASES as ALIASES
from solver.sliding.tables import LABELS as LABELS
from solver.sliding.tables import PATTERNS as PATTERNS
from solver.sliding.tables import WIDTHS as WIDTHS
from solver.sliding.tables import _load as _load
from solver.sliding.tables import _pdb_dual_meta as _pdb_dual_meta
from solver.sliding.tables import _pdb_meta as _pdb_meta
from solver.sliding.tables import build_in_memory as build_in_memory
from solver.sliding.tables import build_tables as build_tables
from solver.sliding.tables import table_requirements as table_requirements
from solver.sliding.tables import tables_present as tables_present
from solver.sliding.tables import wait_for_tables as wait_for_tables

Notice = Callable[[str], None]
Progress = Callable[[dict[str, Any]], None]

HEURISTICS = ("pdb78+dual", "pdb78", "pdb663+dual", "pdb663", "wd", "md+lc")
DESCRIPTIONS = {
    "pdb78+dual": "7-8 additive pattern databases, max with the reflection and the dual lookups",
    "pdb78": "7-8 additive pattern databases, max with the reflection",
    "pdb663+dual": "6-6-3 additive pattern databases, max with the reflection and the dual lookups",
    "pdb663": "6-6-3 additive pattern databases, max with the reflection",
    "wd": "walking distance (max with Manhattan + linear conflict)",
    "md+lc": "Manhattan distance + linear conflict",
}
DATABASES = {"pdb78+dual": "pdb78", "pdb78": "pdb78", "pdb663+dual": "pdb663", "pdb663": "pdb663"}  # each one's table
WD_MAX_CELLS = 16  # walking-distance tables for bigger boards are too big to build at first use
MAX_BOUND = 200



# --- heuristics --------------------------------------------------------------------------------

def _is_fifteen(puzzle: SlidingPuzzle) -> bool:
    return (puzzle.width, puzzle.height) == (4, 4)


def available_heuristics(puzzle: SlidingPuzzle) -> list[str]:
    """Heuristics for ``puzzle``, strongest first: those whose tables are present or cheap to build.

    For a board too big to solve optimally, the list is that of the region the reduction leaves.
    """
    width, height = puzzle.width, puzzle.height
    if not small_enough(width, height):
        width, height = _final_region(width, height)
    if (width, height) == (4, 4):
        return (["pdb78"] if tables_present("pdb78") else []) + ["pdb663", "wd", "md+lc"]
    return ["wd", "md+lc"] if width * height <= WD_MAX_CELLS else ["md+lc"]


def _final_region(width: int, height: int) -> tuple[int, int]:
    while not small_enough(width, height):
        if height >= width:
            height -= 1
        else:
            width -= 1
    return width, height


@lru_cache(maxsize=16)
def _small_tables(kind: str, width: int, height: int) -> np.ndarray:
    if kind == "wd":
        return search_kernels.wd_tables(width, height)
    return search_kernels.mdlc_tables(width, height)


# --- solving -----------------------------------------------------------------------------------

@dataclass
class _Run:
    moves: list[str]
    nodes: int
    seconds: float
    heuristic: str
    h0: int


def _run(kind: str, puzzle: SlidingPuzzle, board, *, stop, progress, table=None, parent_only: bool = False) -> _Run:
    """One IDA* search with heuristic ``kind`` (a name from HEURISTICS); ``parent_only``: prune no duplicate
    move strings but the undoing of the last move (see :func:`solver.sliding.search_kernels.parent_pruning_only`)."""
    tables: tuple[np.ndarray, np.ndarray | None] | np.ndarray
    dual = kind.endswith("+dual")
    pruned = search_kernels.parent_pruning_only if parent_only else (lambda meta: meta)
    if kind in DATABASES:
        tables = (pruned((_pdb_dual_meta if dual else _pdb_meta)(DATABASES[kind])), table)
        engine = "pdb"
    elif kind == "wd":
        tables, engine = pruned(_small_tables("wd", puzzle.width, puzzle.height)), "wd"
    else:
        tables, engine = pruned(_small_tables("mdlc", puzzle.width, puzzle.height)), "mdlc"
    report = None
    if progress is not None:
        def report(info):
            progress({"phase": "search", "heuristic": kind, **info})
    began = time.perf_counter()
    if dual:
        moves, result, h0 = sliding_dual.search(board, tables, stop=stop, progress=report, max_bound=MAX_BOUND)
    else:
        moves, result, h0 = search_kernels.search(engine, board, tables, stop=stop, progress=report, max_bound=MAX_BOUND)
    if not moves and tuple(board) != puzzle.goal:  # pragma: no cover - solvable boards always have a path
        raise KomaError("no solution found within the search bound")
    return _Run(moves, result.nodes, time.perf_counter() - began, kind, h0)


def stand_in_table(database: str = "pdb663") -> np.ndarray:
    """An all-zero table of ``database``'s type and length (read-only, as the real one is, mapped from its file)."""
    from solver.engines.pdb import n_placements

    cells = WIDTHS[database] ** 2
    table = np.zeros(sum(n_placements(cells, len(group)) for group in PATTERNS[database]), np.uint8)
    table.setflags(write=False)
    return table


def compile_database_search(stop=None) -> None:
    """Compile the 15-puzzle's pattern-database search (its kernels, as a 6-6-3 search calls them) without its table:
    a search from the goal with :func:`stand_in_table`.  A process that runs this while another builds the table
    compiles the search meanwhile (a fresh install's first solve: :mod:`solver.tools.warm`)."""
    puzzle = SlidingPuzzle(4, 4)
    _run("pdb663", puzzle, puzzle.goal, stop=stop, progress=None, table=stand_in_table())


def _check_heuristic(puzzle: SlidingPuzzle, heuristic: str) -> str:
    key = heuristic.strip().lower().replace("md-lc", "md+lc").replace("mdlc", "md+lc")
    base, dual = (key[:-len("+dual")], "+dual") if key.endswith("+dual") else (key, "")
    key = ALIASES.get(base, base) + dual
    if key not in HEURISTICS:
        raise KomaError(f"unknown heuristic {heuristic!r}; choose from {', '.join(HEURISTICS)}")
    if key in DATABASES and not _is_fifteen(puzzle):
        raise KomaError(f"pattern databases are for the 15-puzzle (4x4); for {puzzle.size_label} "
                        f"choose from {', '.join(available_heuristics(puzzle))}")
    if key == "wd" and puzzle.width * puzzle.height > WD_MAX_CELLS:
        raise KomaError(f"walking distance is available up to {WD_MAX_CELLS} cells")
    return key


def solve_sliding(puzzle: SlidingPuzzle, state, *, heuristic: str | None = None, stop=None,
                  progress: Progress | None = None, notice: Notice | None = None, limit: float | None = None,
                  threads: int | None = None) -> Solution:
    """An optimal solution by IDA* (boards of up to 12 cells, 3x5, 5x3, 4x4, and 5x5 once its pattern
    databases are built), else a labelled non-optimal one.

    ``heuristic`` picks one of :data:`HEURISTICS`; by default the strongest whose tables are present
    (on the 4x4, 6-6-3 is built at first use, in about a second).  ``progress``
    receives ``{"phase": "search", "heuristic", "bound", "nodes", "iteration", "nodes_per_second"}``
    between iterations and ``{"phase": "build", ...}`` while a table builds in the foreground;
    ``notice`` receives one-line messages about tables.  Raises UnsolvableError (with the parity
    proof) for an unsolvable board and Cancelled when ``stop[0]`` is set.  On the 5x5 (and the 4x5 and 5x4
    with ``heuristic="5-5-5-4"``), the search runs on ``threads`` threads (by default both cores) and gives up after
    ``limit`` seconds, raising :class:`~solver.errors.GaveUp` with the lower bound it proved.
    """
    if not puzzle.solvable_by_koma:
        raise KomaError(too_large(puzzle))
    state = tuple(int(t) for t in state)
    proof = puzzle.proof(state)
    if not proof.solvable:
        raise UnsolvableError(f"this board cannot be solved: {proof.summary}", proof)
    stop = np.zeros(1, np.uint8) if stop is None else stop
    if twentyfour.is_twentyfour(puzzle) and (heuristic is None or ALIASES.get(heuristic.strip().lower()) == "pdb6666"):
        table = twentyfour.tables(notice)
        if table is not None:
            return twentyfour.solve_optimal(puzzle, state, table, stop=stop, progress=progress, limit=limit,
                                            threads=threads)
        if heuristic is not None:
            raise KomaError(twentyfour.missing_tables_notice().replace(", so this answer is not proven optimal", ""))
        if notice is not None:
            notice(twentyfour.missing_tables_notice())
        return _solve_by_reduction(puzzle, state, heuristic=None, stop=stop, progress=progress, notice=notice)
    if twenty.is_twenty(puzzle) and heuristic is not None and twenty.is_name(heuristic):
        return twenty.solve_optimal(puzzle, state, stop=stop, progress=progress, limit=limit, notice=notice,
                                    threads=threads)
    if not small_enough(puzzle.width, puzzle.height):
        return _solve_by_reduction(puzzle, state, heuristic=heuristic, stop=stop, progress=progress, notice=notice)
    began = time.perf_counter()
    if heuristic is not None:
        kind = _check_heuristic(puzzle, heuristic)
        table = None
        if kind in DATABASES:
            database = DATABASES[kind]
            table = _load(database, notice=notice, progress=progress, stop=stop, build=False)
            if table is None:
                if database == "pdb78":
                    needs = table_requirements(database)
                    raise KomaError(f"pattern database 7-8 is not built; build it once with `koma tables build 15 "
                                    f"--pdb 7-8` ({needs['build_memory_bytes'] / 2**30:.1f} GiB of memory, "
                                    f"{needs['disk_bytes'] / 2**20:.0f} MiB on disk, a few minutes)")
                if notice is not None:
                    notice(f"building pattern database {LABELS[database]} (once, a few seconds)")
                table = _load(database, notice=notice, progress=progress, stop=stop, build=True)
        run = _run(kind, puzzle, state, stop=stop, progress=progress, table=table)
        return _solution(puzzle, state, run, began, True, f"IDA* with {DESCRIPTIONS[kind]}")
    if not _is_fifteen(puzzle):
        kind = available_heuristics(puzzle)[0]
        run = _run(kind, puzzle, state, stop=stop, progress=progress)
        return _solution(puzzle, state, run, began, True, f"IDA* with {DESCRIPTIONS[kind]}")
    for kind in ("pdb78", "pdb663"):
        if tables_present(kind):
            table = _load(kind, notice=notice, build=False)
            if table is not None:
                run = _run(kind, puzzle, state, stop=stop, progress=progress, table=table)
                return _solution(puzzle, state, run, began, True, f"IDA* with {DESCRIPTIONS[kind]}")
    return _solve_building(puzzle, state, began, stop=stop, progress=progress, notice=notice)


def _solve_building(puzzle, state, began, *, stop, progress, notice) -> Solution:
    """Build 6-6-3 now (a second, once per box), then search with it.  On a fresh install this compiles only the
    table's builder and the pattern-database search, not walking distance's search besides (twice the compiling
    for the first solve); if the table cannot be built, walking distance alone."""
    if notice is not None:
        notice("building pattern database 6-6-3 (once, about a second)")
    try:
        table = _load("pdb663", notice=notice, progress=progress, stop=stop, build=True)
    except Cancelled:
        raise
    except Exception as problem:  # a table that cannot be made costs the search its speed, not its answer
        if notice is not None:
            notice(f"pattern database 6-6-3 could not be built ({problem}); searching with walking distance")
        run = _run("wd", puzzle, state, stop=stop, progress=progress)
        return _solution(puzzle, state, run, began, True, f"IDA* with {DESCRIPTIONS['wd']}")
    run = _run("pdb663", puzzle, state, stop=stop, progress=progress, table=table)
    return _solution(puzzle, state, run, began, True, f"IDA* with {DESCRIPTIONS['pdb663']}")


def _solution(puzzle, state, run: _Run, began: float, optimal: bool, note: str) -> Solution:
    path = puzzle.replay(state, run.moves)
    return Solution(tuple(run.moves), path, optimal, run.nodes, time.perf_counter() - began,
                    f"ida*:{run.heuristic}", note)


def _solve_by_reduction(puzzle, state, *, heuristic, stop, progress, notice) -> Solution:
    began = time.perf_counter()
    moves, reduced, region = reduce_board(puzzle, state, stop=stop)
    _left, _top, w, h = region
    small = SlidingPuzzle(w, h)
    inner = solve_sliding(small, sub_board(reduced, puzzle.width, region), heuristic=heuristic, stop=stop,
                          progress=progress, notice=notice)
    moves = moves + list(inner.moves)
    path = puzzle.replay(state, moves)
    if path[-1] != puzzle.goal:  # pragma: no cover - the reduction keeps the placed tiles home
        raise KomaError("the reduction did not reach the goal")
    placed = puzzle.cells - w * h
    note = (f"NOT proven optimal: {placed} tiles were placed line by line (short exact steps), then the "
            f"remaining {w}x{h} board was solved optimally ({inner.length} of {len(moves)} moves)")
    return Solution(tuple(moves), path, False, inner.nodes, time.perf_counter() - began,
                    f"reduction+{inner.method}", note)


# --- benchmark data --------------------------------------------------------------------------------

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def from_korf(tiles) -> tuple[int, ...]:
    """A board in Korf's convention (blank top-left) mapped to ours: 180-degree turn, t -> 16 - t."""
    out = [0] * 16
    for p, t in enumerate(tiles):
        out[15 - p] = 0 if t == 0 else 16 - t
    return tuple(out)


@lru_cache(maxsize=1)
def korf100() -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """Korf's (1985) 100 instances in Koma's convention: ``(index, board, optimal length)``."""
    rows = []
    for line in (DATA_DIR / "korf100.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [int(x) for x in line.split()]
        rows.append((fields[0], from_korf(fields[1:17]), fields[17]))
    return tuple(rows)


@lru_cache(maxsize=1)
def hardest80() -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """The 17 positions 80 moves from the goal (section A of the file: already our convention)."""
    rows = []
    for line in (DATA_DIR / "hardest80.txt").read_text().splitlines():
        if line.startswith("# SECTION B"):
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()  # idx, 16 tiles, length, then Manhattan distance and another solver's figures
        rows.append((int(fields[0]), tuple(int(x) for x in fields[1:17]), int(fields[17])))
    return tuple(rows)


# --- instance sets (tests, bench) -------------------------------------------------------------

FIFTEEN = SlidingPuzzle(4, 4)


def run_set(instances, heuristic: str, *, parent_only: bool = False) -> dict[str, Any]:
    """Solve ``instances`` (index, board, optimal) with ``heuristic``; figures for the bench.

    Times are per solve, JIT and table loading excluded once warm; ``all_optimal`` means every
    solution replays to the goal in exactly the known optimal number of moves.  ``parent_only``: prune
    only the undoing of the last move, as the published node counts do, not every duplicate move string.
    """
    kind = _check_heuristic(FIFTEEN, heuristic)
    database = DATABASES.get(kind)
    table = _load(database, build=database == "pdb663") if database else None
    if database and table is None:
        raise KomaError(f"pattern database {LABELS[database]} is not built")
    times, nodes, optimal = [], 0, True
    for _, board, length in instances:
        run = _run(kind, FIFTEEN, board, stop=np.zeros(1, np.uint8), progress=None, table=table,
                   parent_only=parent_only)
        if FIFTEEN.replay(board, run.moves)[-1] != FIFTEEN.goal or len(run.moves) != length:
            optimal = False
        times.append(run.seconds)
        nodes += run.nodes
    total = sum(times)
    return {"heuristic": kind, "pruning": "parent" if parent_only else "duplicates",
            "instances": len(times), "total_seconds": round(total, 4),
            "median_instance_seconds": round(statistics.median(times), 5),
            "max_instance_seconds": round(max(times), 4),
            "nodes": nodes, "nodes_per_instance": round(nodes / len(times)) if times else 0,
            "nodes_per_second": round(nodes / total) if total else 0, "all_optimal": optimal}


def korf_subset(indices) -> list[tuple[int, tuple[int, ...], int]]:
    """Korf's instances with these indices."""
    return [k for k in korf100() if k[0] in indices]


def best_present() -> str:
    return "pdb78" if tables_present("pdb78") else "pdb663"


# --- the front: methods and dispatch (see :mod:`solver.solving`) ------------------------------------

def methods(puzzle: SlidingPuzzle) -> list[str]:
    """``table`` and ``bidirectional`` where a table exists, ``ida`` everywhere (optimal up to 4x4 and on
    the 5x5 with its tables, labelled non-optimal otherwise), ``reduction`` beyond 4x4 (fast, never
    proven optimal), and ``loop`` on the 15-puzzle; none beyond 5x5 (those boards are played, not solved)."""
    if not puzzle.solvable_by_koma:
        return []
    found = ["table", "bidirectional", "ida"] if puzzle.enumerable else ["ida"]
    if (puzzle.width, puzzle.height) == (4, 4):
        found.append("loop")
    if not small_enough(puzzle.width, puzzle.height):
        found.append("reduction")
    return found


def too_large(puzzle: SlidingPuzzle) -> str:
    """Why a board beyond 5x5 gets no solution (one line)."""
    return (f"Koma solves sliding boards up to {MAX_SOLVE_SIDE}x{MAX_SOLVE_SIDE}; the {puzzle.size_label} board can be "
            "played (koma play, speed), not solved")


def run(puzzle: SlidingPuzzle, state, method: str, *, stop=None, progress: Progress | None = None,
        **options) -> Solution:
    """Solve a solvable ``state`` with ``method`` (the table is the front door's own)."""
    if not puzzle.solvable_by_koma:
        raise KomaError(too_large(puzzle))
    if method == "bidirectional":
        return solve_bidirectional(puzzle, state, stop=stop)
    if method == "loop":
        return solve_by_loop(puzzle, state)
    if method == "reduction":
        return _solve_by_reduction(puzzle, tuple(state), heuristic=options.get("heuristic"), stop=stop,
                                   progress=progress, notice=options.get("notice"))
    return solve_sliding(puzzle, state, heuristic=options.get("heuristic"), stop=stop, progress=progress,
                         notice=options.get("notice"), limit=options.get("limit"), threads=options.get("threads"))


def refute_by_loop(puzzle: SlidingPuzzle, state) -> UnsolvableError:
    """Article 003's verdict on an unsolvable 15-puzzle board: where the loop method ends."""
    run_ = run_loop_method(state)
    ending = ", ".join(map(str, run_.final_labels[1:5]))
    return UnsolvableError(f"the loop method ended in {ending}, ... after {run_.length} moves, "
                           f"so this board cannot be solved", puzzle.proof(tuple(state)))


def solve_by_loop(puzzle: SlidingPuzzle, state) -> Solution:
    """Article 003's mindless loop method (15-puzzle only): never optimal, always finishes."""
    began = time.perf_counter()
    run_ = run_loop_method(state)
    return Solution(run_.moves, run_.path, False, run_.length, time.perf_counter() - began, "loop",
                    f"the loop method (article 003): {run_.loop_steps} loop moves + {run_.length - run_.loop_steps} "
                    f"back to the goal; not optimal")


def solve_bidirectional(puzzle: SlidingPuzzle, state, *, stop=None) -> Solution:
    """Article 002's bidirectional BFS; ``nodes`` is its count of generated (registered) states.

    The first meeting is a shortest path because the puzzle graph is bipartite (every move takes
    the blank to a cell of the other colour) and the shared queue is level-ordered: for a distance
    D = 2m the two halves of a shortest path meet while level m-1 is expanded, for D = 2m+1 while
    level m is, so the path found is at most D+1 long, and parity rules out D+1.
    """
    if not puzzle.enumerable:
        puzzle.rank(puzzle.goal)  # raises the model's own "too large for a table" error
    began = time.perf_counter()
    stop = new_stop_flag() if stop is None else stop
    parent = np.full(puzzle.n_ranks, -2, np.int64)
    side = np.full(puzzle.n_ranks, -1, np.int8)
    queue = np.empty(2 * puzzle.n_ranks, np.int64)
    a, b, registered = bidirectional_kernel(puzzle.params, pack(tuple(state)), pack(puzzle.goal), parent, side,
                                            queue, stop)
    if a < 0:
        if stop[0]:
            raise Cancelled()
        raise KomaError("no path between this board and the goal")

    def chain(packed: int) -> list[tuple[int, ...]]:
        boards = []
        while packed != -1:
            boards.append(unpack(packed, puzzle.cells))
            packed = int(parent[rank(boards[-1])])
        return boards

    forward = chain(int(a))[::-1]
    path = forward if a == b else forward + chain(int(b))
    moves = [puzzle.move_between(x, y) for x, y in itertools.pairwise(path)]
    seconds = time.perf_counter() - began
    return Solution(tuple(moves), tuple(path), True, int(registered), seconds, "bidirectional",
                    "bidirectional BFS (article 002); nodes = states it generated")
