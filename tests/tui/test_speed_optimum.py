"""Pilot tests of the optimum after a speed solve beyond 4x4: the 4x5's optimal length, efficiency and Koma's solution in
the replay; the 5x5 without its tables (how to build them, nothing started); a search's progress, its time budget, and
its cancellation on leaving."""

from __future__ import annotations

import random
import threading

import pytest
from tui_helpers import make_app, wait_for

from solver import solving as search
from solver.sliding.model import SlidingPuzzle
from tui.game import speed
from tui.game.speed import LineMove
from tui.game.speed_events import EventRun
from tui.screens.speed import SpeedScreen
from tui.screens.speed_replay import SpeedReplayScreen

KEYS = {"U": "up", "D": "down", "L": "left", "R": "right"}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
EASY_4X5, HARD_4X5 = 3, 5  # seeds: a 57-move scramble found in moments, and one not found in 20 s (bound 70)


class StepClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def panel(screen, line_id: str) -> str:
    return str(screen.query_one(f"#{line_id}").render())


def searching() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("koma-ida-")]


async def search_threads_seen(pilot, looks: int = 20) -> set[str]:
    """The names of the search threads over ``looks`` looks that found one running (each IDA* iteration starts its
    threads anew: between two iterations, none runs, and a single look may fall there)."""
    seen: set[str] = set()
    found = 0

    def look() -> bool:
        nonlocal found
        names = {thread.name for thread in searching()}
        seen.update(names)
        found += bool(names)
        return found >= looks

    await wait_for(pilot, look, what="the search's threads")
    return seen


@pytest.fixture
def quick_replays(monkeypatch):
    real_set_timer = SpeedReplayScreen.set_timer
    monkeypatch.setattr(SpeedReplayScreen, "set_timer",
                        lambda self, delay, callback=None, **kw: real_set_timer(self, 0.001, callback, **kw))


async def play_all(pilot, screen: SpeedScreen, clock: StepClock, moves) -> None:
    for move in moves:
        clock.t += 0.2
        await pilot.press(KEYS[move])
    await wait_for(pilot, lambda: screen.solve.solved, what="the solve")


async def test_a_4x5_solve_shows_its_optimal_length_and_efficiency_and_the_replay_steps_through_koma_s(
        tmp_path, quick_replays):
    puzzle = SlidingPuzzle(4, 5)
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((4, 5), rng=random.Random(EASY_4X5))
        await app.push_screen(screen)
        scramble = screen.solve.scramble
        optimal = search.solve(puzzle, scramble, heuristic="5-5-5-4", limit=60)
        assert optimal.optimal and puzzle.replay(scramble, optimal.moves)[-1] == puzzle.goal
        detour = next(m for m in "UDLR" if m in puzzle.moves(scramble))
        await play_all(pilot, screen, clock, [detour, INVERSE[detour], *optimal.moves])  # two moves over
        stm = optimal.length + 2
        line = f"optimal {optimal.length} · efficiency {optimal.length / stm:.0%}"
        await wait_for(pilot, lambda: line in panel(screen, "speed-optimum"), what="the optimum's line")
        assert screen.session.efficiency(len(screen.session.results) - 1) == optimal.length / stm
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedReplayScreen), what="the replay")
        replay = app.screen
        assert replay.koma_steps is not None  # the search after the solve found it: the replay has it at once
        await wait_for(pilot, lambda: replay.done, what="the player's replay")
        await pilot.press("o")
        await wait_for(pilot, lambda: replay.done, what="Koma's replay")
        assert replay.optimal_job is None  # and never searches again
        koma_moves = [m for _, move in replay.koma_steps for m in move.tiles]
        assert len(koma_moves) == optimal.length and puzzle.replay(scramble, koma_moves)[-1] == puzzle.goal
        assert replay.state == puzzle.goal and "Koma's optimal" in panel(replay, "replay-title")
        assert f"Koma: {optimal.length} (optimal) · you: {stm} STM" in panel(replay, "replay-optimal")


async def test_a_5x5_without_its_tables_says_how_to_build_them_and_starts_nothing(tmp_path, monkeypatch, quick_replays):
    from solver.sliding import tables, twentyfour

    def heavy(*args, **kwargs):
        raise AssertionError("the 5x5's tables were loaded or built")

    monkeypatch.setattr(speed, "twentyfour_tables_built", lambda: False)
    monkeypatch.setattr(twentyfour, "tables", heavy)
    monkeypatch.setattr(tables, "build_tables", heavy)
    puzzle = SlidingPuzzle(5, 5)
    near = puzzle.apply(puzzle.apply(puzzle.goal, "D"), "R")  # solved by L U
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((5, 5), rng=random.Random(1))
        screen.run = EventRun(screen.event, (5, 5), clock, screen.rng, scramble=near)
        await app.push_screen(screen)
        await play_all(pilot, screen, clock, ["L", "U"])
        build = "optimal: build the 5x5's tables once with `koma tables build sliding --size 5x5`"
        await wait_for(pilot, lambda: build in panel(screen, "speed-optimum"), what="how to build the tables")
        assert screen.optimum_job is None and not screen.optimum_wanted and not screen.session.optimal
        assert not [w for w in app.workers if w.group == "speed-optimum"] and not searching()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedReplayScreen), what="the replay")
        replay = app.screen
        await pilot.press("o")
        await wait_for(pilot, lambda: build in panel(replay, "replay-optimal"), what="the replay's note")
        assert replay.optimal_job is None and replay.koma_steps is None and not searching()


async def solve_hard_4x5(pilot, app, clock) -> SpeedScreen:
    """The hard 4x5 scramble, solved by the reduction's (non-optimal) moves: the optimum's search starts."""
    puzzle = SlidingPuzzle(4, 5)
    screen = SpeedScreen((4, 5), rng=random.Random(HARD_4X5))
    await app.push_screen(screen)
    quick = search.solve(puzzle, screen.solve.scramble)
    assert puzzle.replay(screen.solve.scramble, quick.moves)[-1] == puzzle.goal
    for move in quick.moves:
        clock.t += 0.1
        await screen.play(LineMove(move))
    await wait_for(pilot, lambda: screen.solve.solved, what="the solve")
    return screen


async def test_an_optimum_out_of_its_time_budget_says_what_it_proved(tmp_path, monkeypatch):
    monkeypatch.setattr(speed, "OPTIMUM_LIMIT_SECONDS", 1.0)
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await solve_hard_4x5(pilot, app, clock)
        # the answer, then the batch's end (two messages: a loaded box may draw the first before the second comes)
        await wait_for(pilot, lambda: "not found" in panel(screen, "speed-optimum") and screen.optimum_job is None,
                       what="the search's end")
        line = panel(screen, "speed-optimum")
        assert line.startswith("optimal: not found in 1 s (at least ") and line.endswith(" moves)")
        assert int(line.split("at least ")[1].split()[0]) >= 52  # the databases' own estimate of the scramble
        assert not screen.session.optimal


async def test_leaving_stops_the_optimum_s_searches_at_once(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await solve_hard_4x5(pilot, app, clock)
        await wait_for(pilot, lambda: "searching… bound" in panel(screen, "speed-optimum"), what="the search's bound")
        job = screen.optimum_job
        assert job is not None and not job.cancelled
        assert await search_threads_seen(pilot) == {"koma-ida-0"}  # the player plays on: the search leaves a core to the game
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedReplayScreen), what="the replay")
        replay = app.screen
        await pilot.press("o")
        await wait_for(pilot, lambda: "searching… bound" in panel(replay, "replay-optimal"), what="the replay's bound")
        replay_job = replay.optimal_job
        await wait_for(pilot, lambda: len(searching()) == 3, what="the replay's search on both cores")  # the player waits for it
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back from the replay")
        assert replay_job is not None and replay_job.cancelled and not job.cancelled
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not screen, what="back home")
        assert job.cancelled
        await wait_for(pilot, lambda: not searching() and not len(app.stop_flags), timeout=10, what="the searches' end")


@pytest.fixture
def small_twentyfour_tables(monkeypatch):
    """The 5x5's tables, as the game finds them once built: small ones here (13 of the 24 tiles, still admissible), as
    tests/tui/test_play_twentyfour.py gives the play screen (the real 6-6-6-6 take minutes to build)."""
    import numpy as np

    from solver.engines.pdb import build_pattern
    from solver.sliding import search_kernels as kernels
    from solver.sliding import twentyfour

    groups = ((1, 2, 6, 7), (4, 5, 9, 10), (18, 19, 20, 23, 24))
    table = np.concatenate([build_pattern(5, 5, g) for g in groups] + [np.zeros(1, np.uint8)])
    table.flags.writeable = False  # read-only as the game's are (np.load(mmap_mode='r')): the kernels' one compiled version serves both
    meta = kernels.pdb_tables(5, groups, reverse=True)
    monkeypatch.setattr(speed, "twentyfour_tables_built", lambda: True)
    monkeypatch.setattr(twentyfour, "tables", lambda notice=None: table)
    monkeypatch.setattr(twentyfour, "_pdb_meta", lambda name: meta)


async def test_a_5x5_with_its_tables_shows_its_optimum_and_gives_up_on_a_far_one_in_its_budget(
        tmp_path, monkeypatch, small_twentyfour_tables, quick_replays):
    monkeypatch.setattr(speed, "OPTIMUM_LIMIT_SECONDS", 2.0)
    puzzle = SlidingPuzzle(5, 5)
    near = puzzle.apply(puzzle.apply(puzzle.apply(puzzle.goal, "D"), "R"), "R")  # solved by L2 U
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SpeedScreen((5, 5), rng=random.Random(5))
        screen.run = EventRun(screen.event, (5, 5), clock, screen.rng, scramble=near)
        await app.push_screen(screen)
        await play_all(pilot, screen, clock, ["L", "R", "L", "L", "U"])  # two moves over
        await wait_for(pilot, lambda: "optimal 3 · efficiency 60%" in panel(screen, "speed-optimum"), what="the optimum")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedReplayScreen), what="the replay")
        replay = app.screen
        await pilot.press("o")
        await wait_for(pilot, lambda: replay.koma_steps is not None and replay.done, what="Koma's replay")
        koma_moves = [m for _, move in replay.koma_steps for m in move.tiles]
        assert len(koma_moves) == 3 and puzzle.replay(near, koma_moves)[-1] == puzzle.goal == replay.state
        await pilot.press("escape")
        await pilot.press("space")  # the next scramble: a random 5x5, far beyond the budget with these tables
        await wait_for(pilot, lambda: screen.solve.scramble != near and not screen.solve.started, what="a new scramble")
        far = screen.solve.scramble
        quick = search.solve(puzzle, far, method="reduction")
        assert puzzle.replay(far, quick.moves)[-1] == puzzle.goal
        for move in quick.moves:
            clock.t += 0.1
            await screen.play(LineMove(move))
        await wait_for(pilot, lambda: "not found" in panel(screen, "speed-optimum"), what="the search's end")
        assert panel(screen, "speed-optimum").startswith("optimal: not found in 2 s (at least ")
        assert len(screen.session.optimal) == 1  # the near one's only


async def test_quitting_mid_search_stops_it_at_once(tmp_path):
    import time

    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await solve_hard_4x5(pilot, app, clock)
        await wait_for(pilot, lambda: "searching… bound" in panel(screen, "speed-optimum"), what="the search's bound")
        job = screen.optimum_job
        await app.action_quit()
        assert job is not None and job.cancelled
    deadline = time.monotonic() + 10
    while searching() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not searching()
