"""The speed solve model: clock on the first move, per-move times, line moves, STM, MTM, TPS, scrambles."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

import pytest

from solver.errors import KomaError
from solver.sliding.model import SlidingPuzzle
from tui.game.speed import LineMove, Play, SpeedSolve, line_move_to, line_moves, random_scramble, room, speed_puzzle

SCRAMBLE = (0, 2, 3, 1, 5, 6, 4, 7, 8)  # the goal after tile moves R R D D: solved by U2 L2


class FakeClock:
    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_the_clock_waits_for_the_first_move_then_stops_on_the_solve():
    clock = FakeClock()
    solve = SpeedSolve(speed_puzzle(3, 3), SCRAMBLE, clock)
    clock.t += 30  # inspection is free
    assert solve.elapsed_ms() == 0 and not solve.started
    assert solve.play("U") is Play.PLAYED
    clock.t += 0.2
    assert solve.elapsed_ms() == 200
    assert solve.play("U") is Play.PLAYED
    clock.t += 0.15
    solve.play("L")
    clock.t += 0.15
    assert solve.play("L") is Play.SOLVED
    clock.t += 5
    assert solve.elapsed_ms() == 500
    result = solve.result()
    assert result.times_ms == (0, 200, 350, 500)
    assert result.time_ms == sum(b - a for a, b in pairwise(result.times_ms))
    assert (result.stm, result.mtm, result.tps) == (4, 2, 8.0)  # U U is one MTM move (U2), as in slidy
    assert result.final_state() == SlidingPuzzle(3, 3).goal
    assert solve.play("R") is Play.ILLEGAL  # over


def test_clicks_slide_whole_lines():
    clock = FakeClock()
    solve = SpeedSolve(speed_puzzle(3, 3), SCRAMBLE, clock)
    assert solve.press(4) is Play.ILLEGAL  # the centre: not in the blank's row or column
    assert solve.press(6) is Play.PLAYED  # tile 4, two below the blank: U2
    assert solve.state == (1, 2, 3, 4, 5, 6, 0, 7, 8)
    clock.t += 0.8764
    assert solve.press(8) is Play.SOLVED  # tile 8, two right of the blank: L2
    result = solve.result()
    assert result.moves == ("U", "U", "L", "L") and result.times_ms == (0, 0, 876, 876)
    assert (result.stm, result.mtm, result.time_ms) == (4, 2, 876)
    assert result.tps == pytest.approx(4 / 0.876)


def test_line_moves_and_room():
    puzzle = SlidingPuzzle(4, 3)
    state = (1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 11)  # blank at row 1, column 1
    assert [room(puzzle, state, d) for d in "UDLR"] == [1, 1, 2, 1]
    assert line_move_to(puzzle, state, 7) == LineMove("L", 2)
    assert line_move_to(puzzle, state, 4) == LineMove("R", 1)
    assert line_move_to(puzzle, state, 1) == LineMove("D", 1)
    assert line_move_to(puzzle, state, 9) == LineMove("U", 1)
    assert line_move_to(puzzle, state, 5) is None and line_move_to(puzzle, state, 0) is None
    solve = SpeedSolve(puzzle, state, FakeClock())
    assert solve.play(LineMove("L", 3)) is Play.ILLEGAL and not solve.started
    assert [str(m) for m in line_moves("UUURDLLL")] == ["U3", "R", "D", "L3"]
    with pytest.raises(KomaError):
        LineMove("X")


def test_abandoning_a_started_solve_is_a_dnf():
    clock = FakeClock()
    solve = SpeedSolve(speed_puzzle(3, 3), SCRAMBLE, clock)
    assert not solve.abandon()  # nothing to count yet
    solve.play("U")
    assert solve.abandon()
    result = solve.result()
    assert result.dnf and result.result_ms == float("inf")


@pytest.mark.parametrize("size", [(3, 3), (4, 5), (5, 4), (7, 3), (10, 10), (3, 10)])
def test_scrambles_are_solvable_and_never_the_goal(size):
    puzzle = speed_puzzle(*size)
    rng = random.Random(7)
    for _ in range(20):
        state = random_scramble(puzzle, rng)
        assert sorted(state) == list(range(puzzle.cells))
        assert puzzle.proof(state).solvable and not puzzle.is_goal(state)


def test_scrambles_are_uniform_over_the_solvable_states():
    puzzle = SlidingPuzzle(3, 2)  # 360 solvable boards, 359 of them scrambles
    rng = random.Random(2024)
    draws = 359 * 100
    counts = Counter(random_scramble(puzzle, rng) for _ in range(draws))
    assert len(counts) == 359 and all(puzzle.proof(s).solvable for s in counts)
    chi_square = sum((c - 100) ** 2 / 100 for c in counts.values())
    assert chi_square < 358 + 6 * (2 * 358) ** 0.5  # 358 degrees of freedom: six standard deviations


def test_speed_sizes():
    assert speed_puzzle(10, 10).cells == 100
    assert speed_puzzle(2, 2).cells == 4 and speed_puzzle(20, 20).cells == 400 and speed_puzzle(2, 9).cells == 18
    for size in [(1, 3), (21, 4), (3, 21)]:
        with pytest.raises(KomaError):
            speed_puzzle(*size)


def test_timed_steps_group_the_tiles_of_one_line_move():
    from tui.game.speed import SpeedResult, timed_steps

    result = SpeedResult(3, 3, SCRAMBLE, tuple("UULL"), (0, 0, 876, 900))
    assert [(at, str(move)) for at, move in timed_steps(result)] == [(0, "U2"), (876, "L"), (900, "L")]


def test_efficiency_is_optimal_over_stm():
    from tui.game.speed import SpeedResult
    from tui.game.speed_events import SpeedSession

    session = SpeedSession()
    index = session.add(SpeedResult(3, 3, SCRAMBLE, tuple("UULLRL"), (0, 1, 2, 3, 4, 5)))
    assert session.efficiency(index) is None
    session.optimal[index] = 4
    assert session.efficiency(index) == 4 / 6


def test_the_optimum_s_plan_by_size(monkeypatch):
    from tui.game import speed

    for size in ((3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3)):  # moments: no budget
        assert speed.optimum_plan(speed_puzzle(*size)) == speed.OptimumPlan(True)
    for size in ((4, 5), (5, 4)):  # the 5-5-5-4 databases, within the budget
        plan = speed.optimum_plan(speed_puzzle(*size))
        assert plan.search and plan.options() == {"limit": speed.OPTIMUM_LIMIT_SECONDS, "heuristic": "5-5-5-4"}
        assert plan.options(background=True)["threads"] == 1  # after a solve: a core stays the game's
    monkeypatch.setattr(speed, "twentyfour_tables_built", lambda: False)
    plan = speed.optimum_plan(speed_puzzle(5, 5))
    assert not plan.search and "`koma tables build sliding --size 5x5`" in plan.note
    monkeypatch.setattr(speed, "twentyfour_tables_built", lambda: True)
    assert speed.optimum_plan(speed_puzzle(5, 5)) == speed.OptimumPlan(True, speed.OPTIMUM_LIMIT_SECONDS)
    assert speed.optimum_plan(speed_puzzle(6, 6)) == speed.OptimumPlan(False)  # played, never solved


def test_the_optimum_s_line_while_it_searches_and_when_it_gives_up():
    from tui.game.speed import gave_up_text, searching_text

    assert searching_text({}, 30.0) == "optimal: searching…"
    assert searching_text({"bound": 72, "seconds": 12.4}, 30.0) == "optimal: searching… bound 72 · 12 s of 30"
    assert searching_text({"bound": 40, "seconds": 0.2}, None) == "optimal: searching… bound 40 · 0 s"
    assert gave_up_text(68, 30.0) == "optimal: not found in 30 s (at least 68 moves)"
