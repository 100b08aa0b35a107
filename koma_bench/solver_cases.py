"""The solver's cases of ``koma bench`` (its groups 8, goat, ura, 15 and 24), in one literal table (see
:mod:`koma_bench.harness`; :mod:`koma_bench.cases` holds every table).

Each case imports what it measures when it runs, so listing the cases is cheap.
"""

from __future__ import annotations

import functools
from typing import Any

from koma_bench.harness import Case

ARTICLE_START = (8, 6, 7, 2, 5, 4, 3, 0, 1)
RANK_COUNT = 1_000_000
QUICK_KORF = (2, 4, 5, 9, 13, 19)  # a handful that every heuristic solves in well under a second
SKIPPED_78 = {"skipped": "pattern database 7-8 is not built (koma tables build 15 --pdb 7-8)"}


# --- 8-puzzle -----------------------------------------------------------------------------------------

def _eight():
    from solver.sliding.model import SlidingPuzzle

    return SlidingPuzzle(3, 3)


def eight_bfs() -> dict[str, Any]:
    _depth, queue, layers = _eight().bfs_arrays()
    return {"states": len(queue), "max_depth": int(len(layers) - 1)}


def rank_unrank() -> dict[str, Any]:
    from solver.engines.ranking import rank_unrank_roundtrip

    ok = rank_unrank_roundtrip(RANK_COUNT, 9, 7919)
    assert ok == RANK_COUNT
    return {"pairs": RANK_COUNT}


def eight_bidirectional() -> dict[str, Any]:
    from solver.solving import solve

    solution = solve(_eight(), ARTICLE_START, "bidirectional")
    return {"length": solution.length, "generated": solution.nodes}


def pairs_per_second(result) -> float:
    return result.figures.get("pairs", 0) / result.median_seconds if result.median_seconds else float("nan")


# --- Goat ---------------------------------------------------------------------------------------------

def goat_bfs() -> dict[str, Any]:
    from solver.goat.model import GoatPuzzle

    _depth, queue, layers = GoatPuzzle().bfs_arrays()
    return {"states": len(queue), "max_depth": int(len(layers) - 1)}


def goat_table_load() -> dict[str, Any]:
    """Read, checksum and memory-map the cached depth table (built first if missing), then count it."""
    from solver.goat.model import load_cached_depth

    table = load_cached_depth()
    return {"states": table.states, "max_depth": table.max_depth, "bytes": int(table.depth.nbytes)}


def goat_ida(method: str) -> dict[str, Any]:
    """Solve the article's 52-move board ``WdBB/jSi-/.-lr`` with ``method``; nodes, length and speed."""
    from solver.goat.model import ARTICLE_LONGEST
    from solver.goat.search import heuristic, solve_ida

    result, _ = solve_ida(ARTICLE_LONGEST, method)
    return {"length": len(result.moves), "nodes": result.nodes, "h0": heuristic(ARTICLE_LONGEST, method),
            "search_seconds": round(result.seconds, 4), "nodes_per_second": round(result.nodes_per_second)}


# --- Ura-omote ----------------------------------------------------------------------------------------

def ura_bfs(width: int, height: int) -> dict[str, Any]:
    from solver.ura.model import UraPuzzle

    _depth, queue, layer_ends = UraPuzzle(width, height).bfs_arrays()
    at_max = int(layer_ends[-1] - (layer_ends[-2] if len(layer_ends) > 1 else 0))
    return {"states": len(queue), "max_depth": int(len(layer_ends) - 1), "at_max_depth": at_max}


# --- 15-puzzle ----------------------------------------------------------------------------------------

def fifteen_build(name: str) -> dict[str, Any]:
    """6-6-3 in memory, here; 7-8 in a child process (its measured peak memory, its file size)."""
    from solver.sliding.search import build_in_memory

    return build_in_memory(name) if name == "pdb663" else build_in_a_child(name)


BUILD_SCRIPT = """
import json, os, resource, sys, tempfile, time
from pathlib import Path
import tui  # the product says where the table cache is ($KOMA_CACHE_DIR)
from solver.engines.tables import cache_dir
from solver.sliding import tables as t
name = sys.argv[1]
t.table_requirements(name)  # the space of each pattern, as a build needs it first
began = time.perf_counter()
if t.tables_present(name):
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir()) as scratch:
        path = Path(scratch) / "table.npy"
        t.build_file(name, path)
        seconds, disk = time.perf_counter() - began, path.stat().st_size
    where = "a scratch file (the cached table is kept)"
else:
    info = t.build_tables(name)
    seconds, disk = time.perf_counter() - began, os.path.getsize(info["path"])
    where = "the table cache"
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
peak = int(status["VmHWM"].split()[0]) * 1024 if "VmHWM" in status else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"build_seconds": round(seconds, 1), "peak_rss_bytes": peak, "peak_rss_mib": round(peak / 2**20),
                  "disk_bytes": disk, "built_into": where}))
"""


def build_in_a_child(name: str) -> dict[str, Any]:
    """Build pattern database ``name`` (``pdb78``, ``pdb6666``) in a child process (into the cache when it is missing,
    else into a scratch file next to it): the build's seconds, its measured peak resident memory (the child's
    high-water mark) and the file's size."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)  # this checkout's solver, when run from one
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-c", BUILD_SCRIPT, name], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {"failed": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(done.stdout)


def fifteen_quick(kind: str) -> dict[str, Any]:
    from solver.sliding.search import korf_subset, run_set, tables_present

    if kind.startswith("pdb78") and not tables_present("pdb78"):
        return dict(SKIPPED_78)
    return run_set(korf_subset(QUICK_KORF), kind)


def fifteen_full(kind: str, parent_only: bool = False) -> dict[str, Any]:
    from solver.sliding.search import korf100, run_set, tables_present

    if kind.startswith("pdb78") and not tables_present("pdb78"):
        return dict(SKIPPED_78)
    run_set(korf100()[:1], kind, parent_only=parent_only)  # load the kernel and the table before the clock starts
    return run_set(korf100(), kind, parent_only=parent_only)


def fifteen_hardest() -> dict[str, Any]:
    from solver.sliding.search import best_present, hardest80, korf100, run_set

    kind = best_present()
    run_set(korf100()[:1], kind)
    return run_set(hardest80(), kind)


# --- 24-puzzle ----------------------------------------------------------------------------------------

_twentyfour_figures: dict[int, dict[str, Any]] = {}  # the instances solved so far in this run, for the summary


def twentyfour(what: str, index: int = 0) -> dict[str, Any]:
    """``build``: 6-6-6-6 in a child process; ``instance``: Korf and Felner's ``index``; ``summary``: of those."""
    from solver.sliding import twentyfour as module

    if what == "build":
        return build_in_a_child(module.NAME)
    if what == "summary":
        return twentyfour_summary()
    return twentyfour_instance(index)


def twentyfour_instance(index: int) -> dict[str, Any]:
    """Solve Korf and Felner's instance ``index``: length (replayed), nodes, seconds, and the ratio to their nodes."""
    from solver.sliding import twentyfour as module
    from solver.sliding.model import SlidingPuzzle
    from solver.sliding.tables import table_requirements

    table = module.tables()
    if table is None:
        return {"skipped": f"the 6-6-6-6 tables are not built ({table_requirements(module.NAME)['build_command']})"}
    puzzle = SlidingPuzzle(5, 5)
    _, board, length, their_nodes = module.instance(index)
    solution = module.solve_optimal(puzzle, board, table)
    reached = puzzle.replay(board, solution.moves)[-1] == puzzle.goal
    figures = {"length": solution.length, "published": length, "optimal": reached and solution.length == length,
               "nodes": solution.nodes, "kf_nodes": their_nodes, "ratio": round(solution.nodes / their_nodes, 3),
               "seconds": round(solution.seconds, 2), "nodes_per_second": round(solution.nodes / solution.seconds),
               "threads": module.workers()}
    _twentyfour_figures[index] = figures
    return figures


def twentyfour_summary() -> dict[str, Any]:
    """The instances solved so far in this run: all optimal?, the slowest, node totals and their ratio."""
    done = [f for f in _twentyfour_figures.values() if "nodes" in f]
    if not done:
        return {"skipped": "no instance was solved"}
    nodes, theirs, seconds = (sum(f[k] for f in done) for k in ("nodes", "kf_nodes", "seconds"))
    return {"instances": len(done), "all_optimal": all(f["optimal"] for f in done),
            "max_seconds": max(f["seconds"] for f in done), "total_seconds": round(seconds, 1), "nodes": nodes,
            "kf_nodes": theirs, "ratio": round(nodes / theirs, 3), "nodes_per_second": round(nodes / seconds)}


def twentyfour_cases() -> tuple[Case, ...]:
    """``koma bench 24`` (long: only when named): the 6-6-6-6 build, then Korf and Felner's 15 easiest."""
    from solver.sliding.korf_felner import EASIEST

    return (
        Case("24-puzzle: pattern databases 6-6-6-6 build (child process)", "24", lambda: twentyfour("build"),
             target="<= 10 min, <= 4 GB", runs=0, on_request=True),
        *(Case(f"24-puzzle: Korf-Felner #{i}", "24", functools.partial(twentyfour, "instance", i),
               target="<= 60 s" if n < 5 else "<= 5 min", runs=0, on_request=True) for n, i in enumerate(EASIEST)),
        Case("24-puzzle: the 15 easiest, in all", "24", lambda: twentyfour("summary"), runs=0, on_request=True),
    )


CASES: tuple[Case, ...] = (
    Case("8-puzzle full BFS", "8", eight_bfs, target="<= 10 ms warm"),
    Case("rank+unrank, 9 cells (1 M pairs)", "8", rank_unrank),
    Case("8-puzzle bidirectional BFS (article board)", "8", eight_bidirectional),
    Case("Goat full BFS", "goat", goat_bfs, target="<= 0.5 s warm"),
    Case("Goat table load", "goat", goat_table_load),
    Case("Goat IDA* article bound (52-move)", "goat", lambda: goat_ida("article"), target="<= 5 s", runs=2),
    Case("Goat IDA* pdb (52-move)", "goat", lambda: goat_ida("pdb"), target="<= 0.5 s"),
    Case("Ura-omote 5x5 full BFS", "ura", lambda: ura_bfs(5, 5), target="<= 50 ms warm"),
    Case("Ura-omote 6x6 full BFS", "ura", lambda: ura_bfs(6, 6), target="<= 1.5 s", runs=3),
    Case("15-puzzle: pattern database 6-6-3 build", "15", lambda: fifteen_build("pdb663"), target="<= 10 s", runs=1),
    Case("15-puzzle: pattern database 7-8 build", "15", lambda: fifteen_build("pdb78"),
         target="<= 60 s, <= 600 MB peak RSS, <= 600 MB on disk", runs=0),
    *(Case(f"15-puzzle: Korf {list(QUICK_KORF)} with {kind}", "15", functools.partial(fifteen_quick, kind), runs=1)
      for kind in ("md+lc", "wd", "pdb663", "pdb78", "pdb78+dual")),
    *(Case(f"15-puzzle: Korf's 100 with {kind}", "15", functools.partial(fifteen_full, kind), target=target,
           quick=False, runs=0)
      for kind, target in (("md+lc", ""), ("wd", ""), ("pdb663", "<= 30 s total"), ("pdb78", "<= 5 s total"),
                           ("pdb78+dual", "< 25,000 nodes per instance, faster than parent pruning's pdb78"))),
    *(Case(f"15-puzzle: Korf's 100 with {kind}, parent pruning only (as published)", "15",
           functools.partial(fifteen_full, kind, True), target=target, quick=False, runs=0)
      for kind, target in (("pdb78", "Felner, Korf & Hanan: 36,710 nodes per instance"),
                           ("pdb78+dual", "fewer nodes than pdb78"))),
    Case("15-puzzle: the 17 positions at 80 moves, best heuristic", "15", fifteen_hardest,
         target="<= 10 s each with 7-8", quick=False, runs=0),
    *twentyfour_cases(),
)
