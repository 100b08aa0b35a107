"""Article 003's loop method: it always finishes, and its ending agrees with the parity proof."""

import pytest

from solver import solving as search
from solver.errors import UnsolvableError
from solver.sliding.loop import JUMP_POSITIONS, LOOP_ARROWS, LOOP_CELLS, loop_length, run_loop_method
from solver.sliding.model import SlidingPuzzle

FIFTEEN = SlidingPuzzle(4, 4)


def test_loop_visits_every_cell_through_neighbours():
    assert sorted(LOOP_CELLS) == [(r, c) for r in range(4) for c in range(4)]
    for i, (r, c) in enumerate(LOOP_CELLS):
        nr, nc = LOOP_CELLS[(i + 1) % 16]
        assert abs(nr - r) + abs(nc - c) == 1
    for z in JUMP_POSITIONS:  # the jump is a real sideways slide
        (r1, c1), (r2, c2) = LOOP_CELLS[z], LOOP_CELLS[z + 3]
        assert r1 == r2 and abs(c1 - c2) == 1
    # the article's arrows show where each cell's tile moves: to the previous loop position
    arrows = {"↓": (1, 0), "↑": (-1, 0), "←": (0, -1), "→": (0, 1)}
    for i, (r, c) in enumerate(LOOP_CELLS):
        pr, pc = LOOP_CELLS[(i - 1) % 16]
        assert arrows[LOOP_ARROWS[r * 4 + c]] == (pr - r, pc - c)


@pytest.mark.parametrize("seed", range(60))
def test_solvable_boards_end_sorted_and_replay_to_the_goal(seed):
    state = FIFTEEN.random_state(seed)
    run = run_loop_method(state)
    assert run.sorted_end and run.final_labels[:4] == (0, 1, 2, 3)
    path = FIFTEEN.replay(state, run.moves)
    assert path == run.path and path[-1] == FIFTEEN.goal


@pytest.mark.parametrize("seed", range(60))
def test_the_ending_matches_the_parity_proof(seed):
    state = FIFTEEN.random_state(seed)
    unsolvable = FIFTEEN.parity_fix(state)
    for board in (state, unsolvable):
        _, sorted_end = loop_length(board)
        assert sorted_end == FIFTEEN.proof(board).solvable
    run = run_loop_method(unsolvable)
    assert run.final_labels[:5] == (0, 1, 3, 2, 4) and run.final_labels[5:] == tuple(range(5, 16))


def test_solve_method_loop_is_labelled_not_optimal():
    state = FIFTEEN.random_state(9)
    solution = search.solve(FIFTEEN, state, "loop")
    assert not solution.optimal and solution.method == "loop" and "not optimal" in solution.note
    assert FIFTEEN.replay(state, solution.moves)[-1] == FIFTEEN.goal


def test_solve_method_loop_on_an_unsolvable_board_says_how_it_ended():
    board = FIFTEEN.parse("1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 _")
    with pytest.raises(UnsolvableError, match=r"ended in 1, 3, 2, 4") as error:
        search.solve(FIFTEEN, board, "loop")
    assert not error.value.proof.solvable


def test_a_solved_board_takes_no_moves():
    solution = search.solve(FIFTEEN, FIFTEEN.goal, "loop")
    assert solution.length == 0 and solution.moves == () and solution.path == (FIFTEEN.goal,)
    assert loop_length(FIFTEEN.goal) == (0, True)
    one_away = FIFTEEN.parse("1 2 3 4/5 6 7 8/9 10 11 12/13 14 _ 15")
    solution = search.solve(FIFTEEN, one_away, "loop")
    assert solution.length > 0 and FIFTEEN.replay(one_away, solution.moves)[-1] == FIFTEEN.goal
