"""The sliding-puzzle IDA* solver: heuristics, pattern databases, benchmark data, big boards."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest
from pdb_reference import brute_force_pattern

from koma_bench import solver_cases
from solver.engines.pdb import build_pattern, multipliers, n_placements, placement_rank, placement_unrank
from solver.errors import Cancelled, KomaError, UnsolvableError
from solver.sliding import search as fifteen
from solver.sliding import search_kernels as kernels
from solver.sliding import tables as sliding_tables
from solver.sliding.model import SlidingPuzzle

FIFTEEN = SlidingPuzzle(4, 4)
EIGHT = SlidingPuzzle(3, 3)
NO_CUTOFF = 1 << 60  # a search bound that never prunes, so the kernels compute every estimate in full


def assert_solves(puzzle, start, solution):
    path = puzzle.replay(start, solution.moves)
    assert path[-1] == puzzle.goal
    assert tuple(solution.path) == path


@pytest.fixture(scope="session")
def pdb663():
    """The real 6-6-3 databases, built once in the session's private cache."""
    info = fifteen.build_tables("6-6-3")
    assert info["entries"] == 2 * 5_765_760 + 3_360
    return info


# --- benchmark data ---------------------------------------------------------------------------

def test_korf_data_maps_to_our_goal_without_changing_the_estimates():
    rows = fifteen.korf100()
    assert len(rows) == 100 and sum(r[2] for r in rows) == 5305
    table = kernels.mdlc_tables(4, 4)
    for line in (fifteen.DATA_DIR / "korf100.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = [int(x) for x in line.split()]
        board = fifteen.from_korf(fields[1:17])
        assert FIFTEEN.proof(board).solvable
        # Manhattan + linear conflict is symmetric under the map, so it matches the file's column
        assert kernels.mdlc_setup(kernels.new_state(board), table) == fields[19]


def test_hardest_positions_both_sections_agree():
    section_a = {board for _, board, _ in fifteen.hardest80()}
    section_b = set()
    in_b = False
    for line in (fifteen.DATA_DIR / "hardest80.txt").read_text().splitlines():
        in_b = in_b or line.startswith("# SECTION B")
        if in_b and line.strip() and not line.startswith("#"):
            section_b.add(fifteen.from_korf([int(x) for x in line.split()[1:17]]))
    assert len(section_a) == 17 and section_a == section_b
    assert all(length == 80 and FIFTEEN.proof(b).solvable for _, b, length in fifteen.hardest80())


# --- optimal lengths --------------------------------------------------------------------------

@pytest.mark.slow  # a long search: the whole run has it, the everyday loop does not
@pytest.mark.parametrize("heuristic", ["md+lc", "wd"])
def test_korf_subset_without_tables(heuristic):
    for _, board, length in fifteen.korf100():
        if _ in solver_cases.QUICK_KORF:
            solution = fifteen.solve_sliding(FIFTEEN, board, heuristic=heuristic)
            assert solution.length == length and solution.optimal
            assert_solves(FIFTEEN, board, solution)


def test_korf_subset_with_pattern_databases(pdb663):
    chosen = [row for row in fifteen.korf100() if row[0] <= 30]
    figures = fifteen.run_set(chosen, "pdb663")
    assert figures["all_optimal"] and figures["instances"] == 30
    solution = fifteen.solve_sliding(FIFTEEN, chosen[0][1])  # default: the strongest present
    assert solution.method == "ida*:pdb663" and solution.length == chosen[0][2]
    assert_solves(FIFTEEN, chosen[0][1], solution)


@pytest.mark.slow  # a long search: the whole run has it, the everyday loop does not
def test_ida_agrees_with_the_eight_puzzle_table():
    table = EIGHT.depth_table()
    rng = random.Random(8)
    for i in range(300):
        board = EIGHT.random_state(rng.randrange(10**9))
        heuristic = ("wd", "md+lc")[i % 2]
        solution = fifteen.solve_sliding(EIGHT, board, heuristic=heuristic)
        assert solution.length == table.distance(EIGHT, board)
        assert_solves(EIGHT, board, solution)
    deepest = EIGHT.unrank(int(table.ranks_at(31)[0]))
    assert fifteen.solve_sliding(EIGHT, deepest).length == 31


@pytest.mark.slow  # a long search: the whole run has it, the everyday loop does not
@pytest.mark.parametrize("size", [(3, 4), (4, 3), (2, 5), (2, 2)])
def test_other_sizes_agree_between_heuristics(size):
    puzzle = SlidingPuzzle(*size)
    for seed in range(3):
        board = puzzle.random_state(seed)
        a = fifteen.solve_sliding(puzzle, board, heuristic="wd")
        b = fifteen.solve_sliding(puzzle, board, heuristic="md+lc")
        assert a.length == b.length and a.optimal
        assert_solves(puzzle, board, a)
        assert_solves(puzzle, board, b)


def test_goal_and_unsolvable_boards():
    assert fifteen.solve_sliding(FIFTEEN, FIFTEEN.goal, heuristic="wd").length == 0
    swapped = FIFTEEN.swap_first_tiles(FIFTEEN.goal)
    with pytest.raises(UnsolvableError) as error:
        fifteen.solve_sliding(FIFTEEN, swapped)
    assert error.value.proof is not None and not error.value.proof.solvable


def test_heuristic_names_are_checked():
    assert fifteen.available_heuristics(EIGHT) == ["wd", "md+lc"]
    assert fifteen.available_heuristics(FIFTEEN)[-2:] == ["wd", "md+lc"]
    with pytest.raises(KomaError):
        fifteen.solve_sliding(FIFTEEN, FIFTEEN.goal, heuristic="nope")
    with pytest.raises(KomaError):
        fifteen.solve_sliding(EIGHT, EIGHT.goal, heuristic="pdb663")


@pytest.mark.parametrize("size", [(3, 5), (5, 3)])
def test_three_by_five_is_solved_optimally(size):
    puzzle = SlidingPuzzle(*size)
    board = puzzle.random_state(0)
    solution = fifteen.solve_sliding(puzzle, board)
    assert solution.optimal and solution.method == "ida*:wd"
    assert_solves(puzzle, board, solution)


# --- big boards -------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(5, 5), (4, 5), (5, 4)])
def test_big_boards_get_a_labelled_solution(size, pdb663):
    puzzle = SlidingPuzzle(*size)
    for seed in range(2):
        board = puzzle.random_state(seed)
        solution = fifteen.solve_sliding(puzzle, board)
        assert not solution.optimal and "not proven optimal" in solution.note.lower()
        assert_solves(puzzle, board, solution)


# --- pattern databases ------------------------------------------------------------------------

@pytest.mark.parametrize("width,height,tiles", [(3, 3, [1, 2, 3]), (3, 3, [1, 2, 4, 5]), (4, 4, [11, 12, 15]),
                                                (3, 4, [1, 5, 9]), (4, 3, [2, 7])])
def test_pattern_database_matches_brute_force(width, height, tiles):
    assert np.array_equal(build_pattern(width, height, tiles), brute_force_pattern(width, height, tiles))


def test_placement_rank_round_trips():
    mult = multipliers(16, 5)
    pos = np.empty(5, np.int64)
    for r in (0, 1, 12345, n_placements(16, 5) - 1):
        placement_unrank(r, 5, mult, pos)
        assert len(set(pos.tolist())) == 5 and placement_rank(pos, 5, mult) == r


def test_pattern_estimate_is_admissible_on_the_eight_puzzle():
    """Pattern databases of the 8-puzzle never exceed the true distance (checked on every board)."""
    groups = ((1, 2, 4, 5), (3, 6, 7, 8))
    data = np.concatenate([build_pattern(3, 3, g) for g in groups])
    data.flags.writeable = False  # read-only as the game's are (np.load(mmap_mode='r')): the kernels' one compiled version serves both
    table = EIGHT.depth_table()
    meta = kernels.pdb_tables(3, groups)
    rng = random.Random(3)
    for _ in range(2000):
        board = EIGHT.random_state(rng.randrange(10**9))
        h = kernels.pdb_setup(kernels.new_state(board), (meta, data))
        assert h <= table.distance(EIGHT, board)


def test_incremental_pattern_values_match_a_fresh_computation(pdb663):
    """Walk randomly; after every move the kernel's running values equal a recomputation."""
    meta = fifteen._pdb_meta("pdb663")
    data = fifteen._load("pdb663")
    rng = random.Random(5)
    board = FIFTEEN.random_state(1)
    state = kernels.new_state(board)
    kernels.pdb_setup(state, (meta, data))
    for _ in range(500):
        m = rng.randrange(4)
        h = kernels.pdb_try(state, m, 0, NO_CUTOFF, (meta, data))
        if h < 0:
            continue
        board = tuple(int(x) for x in state[:16])
        fresh = kernels.new_state(board)
        assert kernels.pdb_setup(fresh, (meta, data)) == h
        state[kernels.SP] = 0


def test_a_move_pruned_on_one_side_is_undone_exactly(pdb663):
    """With a cutoff that prunes every child, the kernel may skip the mirror side; undo still restores all."""
    meta = fifteen._pdb_meta("pdb663")
    data = fifteen._load("pdb663")
    rng = random.Random(7)
    for seed in range(20):
        state = kernels.new_state(FIFTEEN.random_state(seed))
        kernels.pdb_setup(state, (meta, data))
        live = slice(0, kernels.STACK)  # entries above the undo stack's top are scratch
        before = state[live].copy()
        for m in range(4):
            full = kernels.pdb_try(state, m, 0, NO_CUTOFF, (meta, data))
            if full < 0:
                continue
            kernels.pdb_undo(state, m, (meta, data))
            assert np.array_equal(state[live], before)
            cutoff = rng.randrange(-1, full)
            lazy = kernels.pdb_try(state, m, 0, cutoff, (meta, data))
            assert cutoff < lazy <= full  # still a lower bound, and still prunes
            kernels.pdb_undo(state, m, (meta, data))
            assert np.array_equal(state[live], before)


def test_corrupt_or_partial_table_is_rebuilt(monkeypatch, tmp_path):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(fifteen.PATTERNS, "pdb663", ((1, 2), (3, 4, 5)))
    monkeypatch.setattr(sliding_tables, "_loaded", {})
    good = fifteen.build_tables("6-6-3")
    assert good["built"] and not fifteen.build_tables("6-6-3")["built"]
    path = tmp_path / "tables" / "fifteen-pdb663.npy"
    expected = np.array(np.load(path, mmap_mode="r"))
    for damage in ("truncate", "flip"):
        raw = bytearray(path.read_bytes())
        if damage == "truncate":
            raw = raw[: len(raw) // 2]
        else:
            raw[200] ^= 0xFF
        path.write_bytes(bytes(raw))
        sliding_tables._loaded.clear()
        notices = []
        assert fifteen._load("pdb663", notice=notices.append, build=False) is None
        assert notices and "damaged" in notices[0]
        rebuilt = fifteen.build_tables("6-6-3", notice=notices.append)
        assert rebuilt["built"] and len(notices) == 1 and "rebuilding it" in notices[0]  # one damaged file, one notice
        assert np.array_equal(np.load(path, mmap_mode="r"), expected)


def test_seven_eight_is_built_only_on_request(monkeypatch, tmp_path):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sliding_tables, "_loaded", {})
    assert "pdb78" not in fifteen.available_heuristics(FIFTEEN)
    with pytest.raises(KomaError, match="koma tables build 15 --pdb 7-8"):
        fifteen.solve_sliding(FIFTEEN, FIFTEEN.goal, heuristic="pdb78")


def test_requirements_are_stated_up_front():
    info = fifteen.table_requirements("7-8")
    assert info["entries"] == 57_657_600 + 518_918_400
    assert info["build_memory_bytes"] < 4 * 2**30 and info["disk_bytes"] > info["entries"]
    with pytest.raises(KomaError):
        fifteen.table_requirements("5-5-5")


# --- cancellation -----------------------------------------------------------------------------

@pytest.mark.parametrize("heuristic", ["md+lc", "wd"])
def test_cancellation_mid_search_returns_promptly(heuristic):
    board = next(b for i, b, _ in fifteen.korf100() if i == 3)  # tens of millions of nodes
    fifteen.solve_sliding(FIFTEEN, FIFTEEN.goal, heuristic=heuristic)  # compile first
    stop = np.zeros(1, np.uint8)
    outcome = []

    def target():
        try:
            fifteen.solve_sliding(FIFTEEN, board, heuristic=heuristic, stop=stop)
            outcome.append("finished")
        except Cancelled:
            outcome.append("cancelled")

    worker = threading.Thread(target=target)
    worker.start()
    time.sleep(0.3)
    stopped_at = time.perf_counter()
    stop[0] = 1
    worker.join(5)
    assert not worker.is_alive() and outcome == ["cancelled"]
    assert time.perf_counter() - stopped_at < 1.0


def test_cancelling_a_table_build():
    stop = np.ones(1, np.uint8)
    with pytest.raises(Cancelled):
        build_pattern(4, 4, [1, 2, 3, 4, 5], stop=stop)


def test_progress_reports_bound_and_nodes():
    seen = []
    board = next(b for i, b, _ in fifteen.korf100() if i == 2)
    fifteen.solve_sliding(FIFTEEN, board, heuristic="md+lc", progress=seen.append)
    assert seen and all(s["phase"] == "search" for s in seen)
    assert {"bound", "nodes", "nodes_per_second", "heuristic"} <= set(seen[-1])
