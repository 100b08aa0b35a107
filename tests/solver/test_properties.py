"""Properties that hold for every puzzle, checked on generated boards (hypothesis).

Runs a few hundred examples per property by default; ``--hypothesis-profile=thorough`` runs 10,000.
Every puzzle registered in solver.registry is covered through the common interface.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver import solving as search
from solver.errors import KomaError
from solver.registry import get_puzzle, names

SIZES = {"8": [None], "15": [None], "sliding": ["2x2", "2x3", "3x2", "2x4", "4x2", "2x5", "3x4", "5x5"],
         "goat": [None], "ura": ["2x2", "3x3", "4x3", "4x4", "5x4", "5x5", "3x6", "6x6"]}
PUZZLES = [get_puzzle(name, size) for name in names() for size in SIZES.get(name, [None])]
TABLED = [p for p in PUZZLES if p.enumerable and p.n_ranks <= 11_000_000]
IDS = [f"{p.key}-{p.size_label}" for p in PUZZLES]
TABLED_IDS = [f"{p.key}-{p.size_label}" for p in TABLED]
seeds = st.integers(min_value=0, max_value=2**63)


def any_board(puzzle):
    """Boards that are legal positions but not necessarily solvable."""
    if puzzle.key in ("8", "15", "24", "sliding"):
        return st.permutations(range(puzzle.cells)).map(tuple)
    if puzzle.key == "ura":
        cells = puzzle.width * puzzle.height
        return st.lists(st.integers(0, 1), min_size=cells, max_size=cells).map(tuple)
    return seeds.map(puzzle.random_state)


def walked(puzzle, seed_strategy=seeds):
    """A solvable board reached from the goal by a random walk of up to 60 moves (exercises every move kind).

    Hypothesis draws the walk's length and seed (two draws, not one per move: drawing each move cost more than the
    properties themselves); it still shrinks a failure towards the shortest walk."""

    def walk(length_and_seed):
        length, seed = length_and_seed
        rng = random.Random(seed)
        state = puzzle.goal
        for _ in range(length):
            state = puzzle.apply(state, rng.choice(puzzle.moves(state)))
        return state

    return st.tuples(st.integers(0, 60), seed_strategy).map(walk)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=IDS)
@given(data=st.data())
def test_format_then_parse_round_trips(puzzle, data):
    state = data.draw(any_board(puzzle))
    assert puzzle.parse(puzzle.format(state)) == state


@pytest.mark.parametrize("puzzle", PUZZLES, ids=IDS)
@given(text=st.text(max_size=80))
def test_parser_accepts_or_explains_in_one_line(puzzle, text):
    try:
        state = puzzle.parse(text)
    except KomaError as error:
        message = str(error)
        assert message and "\n" not in message and len(message) < 200
    else:
        assert puzzle.parse(puzzle.format(state)) == state


@pytest.mark.parametrize("puzzle", PUZZLES, ids=IDS)
@given(data=st.data())
def test_every_move_has_an_inverse(puzzle, data):
    state = data.draw(walked(puzzle))
    for move in puzzle.moves(state):
        after = puzzle.apply(state, move)
        assert any(puzzle.apply(after, back) == state for back in puzzle.moves(after))


@pytest.mark.parametrize("puzzle", PUZZLES, ids=IDS)
@given(seed=seeds)
def test_generated_boards_are_solvable_and_reproducible(puzzle, seed):
    state = puzzle.random_state(seed)
    assert puzzle.proof(state).solvable
    assert puzzle.random_state(seed) == state


@pytest.mark.parametrize("puzzle", TABLED, ids=TABLED_IDS)
@given(data=st.data())
def test_rank_unrank_is_a_bijection(puzzle, data):
    r = data.draw(st.integers(0, puzzle.n_ranks - 1))
    state = puzzle.unrank(r)
    assert puzzle.rank(state) == r
    walked_state = data.draw(walked(puzzle))
    assert puzzle.unrank(puzzle.rank(walked_state)) == walked_state


@pytest.mark.parametrize("puzzle", TABLED, ids=TABLED_IDS)
@given(data=st.data())
def test_parity_verdict_equals_table_reachability(puzzle, data):
    state = data.draw(any_board(puzzle))
    table = puzzle.depth_table()
    solvable = puzzle.proof(state).solvable
    try:
        reachable = table.distance(puzzle, state) >= 0
    except KomaError:  # puzzles whose hash covers only solvable boards
        reachable = False
    assert solvable == reachable


@pytest.mark.parametrize("puzzle", TABLED, ids=TABLED_IDS)
@given(data=st.data())
def test_every_method_replays_to_the_goal_at_table_distance(puzzle, data):
    state = data.draw(walked(puzzle))
    distance = puzzle.depth_table().distance(puzzle, state)
    for method in search.methods(puzzle):
        if method in getattr(puzzle, "slow_methods", ()):
            continue
        solution = search.solve(puzzle, state, method)
        path = puzzle.replay(state, solution.moves)
        assert path[-1] == puzzle.goal and puzzle.is_goal(path[-1])
        assert list(path) == list(solution.path)
        if solution.optimal:
            assert solution.length == distance, method
        else:
            assert solution.length >= distance
