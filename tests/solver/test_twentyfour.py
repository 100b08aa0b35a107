"""The 24-puzzle: the shared PDB engine on 5x5, the split two-core IDA*, Korf and Felner's data, the CLI.

The real 6-6-6-6 databases take minutes to build, so these tests search with small 5x5 patterns
(their sum is admissible too) through the same kernels, engine and driver; Korf and Felner's
instances run in ``koma bench 24``.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque

import numpy as np
import pytest

from solver.engines.pdb import build_pattern, multipliers, n_placements
from solver.engines.tables import write_table
from solver.errors import Cancelled, GaveUp
from solver.sliding import search_kernels as kernels
from solver.sliding import tables as sliding_tables
from solver.sliding import twentyfour
from solver.sliding.korf_felner import EASIEST
from solver.sliding.model import SlidingPuzzle
from tui.main import main

P24 = SlidingPuzzle(5, 5)
SMALL_GROUPS = ((1, 2, 6, 7), (4, 5, 9, 10), (18, 19, 20, 23, 24))  # 303,600 + 303,600 + 6,375,600 placements


@pytest.fixture(scope="module")
def small():
    """Small 5x5 databases and their layout, in Korf and Felner's move order like the 6-6-6-6.

    They cover 13 of the 24 tiles (the others: a group of weight 0 with one entry, a 0, at the end).
    """
    table = np.concatenate([build_pattern(5, 5, g) for g in SMALL_GROUPS] + [np.zeros(1, np.uint8)])
    table.flags.writeable = False  # read-only as the game's are (np.load(mmap_mode='r')): the kernels' one compiled version serves both
    return table, kernels.pdb_tables(5, SMALL_GROUPS, reverse=True)


def bfs_distance(puzzle, start) -> int:
    """The plain breadth-first distance to the goal (from both ends, a whole layer at a time).

    Boards are bytes and a move swaps the blank with a cell next to it: the grid alone, none of the solver's code.
    """
    width, cells = puzzle.width, puzzle.width * puzzle.height
    beside = [[n for n in (c - width, c + width) if 0 <= n < cells]
              + [n for n in (c - 1, c + 1) if 0 <= n < cells and n // width == c // width] for c in range(cells)]

    def neighbours(board: bytes):
        blank = board.index(0)
        for cell in beside[blank]:
            child = bytearray(board)
            child[blank], child[cell] = board[cell], 0
            yield bytes(child)

    start, goal = bytes(start), bytes(puzzle.goal)
    sides = [{start: 0}, {goal: 0}]
    frontiers = [[start], [goal]]
    if start == goal:
        return 0
    while True:
        i = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        mine, other = sides[i], sides[1 - i]
        met = []
        grown = []
        for state in frontiers[i]:
            for child in neighbours(state):
                if child in other:
                    met.append(mine[state] + 1 + other[child])
                if child not in mine:
                    mine[child] = mine[state] + 1
                    grown.append(child)
        if met:
            return min(met)
        frontiers[i] = grown


def walk(seed: int, steps: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    state = P24.goal
    for _ in range(steps):
        state = P24.apply(state, rng.choice(P24.moves(state)))
    return state


def abstract_bfs(width: int, tiles) -> np.ndarray:
    """A pattern database by plain 0-1 BFS over (pattern cells, blank cell): pattern moves cost 1."""
    cells = width * width
    mult = multipliers(cells, len(tiles))

    def rank(pos):
        used, r = 0, 0
        for i, p in enumerate(pos):
            r += (p - bin(used & ((1 << p) - 1)).count("1")) * int(mult[i])
            used |= 1 << p
        return r

    start = (tuple(t - 1 for t in tiles), cells - 1)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        pos, blank = state = queue.popleft()
        d = dist[state]
        r, c = divmod(blank, width)
        for near in (blank - width if r else -1, blank + width if r < width - 1 else -1,
                     blank - 1 if c else -1, blank + 1 if c < width - 1 else -1):
            if near < 0:
                continue
            moved = near in pos
            child = (tuple(blank if p == near else p for p in pos), near) if moved else (pos, near)
            if child not in dist or dist[child] > d + moved:
                dist[child] = d + moved
                queue.append(child) if moved else queue.appendleft(child)
    nearest: dict[tuple[int, ...], int] = {}  # each placement's distance: the least over its blank cells
    for (pos, _blank), d in dist.items():
        nearest[pos] = min(nearest.get(pos, d), d)
    out = np.full(n_placements(cells, len(tiles)), 255, np.uint8)
    for pos, d in nearest.items():
        out[rank(pos)] = d
    return out


# --- the shared engine on 5x5 -------------------------------------------------------------------

@pytest.mark.parametrize("tiles", [(13, 18, 24), (1, 7, 23)])
def test_5x5_pattern_database_equals_a_plain_bfs(tiles):
    assert np.array_equal(build_pattern(5, 5, tiles), abstract_bfs(5, tiles))


@pytest.mark.parametrize("width, tiles", [(5, (1, 2, 6, 7)), (4, (1, 5, 6, 9, 10, 13))])
def test_two_threads_build_the_same_database_as_one(width, tiles):
    assert np.array_equal(build_pattern(width, width, tiles, threads=2), build_pattern(width, width, tiles))


def test_6666_layout_and_memory_figures():
    needs = sliding_tables.table_requirements("6-6-6-6")
    assert needs["entries"] == 4 * 127_512_000 and needs["board"] == "5x5"
    assert needs["build_memory_bytes"] <= 4 * 10**9  # two patterns at once: 2 x 1.02 GB workspace + the result
    groups = sliding_tables.PATTERNS["pdb6666"]
    assert sorted(t for g in groups for t in g) == list(range(1, 25))


# --- the optimal search ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bfs_boards():
    """Three walked boards (6, 16 and 30 moves from the goal) and their plain BFS distances, computed once for both
    thread counts: the 30-move BFS alone takes seconds."""
    boards = [walk(seed, steps) for seed, steps in ((1, 12), (1, 60), (2, 80))]
    return [(board, bfs_distance(P24, board)) for board in boards]


@pytest.mark.parametrize("threads", [1, 2])
def test_split_search_is_optimal_against_bfs_and_replays(small, bfs_boards, threads):
    table, meta = small
    for board, distance in bfs_boards:
        solution = twentyfour.solve_optimal(P24, board, table, meta=meta, threads=threads)
        assert solution.optimal and solution.length == distance
        path = P24.replay(board, solution.moves)
        assert path[-1] == P24.goal and tuple(solution.path) == path


def test_split_search_on_two_threads_finds_the_same_length_as_one(small):
    table, meta = small
    board = walk(3, 100)  # 32 moves
    one = twentyfour.solve_optimal(P24, board, table, meta=meta, threads=1)
    two = twentyfour.solve_optimal(P24, board, table, meta=meta, threads=2)
    assert one.length == two.length and P24.replay(board, two.moves)[-1] == P24.goal
    assert one.length % 2 == twentyfour.blank_parity(P24, board)


def test_limit_gives_up_with_a_proved_lower_bound_and_no_thread_left(small):
    table, meta = small
    board = P24.random_state(5)
    state = kernels.new_state(board)
    h0 = int(kernels.pdb_setup(state, (meta, table)))
    with pytest.raises(Cancelled):  # compiled first (a stop already set): what is timed below is the search alone
        twentyfour.solve_optimal(P24, board, table, meta=meta, stop=np.ones(1, np.uint8))
    began = time.perf_counter()
    with pytest.raises(GaveUp) as gave_up:
        twentyfour.solve_optimal(P24, board, table, meta=meta, limit=0.5)
    assert time.perf_counter() - began < 3
    assert gave_up.value.lower_bound >= h0 and gave_up.value.nodes > 0
    assert "at least" in str(gave_up.value)
    assert not [t for t in threading.enumerate() if t.name.startswith("koma-ida-")]


def test_stop_flag_cancels_both_workers_at_once(small):
    table, meta = small
    with pytest.raises(Cancelled):  # compiled first (a stop already set): what is timed below is the search alone
        twentyfour.solve_optimal(P24, P24.random_state(6), table, meta=meta, stop=np.ones(1, np.uint8))
    stop = np.zeros(1, np.uint8)
    threading.Timer(0.3, lambda: stop.__setitem__(0, 1)).start()
    began = time.perf_counter()
    with pytest.raises(Cancelled):
        twentyfour.solve_optimal(P24, P24.random_state(6), table, meta=meta, stop=stop)
    assert time.perf_counter() - began < 2
    assert not [t for t in threading.enumerate() if t.name.startswith("koma-ida-")]


def test_progress_reports_bound_nodes_and_rate(small):
    table, meta = small
    seen = []
    twentyfour.solve_optimal(P24, walk(3, 100), table, meta=meta, progress=seen.append)
    assert seen and {"bound", "lower_bound", "nodes", "nodes_per_second", "heuristic"} <= set(seen[-1])


# --- Korf and Felner's instances ---------------------------------------------------------------------

def test_korf50_data_maps_to_our_goal():
    rows = twentyfour.korf50()
    assert [r[0] for r in rows] == list(range(1, 51))
    assert sum(r[2] for r in rows) / 50 == pytest.approx(100.78)
    for _, board, length, nodes in rows:
        assert P24.proof(board).solvable and sorted(board) == list(range(25)) and nodes > 0
        assert length % 2 == twentyfour.blank_parity(P24, board)
    assert twentyfour.from_korf(list(range(25))) == P24.goal  # Korf's goal is ours turned half round
    assert [r[0] for r in sorted(rows, key=lambda r: r[3])[:15]] == list(EASIEST)


# --- tables, CLI -------------------------------------------------------------------------------------

def test_damaged_or_foreign_6666_file_is_refused_with_the_build_command(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(sliding_tables._loaded, "pdb6666", raising=False)
    path = tmp_path / "tables" / "twentyfour-pdb6666.npy"
    write_table(path, np.zeros(1000, np.uint8), sliding_tables.TABLE_VERSION)  # sound, but not this table
    told = []
    assert twentyfour.tables(told.append) is None
    assert "koma tables build sliding --size 5x5" in told[0] and "expected 510,048,000" in told[0]
    path.write_bytes(path.read_bytes()[:500])  # truncated
    told.clear()
    assert twentyfour.tables(told.append) is None and "damaged" in told[0]


def test_cli_without_tables_answers_by_reduction_and_says_how_to_build(monkeypatch, capsys):
    monkeypatch.setattr(twentyfour, "tables", lambda notice=None: None)  # as if never built
    board = " ".join(map(str, walk(11, 30)))
    assert main(["solve", "sliding", "--size", "5x5", board]) == 0
    out, err = capsys.readouterr()
    assert "NOT proven optimal" in out and "koma tables build sliding --size 5x5" in err


@pytest.mark.parametrize("argv, words", [
    (["solve", "sliding", "--size", "5x5", "1 2 3", "--limit", "soon"], "--limit takes a positive number"),
    (["solve", "sliding", "--size", "5x5", "1 2 3", "--limit", "0"], "--limit takes a positive number"),
    (["tables", "build", "sliding", "--size", "3x3"], "--size 4x4 or 5x5"),
    (["tables", "build", "sliding"], "--size 4x4 or 5x5"),
    (["tables", "build", "sliding", "--size", "5x5", "--pdb", "7-8"], "one pattern database, 6-6-6-6"),
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(argv) == 2
    _out, err = capsys.readouterr()
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
