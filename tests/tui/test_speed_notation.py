"""Export and import of speed solves in slidy's notation: worked examples, bad input, and 100 random round trips."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle
from tui.game.speed import LineMove, SpeedResult, apply_line, line_move_to, random_scramble, speed_puzzle
from tui.game.speed_notation import export_solve, format_scramble, format_solution, import_solve, parse_scramble, parse_solution, parse_time

INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def test_slidy_forms():
    assert format_solution("UURDLLL") == "U2RDL3"  # slidy's display_short_unspaced of U2RDL3
    assert parse_solution("U2RDL3") == tuple("UURDLLL")
    assert parse_solution("U2 R D L3") == parse_solution("UURDLLL") == tuple("UURDLLL")
    puzzle = SlidingPuzzle(4, 4)
    assert format_scramble(puzzle, puzzle.goal) == "1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0"  # slidy's DisplayInline
    parsed, state = parse_scramble("1 2 3 4/5 6 7 8/9 10 11 12/13 14 15 0")
    assert parsed.size_label == "4x4" and state == puzzle.goal
    assert parse_time("1:02.345") == 62_345 and parse_time("5.1") == 5_100


def test_a_solve_exported_by_hand():
    result = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 200, 350, 500))
    text = export_solve(result)
    assert text.splitlines()[:5] == ["size: 3x3", "scramble: 0 2 3/1 5 6/4 7 8", "solution: U2L2",
                                     "movetimes: 0,200,350,500", "time: 0.500"]
    assert "stm: 4  mtm: 2  tps: 8.000" in text
    assert import_solve(text) == result


@pytest.mark.parametrize("text, problem", [
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\n", "no 'movetimes:'"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2X\nmovetimes: 0,1,2,3", "not a move"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,1,2", "one time per tile"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 5,6,7,8", "start at 0"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,9,7,8", "never go back"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U3L2\nmovetimes: 0,1,2,3,4", "does not play"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L\nmovetimes: 0,1,2", "does not solve"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,1,2,3\ntime: 9.000", "last move's time"),
    ("size: 4x4\nscramble: 0 2 3/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,1,2,3", "does not match"),
    ("scramble: 0 2 2/1 5 6/4 7 8\nsolution: U2L2\nmovetimes: 0,1,2,3", "more than once"),
    ("scramble: 0 2 3 1 5 6 4 7 8\nsolution: U2L2\nmovetimes: 0,1,2,3", "rows of tiles"),
    ("scramble: 0/1\nsolution: U\nmovetimes: 0", "speed boards go from"),
    ("scramble: 0 2 3/1 5 6/4 7 8\nsolution: U99999999\nmovetimes: 0", "out of range"),
    ("just words", "not 'key: value'"),
])
def test_bad_imports_say_what_is_wrong(text, problem):
    with pytest.raises(KomaError, match=problem):
        import_solve(text)


def _random_walk(puzzle, state, rng, steps):
    """``steps`` random line moves (clicks on a random tile in the blank's row or column) from ``state``."""
    walk: list[LineMove] = []
    for _ in range(steps):
        cells = [c for c in range(puzzle.cells) if line_move_to(puzzle, state, c) is not None]
        move = line_move_to(puzzle, state, rng.choice(cells))
        assert move is not None
        state = apply_line(puzzle, state, move)
        walk.append(move)
    return state, walk


@st.composite
def solves(draw):
    """A solve that reaches the goal (the inverse of a random walk from the goal), or one time in four a DNF (a
    random walk from a random-state scramble), with random move times from 0 ms."""
    width, height = draw(st.integers(3, 10)), draw(st.integers(3, 10))
    puzzle = speed_puzzle(width, height)
    rng = random.Random(draw(st.integers(0, 2**32)))
    steps = draw(st.integers(1, 60))
    dnf = draw(st.integers(0, 3)) == 0
    if dnf:
        scramble = random_scramble(puzzle, rng)
        _, played = _random_walk(puzzle, scramble, rng, steps)
    else:
        scramble, walk = _random_walk(puzzle, puzzle.goal, rng, steps)
        played = [LineMove(INVERSE[m.direction], m.count) for m in reversed(walk)]
    moves: list[str] = []
    times: list[int] = []
    now = 0
    for index, move in enumerate(played):
        now += 0 if index == 0 else rng.choice([0, 1, rng.randrange(1, 3000)])
        moves.extend(move.tiles)
        times.extend([now] * move.count)
    return SpeedResult(width, height, tuple(scramble), tuple(moves), tuple(times), dnf=dnf)


@settings(max_examples=100, deadline=None)
@given(solves())
def test_export_then_import_gives_back_the_solve(result):
    text = export_solve(result)
    back = import_solve(text)
    assert back == result
    assert (back.scramble, back.moves, back.times_ms, back.dnf) == (result.scramble, result.moves, result.times_ms,
                                                                    result.dnf)
    puzzle = SlidingPuzzle(result.width, result.height)
    scramble = tuple(int(t) for t in text.splitlines()[1].split(":", 1)[1].replace("/", " ").split())
    final = puzzle.replay(scramble, parse_solution(text.splitlines()[2].split(":", 1)[1]))[-1]
    if not result.dnf:
        assert puzzle.is_goal(final)  # an exported solution replays to the goal
