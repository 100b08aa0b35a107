"""The dual lookup of the sliding puzzles' pattern databases (issue 27): admissible, optimal, kept right."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver.engines.pdb import build_pattern
from solver.engines.permutations import unpack
from solver.sliding import dual as dual_kernels
from solver.sliding import search as fifteen
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle

EIGHT = SlidingPuzzle(3, 3)
FIFTEEN = SlidingPuzzle(4, 4)
NO_CUTOFF = 1 << 60
QUICK = (2, 4, 5, 9, 13, 19)  # Korf's instances that 6-6-3 solves in well under a second each


@pytest.fixture(scope="module")
def eight_distances():
    """Every 8-puzzle board and its exact distance, by BFS from the goal (unpacked once, for every check below)."""
    _depth, queue, layer_ends = EIGHT.bfs_arrays()
    distances = np.repeat(np.arange(len(layer_ends)), np.diff(np.concatenate([[0], layer_ends])))
    assert len(queue) == 181_440 == len(distances)
    return [unpack(int(packed), 9) for packed in queue], distances.tolist()


def eight_tables(groups):
    data = np.concatenate([build_pattern(3, 3, g) for g in groups])
    data.flags.writeable = False  # read-only as the game's are (np.load(mmap_mode='r')): the kernels' one compiled version serves both
    return dual_kernels.pdb_dual_tables(3, groups), data


def estimates(board, tables) -> tuple[int, int]:
    """(regular, dual) for ``board``, by the kernels' own code."""
    state = kernels.new_state(board)
    kernels.pdb_setup(state, tables)
    regular, dual = dual_kernels.pdb_dual_estimates(state, tables)
    return int(regular), int(dual)


@pytest.fixture(scope="module")
def pdb663():
    fifteen.build_tables("6-6-3")
    return fifteen._pdb_dual_meta("pdb663"), fifteen._load("pdb663")


# --- admissibility, on every board of the 8-puzzle ------------------------------------------------

@pytest.mark.parametrize("groups", [((1, 2, 3, 4), (5, 6, 7, 8)), ((1, 2, 4, 5), (3, 6, 7, 8)),
                                    ((1, 2, 3), (4, 5, 6), (7, 8))])
def test_dual_estimate_never_exceeds_the_distance_on_any_eight_puzzle_board(groups, eight_distances):
    """Checked on all 181,440 boards against BFS distances; and the dual is not trivially small."""
    boards, distances = eight_distances
    tables = eight_tables(groups)
    over, at_least, above = 0, 0, 0
    for board, distance in zip(boards, distances):
        regular, dual = estimates(board, tables)
        over += dual > distance
        at_least += dual >= regular
        above += dual > regular
    assert over == 0
    assert at_least > 0.25 * len(boards) and above > 0.03 * len(boards)  # measured: 31-37% and 6-10%


def test_the_check_catches_a_dual_without_the_blank_path_loss(eight_distances):
    """The same exhaustive check fails for the unsound variant that forgets the tiles the blank's path shifts."""
    boards, distances = eight_distances
    meta, data = eight_tables(((1, 2, 3, 4), (5, 6, 7, 8)))
    meta[dual_kernels.T_DUAL_LOSS:dual_kernels.T_DUAL_LOSS + kernels.MAX_CELLS] = 0
    over = sum(estimates(board, (meta, data))[1] > distance for board, distance in zip(boards[::7], distances[::7]))
    assert over > 0


# --- the search -----------------------------------------------------------------------------------

def test_ida_with_the_dual_finds_shortest_solutions_on_the_eight_puzzle():
    tables = eight_tables(((1, 2, 3, 4), (5, 6, 7, 8)))
    table = EIGHT.depth_table()
    rng = random.Random(11)
    for _ in range(150):
        board = EIGHT.random_state(rng.randrange(10**9))
        moves, _result, h0 = dual_kernels.search(board, tables)
        assert EIGHT.replay(board, moves)[-1] == EIGHT.goal
        assert len(moves) == table.distance(EIGHT, board) >= h0


def test_korf_instances_are_solved_optimally_with_fewer_nodes(pdb663):
    """Korf's published lengths, every solution replayed; the dual lookups never add nodes here."""
    chosen = fifteen.korf_subset(QUICK)
    plain = fifteen.run_set(chosen, "pdb663")
    dual = fifteen.run_set(chosen, "pdb663+dual")
    assert dual["all_optimal"] and dual["instances"] == len(QUICK) and dual["heuristic"] == "pdb663+dual"
    assert dual["nodes"] < plain["nodes"]
    _index, board, length = chosen[0]
    solution = fifteen.solve_sliding(FIFTEEN, board, heuristic="6-6-3+dual")
    assert solution.method == "ida*:pdb663+dual" and solution.length == length
    assert FIFTEEN.replay(board, solution.moves)[-1] == FIFTEEN.goal


# --- the kept values --------------------------------------------------------------------------------

def test_kept_dual_values_equal_a_fresh_lookup_after_every_move_and_undo(pdb663):
    """Walk randomly with the search's own moves; every dual value the state keeps is the current board's."""
    tables = pdb663
    rng = random.Random(5)
    state = kernels.new_state(FIFTEEN.random_state(1))
    kernels.pdb_setup(state, tables)
    dual_kernels.pdb_dual_heuristic(state, tables)
    checked = 0

    def check():
        nonlocal checked
        fresh = kernels.new_state(tuple(int(x) for x in state[:16]))
        kernels.pdb_setup(fresh, tables)
        dual_kernels.pdb_dual_estimates(fresh, tables)
        for side in (0, 1):
            for g in range(3):
                kept = int(state[kernels.DUAL_VALUES + side]) >> (16 * g) & 0xFFFF
                if not kept & dual_kernels.STALE:
                    assert kept == int(fresh[kernels.DUAL_VALUES + side]) >> (16 * g) & 0xFFFF
                    checked += 1

    for _ in range(1500):
        m = rng.randrange(4)
        if dual_kernels.pdb_dual_try(state, m, 0, NO_CUTOFF, tables) < 0:
            continue
        check()
        if rng.random() < 0.3:
            dual_kernels.pdb_dual_undo(state, m, tables)
            check()
        else:
            state[kernels.SP] = 0  # walk on without filling the undo stacks
    assert checked > 1000


def test_a_move_and_its_undo_restore_the_state_exactly(pdb663):
    tables = pdb663
    rng = random.Random(7)
    live = slice(0, kernels.STACK)  # entries above the undo stacks' tops are scratch
    for seed in range(20):
        state = kernels.new_state(FIFTEEN.random_state(seed))
        kernels.pdb_setup(state, tables)
        dual_kernels.pdb_dual_heuristic(state, tables)
        before = state[live].copy()
        for m in range(4):
            cutoff = rng.choice([NO_CUTOFF, rng.randrange(-1, 60)])
            if dual_kernels.pdb_dual_try(state, m, 0, cutoff, tables) < 0:
                continue
            dual_kernels.pdb_dual_undo(state, m, tables)
            assert np.array_equal(state[live], before)


def test_dual_heuristic_names():
    assert fifteen._check_heuristic(FIFTEEN, "7-8+dual") == "pdb78+dual"
    assert fifteen._check_heuristic(FIFTEEN, "pdb663+dual") == "pdb663+dual"
