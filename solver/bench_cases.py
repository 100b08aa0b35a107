"""The sliding-puzzle cases of ``koma bench`` (see :mod:`solver.bench`)."""

from __future__ import annotations

from .bench import benchmark
from .ranking import rank_unrank_roundtrip
from .sliding import SlidingPuzzle

EIGHT = SlidingPuzzle(3, 3)
ARTICLE_START = (8, 6, 7, 2, 5, 4, 3, 0, 1)
RANK_COUNT = 1_000_000


@benchmark("8-puzzle full BFS", "8", target="<= 10 ms warm")
def _eight_bfs():
    depth, queue, layers = EIGHT.bfs_arrays()
    return {"states": int(len(queue)), "max_depth": int(len(layers) - 1)}


@benchmark("rank+unrank, 9 cells (1 M pairs)", "8")
def _rank_unrank():
    ok = rank_unrank_roundtrip(RANK_COUNT, 9, 7919)
    assert ok == RANK_COUNT
    return {"pairs": RANK_COUNT}


@benchmark("8-puzzle bidirectional BFS (article board)", "8")
def _eight_bidirectional():
    solution = EIGHT.solve(ARTICLE_START, "bidirectional")
    return {"length": solution.length, "generated": solution.nodes}


def pairs_per_second(result) -> float:
    return result.figures.get("pairs", 0) / result.median_seconds if result.median_seconds else float("nan")

