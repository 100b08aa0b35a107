"""Every case of ``koma bench``, in one literal table (see :mod:`solver.tools.bench`).

Each case imports what it measures when it runs, so listing the cases is cheap.
"""

from __future__ import annotations

import functools
from typing import Any

from solver.errors import KomaError, shown
from solver.tools.bench import Case

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
    from solver.goat.search import bench_figures

    return bench_figures(method)


# --- Ura-omote ----------------------------------------------------------------------------------------

def ura_bfs(width: int, height: int) -> dict[str, Any]:
    from solver.ura.model import UraPuzzle

    _depth, queue, layer_ends = UraPuzzle(width, height).bfs_arrays()
    at_max = int(layer_ends[-1] - (layer_ends[-2] if len(layer_ends) > 1 else 0))
    return {"states": len(queue), "max_depth": int(len(layer_ends) - 1), "at_max_depth": at_max}


# --- 15-puzzle ----------------------------------------------------------------------------------------

def fifteen_build(name: str) -> dict[str, Any]:
    """6-6-3 in memory, here; 7-8 in a child process (its measured peak memory, its file size)."""
    from solver.sliding.search import bench_build, build_in_memory

    return build_in_memory(name) if name == "pdb663" else bench_build(name)


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

def twentyfour(what: str, index: int = 0) -> dict[str, Any]:
    from solver.sliding import twentyfour as module

    if what == "build":
        return module.bench_build()
    if what == "summary":
        return module.bench_summary()
    return module.bench_instance(index)


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
def groups(extra: tuple[Case, ...] = ()) -> list[str]:
    """The groups of the table and of ``extra`` (cases the caller adds: ``koma serve``'s, from the tui side)."""
    return list(dict.fromkeys(case.group for case in (*CASES, *extra)))


def cases(wanted: list[str] | None = None, full: bool = False, extra: tuple[Case, ...] = ()) -> list[Case]:
    """The cases of the groups ``wanted`` (all but the on-request ones when empty), with ``extra`` ones added
    by the caller; long ones only with ``full``.  Raises KomaError naming an unknown group and the known ones.
    """
    known = groups(extra)
    for group in wanted or ():
        if group not in known:
            raise KomaError(f"unknown benchmark group {shown(group)}; choose from {', '.join(known)}")
    return [c for c in (*CASES, *extra) if (c.group in wanted if wanted else not c.on_request) and (full or c.quick)]
