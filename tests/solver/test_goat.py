"""Goat (article 001): the published figures, the perfect hash, notation, parity and all three solvers."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from koma_bench import solver_cases
from solver import solving as search
from solver.engines import tables
from solver.engines.ranking import pack, unpack
from solver.errors import BoardError, Cancelled, KomaError
from solver.goat import kernels as goat_kernels
from solver.goat import model as goat
from solver.goat import search as goat_search
from solver.goat.model import ARTICLE_LONGEST, GOAL, N_RANKS, START, GoatPuzzle
from solver.registry import get_puzzle

# article 001's figure of the seven 52-move positions, in our notation
ARTICLE_LONGEST_SEVEN = {
    "WBBr/dSi-/j-l.", ".dBB/Wjir/S-l-", ".dBB/Wji-/-Slr", "dWBB/jSr./-li-",
    "dWBB/jSir/.-l-", "WdBB/jSlr/.-i-", "WdBB/jSi-/.-lr",
}


@pytest.fixture(scope="module")
def puzzle() -> GoatPuzzle:
    return GoatPuzzle()


@pytest.fixture(scope="module", autouse=True)
def empty_cache(tmp_path_factory):
    """Every table of this module is built from scratch into an empty cache directory."""
    patch = pytest.MonkeyPatch()
    patch.setenv("KOMA_CACHE_DIR", str(tmp_path_factory.mktemp("koma-cache")))
    goat._memo_table.cache_clear()
    goat_search.pattern_databases.cache_clear()
    try:
        yield
    finally:
        goat._memo_table.cache_clear()
        goat_search.pattern_databases.cache_clear()
        patch.undo()


@pytest.fixture(scope="module")
def table():
    """The depth table, built once for this module (one full BFS from GOAL)."""
    return GoatPuzzle().depth_table()


@pytest.fixture(scope="module")
def samples(table):
    """300 uniformly random boards with their table distances."""
    rng = random.Random(2024)
    boards = [goat.unrank(rng.randrange(N_RANKS)) for _ in range(300)]
    return [(b, int(table.depth[goat.rank(b)])) for b in boards]


# --- the article's figures -------------------------------------------------------------------------
def test_bfs_from_goal_reaches_every_position(table):
    assert table.states == N_RANKS == 5_443_200 == 3 * 10 * 9 * 8 * 7 * 6 * 5 * 4 * 3
    assert int((np.asarray(table.depth) < 0).sum()) == 0
    assert sum(table.histogram) == N_RANKS
    assert table.histogram[0] == 1


def test_longest_is_52_moves_and_7_positions(puzzle, table):
    assert table.max_depth == 52
    assert table.histogram[52] == 7
    result = puzzle.longest()
    assert result.max_depth == 52 and result.states == N_RANKS
    assert {puzzle.format(p) for p in result.positions} == ARTICLE_LONGEST_SEVEN


def test_start_to_goal_is_20_moves(puzzle, table):
    assert table.distance(puzzle, START) == 20
    assert table.distance(puzzle, GOAL) == 0
    assert table.distance(puzzle, ARTICLE_LONGEST) == 52


def test_depth_table_is_cached_memory_mapped_and_checked(table):
    assert isinstance(table.depth, np.memmap)
    assert tables.table_path("goat").exists()

    def must_not_build():
        raise AssertionError("the cached table should have been loaded")

    again = tables.cached_table("goat", goat.VERSION, must_not_build)
    assert np.array_equal(again, table.depth)


def test_table_build_can_be_stopped_and_reports_progress(table, tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    goat._memo_table.cache_clear()
    try:
        with pytest.raises(Cancelled):
            goat.goat_depth_table(stop=np.ones(1, np.uint8))
        assert not tables.table_path("goat").exists()
        assert goat._memo_table.cache_info().currsize == 0
        seen = []
        built = goat.goat_depth_table(progress=seen.append)
        assert built.states == N_RANKS and np.array_equal(built.depth, table.depth)
        assert seen and seen[-1]["states"] == N_RANKS
        assert goat.goat_depth_table() is built  # memoised
    finally:
        goat._memo_table.cache_clear()


def test_bfs_queue_starts_at_goal(puzzle, table):
    depth, queue, layer_ends = puzzle.bfs_arrays()
    assert len(queue) == N_RANKS and len(layer_ends) == 53
    assert unpack(int(queue[0]), 12) == GOAL
    assert np.array_equal(depth, table.depth)


# --- the perfect hash --------------------------------------------------------------------------------
def test_rank_unrank_is_a_bijection_on_every_rank():
    assert goat_kernels.rank_roundtrip_all() == N_RANKS


def test_hash_on_random_samples(puzzle):
    rng = random.Random(7)
    for _ in range(2000):
        r = rng.randrange(N_RANKS)
        board = puzzle.unrank(r)
        assert puzzle.parse(puzzle.format(board)) == board  # a legal board
        assert puzzle.rank(board) == r
        assert goat_kernels.goat_rank_packed(pack(board)) == r  # the numba kernel agrees
        assert unpack(goat_kernels.goat_unrank_packed(r), 12) == board
    for _ in range(500):  # boards drawn without the hash
        b1 = rng.randrange(3)
        small = [0, 1, 2, 3, 4, 5, 6, 7, 8, 8]
        rng.shuffle(small)
        board = tuple(small[:b1] + [9, 9] + small[b1:])
        assert puzzle.unrank(puzzle.rank(board)) == board


def test_hash_layout_is_the_articles(puzzle):
    # 1814400 * (left cell of the big piece) + the rank of the small pieces' places
    for board in (START, GOAL, ARTICLE_LONGEST):
        assert puzzle.rank(board) // 1_814_400 == board.index(9)
    assert puzzle.unrank(0) == (9, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8)
    assert puzzle.unrank(N_RANKS - 1) == (8, 8, 9, 9, 7, 6, 5, 4, 3, 2, 1, 0)
    with pytest.raises(KomaError):
        puzzle.unrank(N_RANKS)


# --- notation and rules ------------------------------------------------------------------------------
def test_parse_and_format(puzzle):
    assert puzzle.parse("r-BB/i.dS/l-jW") == START == (1, 8, 9, 9, 2, 0, 7, 5, 3, 8, 4, 6)
    assert puzzle.parse("r-BB/iSd./l-jW") == GOAL == puzzle.goal
    assert puzzle.format(ARTICLE_LONGEST) == "WdBB/jSi-/.-lr"
    assert puzzle.parse("┌─大大/│□‖羊/└─┘狼") == START
    assert puzzle.parse(" r - B B \n i . d S \n l - j W ") == START
    assert puzzle.parse("r-BB / i.dS / l-jW") == START


def test_format_unicode(puzzle):
    assert puzzle.format_unicode(GOAL) == "┌ ─ [大]\n│ 羊‖   \n└ ─ ┘ 狼"
    assert puzzle.format_unicode(puzzle.parse("WBBr/dSi-/j-l.")) == "狼[大]┌ \n‖ 羊│ ─ \n┘ ─ └   "


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("r-BB/i.dS", "expected 3 rows"),
    ("r-BB/i.dS/l-jW/....", "expected 3 rows"),
    ("r-BB/i.dSx/l-jW", "row 2 has 5 cells"),
    ("r-BB/i.d/l-jW", "row 2 has 3 cells"),
    ("r-BB/i.dS/l-jX", "unknown character 'X' at row 3, column 4"),
    ("r-BB/i.d羊/l-j7", "unknown character '7'"),
    ("rB-B/i.dS/l-jW", "big piece must be two adjacent B in the top row"),
    ("r-B./iBdS/l-jW", "big piece must be two adjacent B in the top row"),
    ("r--S/iBBd/l.jW", "big piece must be two adjacent B in the top row"),
    ("rBBB/i.dS/l-jW", "big piece must be two adjacent B in the top row"),
    ("r-S-/i.dW/l-jd", "big piece must be two adjacent B in the top row"),
    ("r-BB/iSdS/l-jW", "wrong piece counts: no blank (.) instead of 1; 2 sheep 羊 (S) instead of 1"),
    ("r-BB/i.d./l-jW", "2 blank (.) instead of 1"),
    ("r-BB/i.dS/l-jS", "2 sheep 羊 (S) instead of 1; no wolf 狼 (W) instead of 1"),
    ("r-BB/i.d-/l-jW", "3 ─ (-) instead of 2"),
    ("r-BB/i.dS/lrjW", "2 ┌ (r) instead of 1; 1 ─ (-) instead of 2"),
    ("r-BB/i.dd/l-jW", "no sheep"),
])
def test_parse_errors_are_one_line(puzzle, text, words):
    with pytest.raises(BoardError) as error:
        puzzle.parse(text)
    message = str(error.value)
    assert words in message
    assert "\n" not in message


def test_moves_and_apply(puzzle):
    assert puzzle.moves(START) == ["U", "D", "L", "R"]
    assert puzzle.format(puzzle.apply(START, "U")) == "r-BB/i-dS/l.jW"
    assert puzzle.format(puzzle.apply(START, "D")) == "r.BB/i-dS/l-jW"
    assert puzzle.format(puzzle.apply(START, "L")) == "r-BB/id.S/l-jW"
    assert puzzle.format(puzzle.apply(START, "R")) == "r-BB/.idS/l-jW"
    # the big piece slides sideways only, and the blank jumps two cells
    beside = puzzle.parse("r.BB/i-dS/l-jW")
    assert puzzle.moves(beside) == ["U", "L", "R"]
    assert puzzle.format(puzzle.apply(beside, "L")) == "rBB./i-dS/l-jW"
    assert puzzle.format(puzzle.apply(puzzle.apply(beside, "L"), "R")) == "r.BB/i-dS/l-jW"
    below = puzzle.parse("r-BB/i-d./lSjW")
    assert "D" not in puzzle.moves(below)
    with pytest.raises(KomaError, match="not possible"):
        puzzle.apply(below, "D")
    with pytest.raises(KomaError, match="unknown move"):
        puzzle.apply(START, "X")


def test_numba_successors_match_the_rules(puzzle):
    rng = random.Random(3)
    out = np.empty(8, np.int64)
    for _ in range(500):
        board = goat.unrank(rng.randrange(N_RANKS))
        k = goat_kernels.goat_successors(pack(board), goat.kernel_params(), out)
        assert [unpack(int(x), 12) for x in out[:k]] == [puzzle.apply(board, m) for m in puzzle.moves(board)]


# --- parity ------------------------------------------------------------------------------------------
def test_proof_of_the_articles_52_move_board(puzzle):
    proof = puzzle.proof(ARTICLE_LONGEST)
    assert proof.solvable
    f = proof.fields
    assert f["snake_path"] == [8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3]
    # the article's init_state = {6,7,B1,B2, 4,5,2,8, 0,11,3,1} and its two counts, 18 and 17
    assert f["labelled_board"] == [6, 7, 9, 10, 4, 5, 2, 8, 0, 11, 3, 1]
    assert f["labelled_sequence"] == [11, 3, 1, 8, 2, 5, 4, 6, 7, 9, 10]
    assert f["inversions"] == 18 and f["parity"] == "even"
    assert f["other_labelling_sequence"] == [8, 3, 1, 11, 2, 5, 4, 6, 7, 9, 10]
    assert f["other_labelling_inversions"] == 17
    assert f["goal_sequence"] == [3, 11, 4, 6, 7, 5, 2, 1, 8, 9, 10] and f["goal_inversions"] == 22
    assert f["top_dash_cell"] == 7 and f["bottom_dash_cell"] == 9
    assert f["every_position_reaches_goal"] is True
    json.dumps(proof.to_dict(), ensure_ascii=False)
    assert any("5,443,200" in line for line in proof.lines)
    assert "row 2, column 4" in proof.summary


def _apply_labelled(labelled, board, move, puzzle):
    """Carry the labels along one move: whatever left a cell arrives in the cell it went to."""
    after = puzzle.apply(board, move)
    a, b = [c for c in range(12) if board[c] != after[c]]
    out = list(labelled)
    if b - a == 2:  # the big piece: the blank jumped over it
        out[a:a + 3] = [0, out[a], out[a + 1]] if after[a] == 0 else [out[a + 1], out[a + 2], 0]
    else:
        out[a], out[b] = out[b], out[a]
    return tuple(out), after


def test_labels_follow_the_pieces(puzzle):
    """The parity labelling is invariant: carrying labels along any move gives the new board's labelling."""
    rng = random.Random(11)
    for _ in range(50):
        board = goat.unrank(rng.randrange(N_RANKS))
        labelled = goat.label(board)
        for _ in range(40):
            labelled, board = _apply_labelled(labelled, board, rng.choice(puzzle.moves(board)), puzzle)
            assert labelled == goat.label(board)
            assert goat.inversions(goat.snake_sequence(labelled)) % 2 == 0


# --- solving -----------------------------------------------------------------------------------------
def test_methods(puzzle):
    assert search.methods(puzzle) == ["table", "article", "pdb"]
    with pytest.raises(KomaError, match="unknown method"):
        search.solve(puzzle, START, "bogus")


def _check(puzzle, board, solution, distance):
    assert solution.optimal
    assert solution.length == distance
    assert puzzle.replay(board, solution.moves) == solution.path
    assert solution.path[0] == board and solution.path[-1] == GOAL


@pytest.mark.parametrize("method", ["table", "article", pytest.param("pdb", marks=pytest.mark.slow)])
def test_start_solution_replays(puzzle, table, method):
    solution = search.solve(puzzle, START, method)
    _check(puzzle, START, solution, 20)
    assert solution.method == method


def test_solved_board_needs_no_moves(puzzle, table):
    for method in search.methods(puzzle):
        assert search.solve(puzzle, GOAL, method).moves == ()


def test_pdb_solves_the_articles_52_move_board(puzzle, table):
    solution = search.solve(puzzle, ARTICLE_LONGEST, "pdb")
    _check(puzzle, ARTICLE_LONGEST, solution, 52)
    assert solution.nodes < 2_000_000


@pytest.mark.slow  # a long search: the whole run has it, the everyday loop does not
def test_article_ida_solves_the_articles_52_move_board(puzzle, table):
    solution = search.solve(puzzle, ARTICLE_LONGEST, "article")
    _check(puzzle, ARTICLE_LONGEST, solution, 52)


def test_heuristics_on_the_52_move_board():
    assert goat_search.heuristic(ARTICLE_LONGEST, "article") == 22
    assert goat_search.heuristic(ARTICLE_LONGEST, "pdb") == 40
    assert goat_search.heuristic(GOAL, "article") == goat_search.heuristic(GOAL, "pdb") == 0


def test_pattern_databases_are_complete(table):
    pdb = goat_search.pattern_databases()
    assert len(pdb) == goat_search.PDB_SIZE == 317_520
    assert int(pdb.max()) < 255  # every entry was reached
    assert tables.table_path("goat-pdb").exists()


def test_every_longest_position_by_table(puzzle, table):
    for text in ARTICLE_LONGEST_SEVEN:
        board = puzzle.parse(text)
        _check(puzzle, board, search.solve(puzzle, board, "table"), 52)


@pytest.mark.slow  # a long search: the whole run has it, the everyday loop does not
def test_table_and_pdb_agree_on_random_boards(puzzle, samples):
    for board, distance in samples:
        assert goat_search.heuristic(board, "pdb") <= distance
        _check(puzzle, board, search.solve(puzzle, board, "pdb"), distance)
    for board, distance in samples[:40]:
        _check(puzzle, board, search.solve(puzzle, board, "table"), distance)


def test_table_and_article_agree_on_random_boards(puzzle, samples):
    checked = 0
    for board, distance in samples:
        assert goat_search.heuristic(board, "article") <= distance
        if distance <= 36:
            _check(puzzle, board, search.solve(puzzle, board, "article"), distance)
            checked += 1
    assert checked >= 150


def test_ida_can_be_stopped(puzzle):
    stop = np.ones(1, np.uint8)
    with pytest.raises(Cancelled):
        search.solve(puzzle, ARTICLE_LONGEST, "article", stop=stop)


def test_ida_reports_progress(puzzle):
    seen = []
    search.solve(puzzle, ARTICLE_LONGEST, "pdb", progress=seen.append)
    assert seen and {"bound", "nodes", "iteration"} <= set(seen[-1])


# --- generation, registry, benchmarks ----------------------------------------------------------------
def test_random_boards(puzzle, table):
    board = puzzle.random_state(seed=5)
    assert puzzle.parse(puzzle.format(board)) == board
    assert puzzle.random_state(seed=5) == board
    far = puzzle.random_state(seed=1, distance=30)
    assert table.distance(puzzle, far) == 30
    assert puzzle.format(puzzle.random_state(seed=2, distance=52)) in ARTICLE_LONGEST_SEVEN


def test_registry():
    assert isinstance(get_puzzle("goat"), GoatPuzzle)
    assert isinstance(get_puzzle("goat", "4x3"), GoatPuzzle)
    with pytest.raises(KomaError):
        get_puzzle("goat", "3x3")


def test_benchmarks_are_registered(table):
    names = [c.name for c in solver_cases.CASES if c.group == "goat"]
    assert names == ["Goat full BFS", "Goat table load", "Goat IDA* article bound (52-move)", "Goat IDA* pdb (52-move)"]
    figures = solver_cases.goat_ida("pdb")
    assert figures["length"] == 52 and figures["nodes"] > 0
