"""Ura-omote (article 004): notation, orbit proofs, perfect hash, full BFS figures and optimal solving.

The article's figures are checked exactly.  The figures beyond the article (every size up to 6x6)
are checked against three things: the count formula, an independent pure-Python BFS over raw
bitboards (small sizes) and an independent numpy frontier BFS over raw bitboards (medium sizes;
the 5x5, 5x6, 6x5 and 6x6 ones take minutes and run with ``KOMA_SLOW=1``; they pass).
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

from koma_bench.cases import cases as bench_cases
from solver import solving as search
from solver.engines import tables
from solver.errors import BoardError, Cancelled, KomaError, UnsolvableError
from solver.registry import get_puzzle
from solver.ura.model import ARTICLE_PROBLEM, CHECKERBOARDS, REACHABLE_PATTERNS, UraPuzzle, _tables, parse_any_size, results_table, ura_table

SIZES = [(w, h) for w in range(2, 7) for h in range(2, 7)]
SLOW = bool(os.environ.get("KOMA_SLOW"))

# (width, height): max depth, positions at max depth, states, per-depth counts.
# The article gives 3x3, 4x4, 4x3, 5x4 and 5x5 (w = columns); the rest are this project's results.
FIGURES = {
    (2, 2): (2, 1, 6, [1, 4, 1]),
    (2, 3): (4, 4, 24, [1, 5, 10, 4, 4]),
    (2, 4): (3, 14, 36, [1, 6, 15, 14]),
    (2, 5): (6, 8, 144, [1, 7, 21, 43, 32, 32, 8]),
    (2, 6): (5, 24, 216, [1, 8, 28, 68, 87, 24]),
    (3, 3): (7, 8, 192, [1, 6, 23, 41, 48, 41, 24, 8]),
    (3, 4): (6, 104, 576, [1, 7, 33, 107, 142, 182, 104]),
    (3, 5): (10, 32, 4608, [1, 8, 42, 174, 449, 822, 1092, 1060, 688, 240, 32]),
    (3, 6): (9, 288, 13824, [1, 9, 54, 264, 996, 2134, 3786, 4140, 2152, 288]),
    (4, 4): (6, 224, 1296, [1, 8, 44, 168, 371, 480, 224]),
    (4, 5): (10, 32, 20736, [1, 9, 56, 276, 1020, 2548, 5218, 6432, 4632, 512, 32]),
    (4, 6): (8, 7752, 46656, [1, 10, 69, 384, 1656, 5374, 13038, 18372, 7752]),
    (5, 5): (13, 4608, 663552, [1, 10, 69, 408, 2062, 7961, 25090, 63541, 119258, 164080, 156432, 91168, 28864,
                                4608]),
    (5, 6): (13, 1536, 2985984, [1, 11, 85, 573, 3354, 16253, 62514, 208157, 531716, 895032, 925856, 316704,
                                 24192, 1536]),
    (6, 6): (12, 96, 10077696, [1, 12, 102, 760, 4986, 27204, 126958, 520596, 1732611, 3661524, 3462726, 540120,
                                96]),
}
FIGURES.update({(h, w): v for (w, h), v in list(FIGURES.items())})  # a transposed board plays the same
ARTICLE = {(3, 3): (7, 8, 192), (4, 4): (6, 224, 1296), (4, 3): (6, 104, 576), (5, 4): (10, 32, 20736),
           (5, 5): (13, 4608, 663552)}

# The first four positions at max depth that the article's solver_max() prints for each board,
# copied token by token from its output (W white, B black; boards in reading order).
ARTICLE_PRINTED = {
    (3, 3): "W B W W B B W W W B B B B B W B W B W W W W B B W B W B W B B B W B B B",
    (4, 4): ("B W W B W B B W W W W W B B B B W W W W B B B B B W W B W B B W B W W B W W W W W B B W B B B B "
             "W W W W B W W B B B B B W B B W"),
    (4, 3): "B B B W B B B B B W W W B W W W B B B B B B B W W B B B W B B W W W W B W W W B W B B W W B B B",
    (5, 4): ("B W B W B B B W B B W W W W W W B B B W B W B W B W W B W W B B B B B W B B B W W B W B W B B W B B "
             "W W W W W B W W W B W B W B W W W B W W B B B B B B W W W B"),
    (5, 5): ("W B B B W B W B W B W W B B B W W W W W W W W W W W B B B W B B B B B W B B W B W B W B W W W W W W "
             "W B B B W W W W W W W W B B B B W B W B W W W W W W B B B W W B W B W W B B W B B B B B B W W W W W"),
}
# Figures of longest positions drawn with the article's squares (□ white, ■ black).
ARTICLE_FIGURES = {
    (3, 3): ["□■□/■■□/□□□", "■□■/□■■/■■■"],  # "the 2 up to symmetry"
    (4, 4): ["□□□□/□■□■/□■□■/□■■□", "□□□□/□□■■/□□■■/■□□■", "□■■□/■■□□/■■□□/■■■■", "■□□■/□□□■/□■■■/■■■■"],
    (5, 5): ["□□■□□/□□■□□/■□■■□/□□□□□/□□□□□", "□□■□□/□□□□□/■□■■□/□□■□□/□□□□□",
             "□□■□□/□□■□□/■■■□□/□□□□□/□□□□□"],  # chosen among those with the fewest blacks
}
# The article's 4x4 boards that no move changes (every orbit a checkerboard).
ARTICLE_UNCHANGING = ["■■□□/■■□□/□□■■/□□■■", "■□■□/■■□□/□□■■/□■□■", "■■□□/■□■□/□■□■/□□■■",
                      "■■□□/□□■■/■■□□/□□■■", "■□■□/□■□■/■□■□/□■□■", "■□■□/□□■■/■■□□/□■□■"]
# Boards the article solves with its bfs(): (size, board, optimal length).
ARTICLE_SOLVES = [
    ((3, 3), ARTICLE_PROBLEM, 7),
    ((4, 4), "WWWW/WBWB/WBWB/WBBW", 6),
    ((5, 5), "WWBWW/WWBWW/BWBBW/WWWWW/WWWWW", 13),
]
# The article's group maps in its own labels, and which of its labels are the free cells.
ARTICLE_MAPS = {
    (3, 3): (("010", "111", "010"), {"1"}),
    (4, 4): (("0110", "2332", "2332", "0110"), set()),
    (4, 3): (("0110", "2222", "0110"), {"2"}),
    (5, 4): (("01210", "34243", "34243", "01210"), {"2"}),
    (5, 5): (("01210", "34243", "22222", "34243", "01210"), {"2"}),
}


def article_printed(size) -> list[str]:
    w, h = size
    tokens = ARTICLE_PRINTED[size].split()
    boards = [tokens[i:i + w * h] for i in range(0, len(tokens), w * h)]
    return ["/".join("".join(b[r * w:(r + 1) * w]) for r in range(h)) for b in boards]


# --- fixtures -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def fresh_cache(tmp_path_factory):
    """Depth tables go to a private cache directory for this module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KOMA_CACHE_DIR", str(tmp_path_factory.mktemp("koma-cache")))
        yield


@pytest.fixture(scope="module")
def results():
    """Full-BFS figures for every size 2x2..6x6 (one numba BFS each; 6x6 is the big one)."""
    return {(r["width"], r["height"]): r for r in results_table()}


def puzzle(w: int, h: int) -> UraPuzzle:
    return UraPuzzle(w, h)


# --- independent BFS over raw bitboards (no perfect hash, no kernels) ----------------------------------
def line_moves(w: int, h: int) -> list[list[tuple[int, int]]]:
    """Per move, (source, destination) cell pairs: destination takes the inverted source."""
    rows = [[(r * w + c, r * w + (w - 1 - c)) for c in range(w)] for r in range(h)]
    cols = [[(r * w + c, (h - 1 - r) * w + c) for r in range(h)] for c in range(w)]
    return rows + cols


def slow_bfs(w: int, h: int) -> tuple[dict[int, int], list[int]]:
    """Pure-Python BFS from the all-white bitboard: ``({board: depth}, histogram)``."""
    moves = line_moves(w, h)
    seen = {0: 0}
    frontier = [0]
    histogram = [1]
    while True:
        nxt = []
        for board in frontier:
            for pairs in moves:
                child = board
                for src, dst in pairs:
                    bit = ((board >> src) & 1) ^ 1
                    child = (child & ~(1 << dst)) | (bit << dst)
                if child not in seen:
                    seen[child] = len(histogram)
                    nxt.append(child)
        if not nxt:
            return seen, histogram
        histogram.append(len(nxt))
        frontier = nxt


def numpy_bfs(w: int, h: int) -> tuple[list[int], np.ndarray]:
    """Layer-by-layer BFS on arrays of bitboards with sorted visited sets: ``(histogram, last layer)``."""
    moves = line_moves(w, h)
    visited = np.zeros(1, np.int64)
    frontier = visited.copy()
    histogram = [1]
    while True:
        children = []
        for pairs in moves:
            mask = sum(1 << dst for _, dst in pairs)
            child = frontier & ~np.int64(mask)
            for src, dst in pairs:
                child |= (((frontier >> src) & 1) ^ 1) << dst
            children.append(child)
        layer = np.unique(np.concatenate(children))
        layer = layer[~np.isin(layer, visited, assume_unique=True)]
        if len(layer) == 0:
            return histogram, frontier
        histogram.append(len(layer))
        visited = np.union1d(visited, layer)
        frontier = layer


def to_state(board: int, cells: int) -> tuple[int, ...]:
    return tuple((board >> i) & 1 for i in range(cells))


# --- the article's figures -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", list(ARTICLE))
def test_article_figures(size):
    max_depth, at_max, states = ARTICLE[size]
    result = puzzle(*size).longest()
    assert (result.max_depth, len(result.positions), result.states) == (max_depth, at_max, states)
    assert sum(result.histogram) == states and result.histogram[-1] == at_max


@pytest.mark.parametrize("size", list(ARTICLE_PRINTED))
def test_article_longest_positions_are_at_max_depth(size):
    p = puzzle(*size)
    longest = set(p.longest().positions)
    boards = article_printed(size) + ARTICLE_FIGURES.get(size, [])
    assert len(boards) >= 4
    for board in boards:
        assert p.parse(board) in longest, board


def test_article_5x5_longest_with_fewest_blacks():
    p = puzzle(5, 5)
    fewest = min(sum(s) for s in p.longest().positions)
    assert fewest == 5 and all(sum(p.parse(b)) == 5 for b in ARTICLE_FIGURES[(5, 5)])


def test_article_unchanging_boards():
    p = puzzle(4, 4)
    for board in ARTICLE_UNCHANGING:
        state = p.parse(board)
        assert all(p.apply(state, m) == state for m in p.moves(state)), board
        proof = p.proof(state)
        assert [u["why"] for u in proof.fields["unreachable"]] == ["checkerboard"] * 4


@pytest.mark.parametrize("size, board, length", ARTICLE_SOLVES)
def test_article_problems_solved_optimally(size, board, length):
    p = puzzle(*size)
    state = p.parse(board)
    solution = search.solve(p, state)
    assert solution.length == length and solution.optimal
    assert p.replay(state, solution.moves) == solution.path
    assert solution.path[-1] == p.goal


def test_article_problem_is_the_default_board():
    p = get_puzzle("ura")
    assert (p.width, p.height) == (3, 3)
    assert search.solve(p, p.parse(ARTICLE_PROBLEM)).length == 7


# --- every size up to 6x6 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_bfs_figures_and_count_formula(results, size):
    row = results[size]
    p = puzzle(*size)
    orbits, free = (size[0] // 2) * (size[1] // 2), size[0] * size[1] - 4 * (size[0] // 2) * (size[1] // 2)
    assert (len(p.orbits), len(p.free_cells)) == (orbits, free)
    assert row["states"] == row["solvable_boards"] == p.n_ranks == 6 ** orbits * 2 ** free
    assert (row["max_depth"], row["at_max_depth"], row["states"], row["histogram"]) == tuple(FIGURES[size])
    assert row["formula"] == f"6^{orbits} × 2^{free}"


@pytest.mark.parametrize("size", [s for s in SIZES if FIGURES[s][2] <= 5000])
def test_slow_bitboard_bfs_agrees(size):
    w, h = size
    p = puzzle(w, h)
    seen, histogram = slow_bfs(w, h)
    max_depth, at_max, states, expected = FIGURES[size]
    assert (len(histogram) - 1, histogram[-1], len(seen), histogram) == (max_depth, at_max, states, expected)
    # the perfect hash covers exactly the reachable boards, and the kernel's depths are the BFS depths
    assert sorted(p.rank(to_state(b, w * h)) for b in seen) == list(range(p.n_ranks))
    depth, _, _ = p.bfs_arrays()
    for board, d in seen.items():
        assert depth[p.rank(to_state(board, w * h))] == d


@pytest.mark.parametrize("size", [s for s in SIZES if 5000 < FIGURES[s][2] <= 50_000]
                         + [pytest.param(s, marks=pytest.mark.skipif(not SLOW, reason="set KOMA_SLOW=1"))
                            for s in SIZES if FIGURES[s][2] > 50_000])
def test_numpy_bitboard_bfs_agrees(size):
    w, h = size
    histogram, last = numpy_bfs(w, h)
    max_depth, at_max, states, expected = FIGURES[size]
    assert (len(histogram) - 1, histogram[-1], sum(histogram), histogram) == (max_depth, at_max, states, expected)
    p = puzzle(w, h)
    depth, _, _ = p.bfs_arrays()
    assert np.all(depth[[p.rank(to_state(int(b), w * h)) for b in last[:500]]] == max_depth)


def test_bfs_fills_every_rank(results):
    for size in SIZES:
        p = puzzle(*size)
        if p.n_ranks > 700_000:
            continue
        depth, queue, _ = p.bfs_arrays()
        assert depth.min() == 0 and len(queue) == p.n_ranks


def test_transposed_boards_play_the_same(results):
    for w, h in SIZES:
        assert results[(w, h)]["histogram"] == results[(h, w)]["histogram"]


# --- perfect hash ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_rank_is_a_bijection_onto_solvable_boards(size):
    p = puzzle(*size)
    ranks = range(p.n_ranks) if p.n_ranks <= 25_000 else random.Random(1).sample(range(p.n_ranks), 2000)
    boards = set()
    for r in ranks:
        state = p.unrank(r)
        assert p.rank(state) == r and p.kernel_rank(state) == r
        if r % 97 == 0:
            assert p.proof(state).solvable
        boards.add(state)
    assert len(boards) == len(ranks)
    with pytest.raises(KomaError):
        p.unrank(p.n_ranks)
    with pytest.raises(KomaError):
        p.unrank(-1)


def test_ranks_cover_exactly_the_proof_solvable_boards():
    for w, h in [(2, 2), (3, 2), (2, 3), (3, 3), (4, 3)]:
        p = puzzle(w, h)
        solvable = []
        for board in range(1 << (w * h)):
            state = to_state(board, w * h)
            if p.proof(state).solvable:
                solvable.append(p.rank(state))
            else:
                with pytest.raises(KomaError, match="only solvable boards"):
                    p.rank(state)
        assert sorted(solvable) == list(range(p.n_ranks))
        assert set(map(p.unrank, range(p.n_ranks))) == {to_state(b, w * h) for b in slow_bfs(w, h)[0]}


@pytest.mark.parametrize("size", SIZES)
def test_kernel_successors_match_the_rules(size):
    p = puzzle(*size)
    rng = random.Random(size[0] * 10 + size[1])
    for _ in range(30):
        state = tuple(rng.randint(0, 1) for _ in range(p.cells))
        assert p.kernel_successors(state) == [p.apply(state, m) for m in p.moves(state)]


# --- rules and notation ------------------------------------------------------------------------------------
def test_article_move_example():
    """The article's first figure: turn row C over, then column 2."""
    p = puzzle(3, 3)
    after_c = p.apply(p.goal, "C")
    assert p.format(after_c) == "WWW/WWW/BBB"
    after_2 = p.apply(after_c, "2")
    assert p.format(after_2) == "WWW/WBW/BBB"  # (C,2) takes (A,2)'s black back; (B,2) turns over
    assert p.apply(p.parse("BWW/WWW/WWW"), "A") == p.parse("BBW/WWW/WWW")  # reversed, then inverted


def test_moves_are_involutions_and_named_rows_then_columns():
    p = puzzle(5, 4)
    assert p.moves(p.goal) == ["A", "B", "C", "D", "1", "2", "3", "4", "5"]
    state = p._random_solvable(random.Random(3))
    for m in p.moves(state):
        assert p.apply(p.apply(state, m), m) == state
    assert p.apply(state, "a") == p.apply(state, "A")
    with pytest.raises(KomaError, match="unknown move"):
        p.apply(state, "E")
    with pytest.raises(KomaError, match="unknown move"):
        p.apply(state, "6")


def test_parse_notations():
    p = puzzle(3, 2)
    expected = (1, 0, 1, 0, 0, 1)
    for text in ("BWB/WWB", "#.#/..#", "■□■/□□■", " B W B / W W B ", "BWB\nWWB", "bwb/wwb"):
        assert p.parse(text) == expected, text
    assert p.format(expected) == "BWB/WWB"
    assert p.parse(p.format(expected)) == expected
    assert parse_any_size("WWWW/BBBB/WWWW") == (4, 3, (0,) * 4 + (1,) * 4 + (0,) * 4)


@pytest.mark.parametrize("text, size, message", [
    ("BWB/WB/BBB", (3, 3), "ragged rows: row 1 has 3 cells but row 2 has 2"),
    ("BWB/WXB/BBB", (3, 3), "unknown character 'X' in row 2, cell 2"),
    ("BWB/W0B/BBB", (3, 3), "unknown character '0'"),
    ("BBBBBBB/WWWWWWW", (3, 3), "a 7x2 board is out of range"),
    ("B/W", (3, 3), "a 1x2 board is out of range"),
    ("BWB", (3, 3), "a 3x1 board is out of range"),
    ("BWB/WBB", (3, 3), "expected 3 rows for a 3x3 board, got 2"),
    ("BWBW/WBBW/BBBB", (3, 3), "expected 3 cells per row for a 3x3 board, got 4"),
    ("", (3, 3), "the board is empty"),
    ("BWB//BBB", (3, 3), "empty row"),
])
def test_parse_errors(text, size, message):
    with pytest.raises(BoardError, match=message) as error:
        puzzle(*size).parse(text)
    assert "\n" not in str(error.value)


def test_size_mismatch_suggests_the_size():
    with pytest.raises(BoardError, match="use --size 4x4"):
        puzzle(3, 3).parse("WWWW/WWWW/WWWW/WWWW")


@pytest.mark.parametrize("size", [(1, 3), (7, 7), (3, 7), (0, 0)])
def test_sizes_out_of_range(size):
    with pytest.raises(KomaError, match="from 2x2 to 6x6"):
        UraPuzzle(*size)
    with pytest.raises(KomaError, match="from 2x2 to 6x6"):
        get_puzzle("ura", f"{size[0]}x{size[1]}")


def test_registry_sizes():
    p = get_puzzle("ura", "5x4")
    assert (p.width, p.height, p.key, p.title) == (5, 4, "ura", "Ura-omote")
    assert p.goal == (0,) * 20 and p.n_ranks == 20736
    assert search.methods(p) == ["table"]


# --- proofs ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", list(ARTICLE_MAPS))
def test_orbit_maps_match_the_article(size):
    article_map, article_free = ARTICLE_MAPS[size]
    ours = puzzle(*size).orbit_map()
    assert len(ours) == len(article_map)
    relabel: dict[str, str] = {}
    for our_row, their_row in zip(ours, article_map):
        for ours_label, theirs in zip(our_row, their_row):
            expected = "*" if int(theirs) in article_free else relabel.setdefault(theirs, ours_label)
            assert ours_label == expected
    assert len(set(relabel.values())) == len(relabel)


def test_proof_of_a_solvable_board():
    p = puzzle(3, 3)
    proof = p.proof(p.parse(ARTICLE_PROBLEM))
    assert proof.solvable and proof.fields["unreachable"] == []
    assert proof.fields["orbit_map"] == [["0", "*", "0"], ["*", "*", "*"], ["0", "*", "0"]]
    assert proof.fields["orbits"][0]["cells"] == ["A1", "A3", "C1", "C3"]
    assert proof.fields["orbits"][0]["pattern"] == "BB/BB"
    assert proof.fields["count_formula"] == "6^1 × 2^5" and proof.fields["solvable_boards"] == 192
    assert [c["cell"] for c in proof.fields["free_cells"]] == ["A2", "B1", "B2", "B3", "C2"]
    text = "\n".join(proof.lines)
    assert "A 0 * 0" in text and "192" in text and "Verdict: solvable." in text
    json.dumps(proof.to_dict())


def test_proof_of_odd_blacks():
    p = puzzle(4, 4)
    state = p.parse("BWWW/WWWW/WWWW/WWWW")
    proof = p.proof(state)
    assert not proof.solvable
    assert proof.fields["unreachable"] == [{"label": "0", "why": "odd", "pattern": "BW/WW",
                                           "reason": proof.fields["orbits"][0]["reason"]}]
    assert "odd" in proof.summary and "orbit 0" in proof.summary
    assert "UNREACHABLE" in "\n".join(proof.lines)
    with pytest.raises(UnsolvableError) as error:
        search.solve(p, state)
    assert error.value.proof is not None and not error.value.proof.solvable
    json.dumps(proof.to_dict())


def test_proof_of_a_checkerboard():
    p = puzzle(5, 5)
    state = p.parse("WWWWW/WBWWW/WWWWW/WWWBW/WWWWW")  # orbit 3 is B2 B4 D2 D4: B2 and D4 black
    proof = p.proof(state)
    assert not proof.solvable
    [bad] = proof.fields["unreachable"]
    assert bad["why"] == "checkerboard" and bad["label"] == "3" and bad["pattern"] == "BW/WB"
    assert "checkerboard" in proof.summary
    with pytest.raises(UnsolvableError):
        search.solve(p, state)


def test_proof_lists_every_unreachable_orbit():
    p = puzzle(6, 6)
    # orbit 0 is A1 A6 F1 F6, orbit 8 is C3 C4 D3 D4
    state = p.parse("BWWWWB/WWWWWW/WWBWWW/WWWWWW/WWWWWW/WWWWWW")  # A1 A6: a black top row; C3 alone
    assert {u["label"]: u["why"] for u in p.proof(state).fields["unreachable"]} == {"8": "odd"}
    state = p.parse("BWWWWW/WWWWWW/WWBWWW/WWWWWW/WWWWWW/WWWWWB")  # A1 F6: a diagonal
    assert {u["label"]: u["why"] for u in p.proof(state).fields["unreachable"]} == {"0": "checkerboard", "8": "odd"}
    summary = p.proof(state).summary
    assert "orbit 0 BW/WB is a checkerboard" in summary and "orbit 8 BW/WW has an odd number of blacks" in summary


def test_orbit_pattern_classes():
    assert len(REACHABLE_PATTERNS) == 6 and len(CHECKERBOARDS) == 2
    for bits in range(16):
        p = puzzle(2, 2)
        state = tuple((bits >> k) & 1 for k in range(4))
        assert p.proof(state).solvable == (bits in REACHABLE_PATTERNS)
        even = bin(bits).count("1") % 2 == 0
        assert (bits in REACHABLE_PATTERNS) == (even and bits not in CHECKERBOARDS)


@pytest.mark.parametrize("size", SIZES)
def test_proof_agrees_with_the_table(size):
    p = puzzle(*size)
    rng = random.Random(sum(size))
    table = p.depth_table() if p.n_ranks <= 700_000 else None
    for _ in range(20):
        state = tuple(rng.randint(0, 1) for _ in range(p.cells))
        proof = p.proof(state)
        orbit_ok = all(p.orbit_pattern(state, o) in REACHABLE_PATTERNS for o in range(len(p.orbits)))
        assert proof.solvable == orbit_ok
        if proof.solvable and table is not None:
            assert table.distance(p, state) >= 0


# --- solving ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [s for s in SIZES if FIGURES[s][2] <= 700_000])
def test_random_solutions_replay_to_the_goal(size):
    p = puzzle(*size)
    table = p.depth_table()
    for seed in range(8):
        state = p.random_state(seed)
        solution = search.solve(p, state)
        assert p.replay(state, solution.moves) == solution.path
        assert solution.path[0] == state and solution.path[-1] == p.goal
        assert solution.length == table.distance(p, state)
        for board, d in zip(solution.path, range(solution.length, -1, -1)):
            assert table.distance(p, board) == d


def test_every_longest_position_solves_at_max_depth():
    p = puzzle(4, 3)
    longest = p.longest()
    for state in longest.positions:
        solution = search.solve(p, state)
        assert solution.length == longest.max_depth
        assert p.replay(state, solution.moves)[-1] == p.goal


def test_generate_at_distance():
    p = puzzle(5, 4)
    for d in (0, 1, 5, 10):
        state = p.random_state(seed=d, distance=d)
        assert search.distance(p, state) == d
    with pytest.raises(KomaError):
        p.random_state(seed=1, distance=11)


def test_random_boards_are_solvable_and_uniform():
    p = puzzle(2, 2)
    counts: dict = {}
    rng = random.Random(5)
    for _ in range(6000):
        state = p._random_solvable(rng)
        counts[state] = counts.get(state, 0) + 1
    assert len(counts) == 6 and min(counts.values()) > 850


# --- depth tables on disk -----------------------------------------------------------------------------------
def test_depth_table_is_cached_on_disk_and_memoised():
    _tables.pop((4, 4), None)  # other test modules may have memoised it under another cache dir
    p = puzzle(4, 4)
    table = p.depth_table()
    assert table is p.depth_table()
    path = tables.table_path("ura-4x4")
    assert path.exists()
    assert np.array_equal(tables.read_table(path, 1), table.depth)


def test_depth_table_build_can_be_stopped_and_reports_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("KOMA_CACHE_DIR", str(tmp_path))
    _tables.pop((6, 2), None)
    _tables.pop((2, 6), None)
    stop = np.ones(1, np.uint8)
    with pytest.raises(Cancelled):
        ura_table(6, 2, stop=stop)
    assert (6, 2) not in _tables and not tables.table_path("ura-6x2").exists()
    seen = []
    table = ura_table(2, 6, stop=np.zeros(1, np.uint8), progress=seen.append)
    assert seen and seen[-1]["states"] == 216 and table.max_depth == 5
    assert ura_table(2, 6) is table


# --- symmetry ---------------------------------------------------------------------------------------------------
def test_symmetry_groups():
    assert len(puzzle(5, 5).symmetries()) == 8
    assert len(puzzle(5, 4).symmetries()) == 4
    for size in [(3, 3), (4, 3)]:
        p = puzzle(*size)
        table = p.depth_table()
        for r in range(0, p.n_ranks, 7):
            state = p.unrank(r)
            for perm in p.symmetries():
                assert table.distance(p, tuple(state[i] for i in perm)) == table.depth[r]


def test_article_3x3_longest_has_two_classes():
    p = puzzle(3, 3)
    classes = p.symmetry_classes(p.longest().positions)
    assert len(classes) == 2 and sum(n for _, n in classes) == 8
    assert {s for s, _ in classes} == {p.canonical(p.parse(b)) for b in ARTICLE_FIGURES[(3, 3)]}
    assert [p.format(s) for s, _ in classes] == ["WWW/WBB/WBW", "BWB/WBB/BBB"]


def test_5x5_longest_classes():
    p = puzzle(5, 5)
    longest = p.longest()
    classes = p.symmetry_classes(longest.positions)
    assert sum(n for _, n in classes) == 4608
    for rep, n in classes:
        assert rep == p.canonical(rep)
        assert n == len({tuple(rep[i] for i in perm) for perm in p.symmetries()})
    assert len(classes) == 600  # this project's figure: the article shows examples, not a count


# --- benchmarks -------------------------------------------------------------------------------------------------
def test_benchmarks_are_registered():
    cases = {c.name: c for c in bench_cases(["ura"], full=True)}
    assert {"Ura-omote 5x5 full BFS", "Ura-omote 6x6 full BFS"} <= set(cases)
    figures = cases["Ura-omote 5x5 full BFS"].run()
    assert figures == {"states": 663552, "max_depth": 13, "at_max_depth": 4608}
