"""The 4x5 and 5x4 solved optimally with 5-5-5-4 pattern databases: replayed, and as short as an independent IDA*."""

from __future__ import annotations

import random

import pytest

from solver import solving
from solver.errors import GaveUp
from solver.sliding import search_kernels as kernels
from solver.sliding.model import SlidingPuzzle


def walk(puzzle: SlidingPuzzle, steps: int, seed: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    state = puzzle.goal
    for _ in range(steps):
        state = puzzle.apply(state, rng.choice(puzzle.moves(state)))
    return state


@pytest.mark.parametrize("size", [(4, 5), (5, 4)])
def test_the_databases_solve_as_short_as_ida_on_manhattan_and_linear_conflict(size):
    puzzle = SlidingPuzzle(*size)
    for seed in range(3):
        board = walk(puzzle, 60, seed)
        solution = solving.solve(puzzle, board, heuristic="5-5-5-4", limit=60)
        assert solution.optimal and puzzle.replay(board, solution.moves)[-1] == puzzle.goal
        moves, _result, _h0 = kernels.search("mdlc", board, kernels.mdlc_tables(*size))  # admissible too: optimal
        assert puzzle.replay(board, moves)[-1] == puzzle.goal
        assert solution.length == len(moves)


def test_a_random_4x5_board_is_solved_and_a_hard_one_gives_up_with_its_bound():
    puzzle = SlidingPuzzle(4, 5)
    easy = puzzle.random_state(random.Random(3).randrange(2**63))
    solution = solving.solve(puzzle, easy, heuristic="5-5-5-4", limit=60)
    assert puzzle.replay(easy, solution.moves)[-1] == puzzle.goal and solution.length == 57
    hard = puzzle.random_state(random.Random(5).randrange(2**63))
    with pytest.raises(GaveUp) as gave_up:
        solving.solve(puzzle, hard, heuristic="5-5-5-4", limit=0.5)
    assert gave_up.value.lower_bound >= 52  # no shorter solution than the databases' own first estimate


def test_without_the_databases_named_a_4x5_still_gets_the_quick_reduction():
    puzzle = SlidingPuzzle(4, 5)
    board = puzzle.random_state(random.Random(5).randrange(2**63))
    solution = solving.solve(puzzle, board)
    assert not solution.optimal and puzzle.replay(board, solution.moves)[-1] == puzzle.goal
