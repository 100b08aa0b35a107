"""The sliding puzzles: notation, ranking, parity proofs against BFS, generation, solving."""

import random
from collections import Counter

import numpy as np
import pytest

from solver import solving as search
from solver.engines.ranking import pack, rank, rank_packed, unpack, unrank, unrank_packed
from solver.errors import BoardError, KomaError, UnsolvableError
from solver.sliding.model import SlidingPuzzle

EIGHT = SlidingPuzzle(3, 3)
FIFTEEN = SlidingPuzzle(4, 4)
ARTICLE_START = (8, 6, 7, 2, 5, 4, 3, 0, 1)
ARTICLE_15 = "10 8 4 14 / 15 12 13 _ / 7 11 6 1 / 5 9 2 3"
HISTOGRAM_8 = [1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878,
               16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2]


@pytest.fixture(scope="module")
def eight_table():
    return EIGHT.depth_table()


# --- ranking (article 002) -----------------------------------------------------------------------

def test_article_ranks():
    assert rank((1, 2, 3, 4, 5, 6, 7, 8, 0)) == 46233
    assert rank((5, 4, 6, 3, 7, 2, 8, 1, 0)) == 225089
    assert unrank(357478, 9) == (8, 6, 7, 2, 5, 4, 3, 0, 1)
    assert rank((0, 1, 2, 3, 4, 5, 6, 7, 8)) == 0 and rank((8, 7, 6, 5, 4, 3, 2, 1, 0)) == 362879


def test_numba_rank_matches_python_rank():
    rng = random.Random(7)
    for n in (4, 6, 9, 12, 16):
        for _ in range(200):
            perm = list(range(n))
            rng.shuffle(perm)
            r = rank(perm)
            assert rank_packed(pack(perm), n) == r
            assert unpack(unrank_packed(r, n), n) == tuple(perm)
            assert unrank(r, n) == tuple(perm)


def test_rank_is_a_bijection_on_six_items():
    from math import factorial

    seen = {unrank(r, 6) for r in range(factorial(6))}
    assert len(seen) == factorial(6)
    assert all(rank(p) == rank(unrank(rank(p), 6)) for p in seen)


# --- notation -----------------------------------------------------------------------------------

def test_parse_accepts_every_separator_and_blank():
    expected = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    for text in ("1 2 3 4 5 6 7 8 0", "1,2,3,4,5,6,7,8,_", "1 2 3/4 5 6/7 8 *", "1 2 3 / 4 5 6 / 7 8 _", "1 2 3\n4 5 6\n7 8 0"):
        assert EIGHT.parse(text) == expected
    assert EIGHT.parse(EIGHT.format(ARTICLE_START)) == ARTICLE_START


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("1 2 3 4 5 6 7 8", "expected 9 cells"),
    ("1 2 3 4 5 6 7 8 0 0", "expected 9 cells"),
    ("1 2 3 4 5 6 7 9 0", "out of range"),
    ("1 2 3 4 5 6 7 7 0", "appears more than once"),
    ("1 2 3 4 5 6 7 8 x", "not a tile number"),
    ("1 2 3 4 5 6 7 8 1", "no blank"),
    ("1 2 3 4 5 6 7 0 _", "2 blanks"),
    ("1 2 3/4 5 6", "expected 3 rows"),
    ("1 2/3 4 5 6/7 8 0", "row 1 has 2 cells"),
])
def test_parse_errors_are_specific(text, fragment):
    with pytest.raises(BoardError) as error:
        EIGHT.parse(text)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_sizes_out_of_range_are_rejected():
    for w, h in ((1, 3), (21, 2), (3, 21)):
        with pytest.raises(KomaError, match="2x2 to 20x20"):
            SlidingPuzzle(w, h)


def test_boards_past_5x5_are_played_not_solved():
    assert SlidingPuzzle(5, 5).solvable_by_koma and not SlidingPuzzle(6, 2).solvable_by_koma
    big = SlidingPuzzle(10, 10)
    assert big.parse(big.format(big.goal)) == big.goal and big.proof(big.goal).solvable


def test_moves_are_named_by_the_tile_direction():
    start = EIGHT.parse("1 2 3/4 _ 5/7 8 6")
    assert EIGHT.apply(start, "L") == EIGHT.parse("1 2 3/4 5 _/7 8 6")
    assert EIGHT.apply(start, "U") == EIGHT.parse("1 2 3/4 8 5/7 _ 6")
    corner = EIGHT.goal
    assert sorted(EIGHT.moves(corner)) == ["D", "R"]
    with pytest.raises(KomaError):
        EIGHT.apply(corner, "L")
    for state in (start, corner):
        for move in EIGHT.moves(state):
            back = {"U": "D", "D": "U", "L": "R", "R": "L"}[move]
            assert EIGHT.apply(EIGHT.apply(state, move), back) == state


# --- parity proof (article 000) ------------------------------------------------------------------

def test_article_parity_example():
    proof = FIFTEEN.proof(FIFTEEN.parse(ARTICLE_15))
    assert proof.fields["tiles"] == [10, 8, 4, 14, 15, 12, 13, 7, 11, 6, 1, 5, 9, 2, 3]
    assert proof.fields["smaller_counts"] == [9, 7, 3, 10, 10, 8, 8, 5, 6, 4, 0, 2, 2, 0, 0]
    assert proof.fields["inversions"] == 74
    assert proof.fields["blank_row"] == 2
    assert proof.fields["total"] == 76 and proof.fields["parity"] == "even"
    assert proof.solvable
    assert any("74" in line for line in proof.lines) and proof.lines[-1] == "Verdict: solvable."


@pytest.mark.parametrize("width, height", [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2)])
def test_parity_rule_matches_bfs_reachability_exhaustively(width, height):
    puzzle = SlidingPuzzle(width, height)
    depth = puzzle.depth_table().depth
    reachable = 0
    for r in range(puzzle.n_ranks):
        state = puzzle.unrank(r)
        solvable = puzzle.proof(state).solvable
        assert solvable == (depth[r] >= 0), (puzzle.format(state), solvable)
        reachable += solvable
    assert reachable == puzzle.n_ranks // 2


def test_parity_rule_matches_the_eight_puzzle_table_on_samples(eight_table):
    rng = random.Random(3)
    for _ in range(2000):
        r = rng.randrange(EIGHT.n_ranks)
        assert EIGHT.proof(EIGHT.unrank(r)).solvable == (eight_table.depth[r] >= 0)


# --- BFS figures (article 002) -------------------------------------------------------------------

def test_eight_puzzle_bfs_figures(eight_table):
    result = EIGHT.longest()
    assert result.states == 181_440
    assert result.max_depth == 31
    assert sorted(result.positions) == sorted([(6, 4, 7, 8, 5, 0, 3, 2, 1), (8, 6, 7, 2, 5, 4, 3, 0, 1)])
    assert list(result.histogram) == HISTOGRAM_8


def test_bfs_layers_are_consistent_with_the_depth_table():
    depth, queue, layer_ends = EIGHT.bfs_arrays()
    assert len(queue) == 181_440 and len(layer_ends) == 32
    starts = np.concatenate([[0], layer_ends[:-1]])
    for d, (a, b) in enumerate(zip(starts, layer_ends)):
        assert b - a == HISTOGRAM_8[d]
        for packed in queue[a:b][:50]:
            assert depth[rank(unpack(int(packed), 9))] == d


def test_article_board_solves_in_31_by_table_and_replays(eight_table):
    solution = search.solve(EIGHT, ARTICLE_START)
    assert solution.length == 31 and solution.optimal
    assert EIGHT.replay(ARTICLE_START, solution.moves) == solution.path
    assert solution.path[-1] == EIGHT.goal


def test_bidirectional_bfs_generates_the_articles_16088_states():
    solution = search.solve(EIGHT, ARTICLE_START, "bidirectional")
    assert solution.nodes == 16_088
    assert solution.length == 31
    assert EIGHT.replay(ARTICLE_START, solution.moves)[-1] == EIGHT.goal


def test_table_and_bidirectional_solutions_are_optimal_and_replay(eight_table):
    rng = random.Random(11)
    for _ in range(300):
        state = EIGHT.random_state(rng.randrange(2**32))
        expected = eight_table.distance(EIGHT, state)
        for method in ("table", "bidirectional"):
            solution = search.solve(EIGHT, state, method)
            assert solution.length == expected, (method, EIGHT.format(state))
            path = EIGHT.replay(state, solution.moves)
            assert path == solution.path and path[-1] == EIGHT.goal


@pytest.mark.parametrize("width, height", [(2, 2), (3, 2), (2, 5), (5, 2)])
def test_small_boards_solve_optimally(width, height):
    puzzle = SlidingPuzzle(width, height)
    table = puzzle.depth_table()
    assert table.states == puzzle.n_ranks // 2
    for seed in range(20):
        state = puzzle.random_state(seed)
        solution = search.solve(puzzle, state)
        assert solution.length == table.distance(puzzle, state)
        assert puzzle.replay(state, solution.moves)[-1] == puzzle.goal
    far = table.max_depth
    assert search.distance(puzzle, puzzle.random_state(0, far)) == far


def test_unsolvable_board_is_refused_with_its_proof():
    state = EIGHT.parse("1 2 3/4 5 6/8 7 _")
    with pytest.raises(UnsolvableError) as error:
        search.solve(EIGHT, state)
    assert error.value.proof is not None and not error.value.proof.solvable


# --- generation ----------------------------------------------------------------------------------

def test_generation_is_seeded_and_solvable():
    for puzzle in (EIGHT, FIFTEEN, SlidingPuzzle(5, 5), SlidingPuzzle(3, 4)):
        for seed in range(50):
            a = puzzle.random_state(seed)
            assert a == puzzle.random_state(seed)
            assert sorted(a) == list(range(puzzle.cells))
            assert puzzle.proof(a).solvable
    assert len({FIFTEEN.random_state(s) for s in range(50)}) == 50


def test_parity_fixes_are_parity_flipping_bijections():
    rng = random.Random(5)
    for puzzle in (FIFTEEN, EIGHT, SlidingPuzzle(2, 3), SlidingPuzzle(4, 2)):
        for _ in range(200):
            board = list(range(puzzle.cells))
            rng.shuffle(board)
            state = tuple(board)
            fixed = puzzle.parity_fix(state)
            assert puzzle.proof(fixed).solvable != puzzle.proof(state).solvable
            assert puzzle.parity_fix(fixed) == state  # an involution, hence a bijection
    assert FIFTEEN.parity_fix(FIFTEEN.goal) == FIFTEEN.flip_lr(FIFTEEN.goal)


def test_generation_is_uniform_over_solvable_boards():
    puzzle = SlidingPuzzle(2, 2)  # 12 solvable boards
    counts = Counter(puzzle.random_state(seed) for seed in range(12_000))
    assert len(counts) == 12
    assert all(850 < c < 1150 for c in counts.values()), counts


def test_generation_at_exact_distance(eight_table):
    for distance in (0, 1, 15, 30, 31):
        for seed in range(5):
            state = EIGHT.random_state(seed, distance)
            assert eight_table.distance(EIGHT, state) == distance
    assert {EIGHT.random_state(s, 31) for s in range(40)} == {(6, 4, 7, 8, 5, 0, 3, 2, 1), (8, 6, 7, 2, 5, 4, 3, 0, 1)}
    with pytest.raises(KomaError):
        EIGHT.random_state(1, 32)
    with pytest.raises(KomaError):
        FIFTEEN.random_state(1, 10)
