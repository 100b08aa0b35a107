"""Pilot tests of the Speed screen: real solves by keys and by clicks, every figure checked against the recorded
moves; the session's averages; the keys' schemes and keymap; sizes to 10x10 at 80x24."""

from __future__ import annotations

import random
from itertools import pairwise

from speed_helpers import drawn_cells
from tui_helpers import make_app, read_store, wait_for

from solver import solving as search
from solver.sliding.model import TILE_DELTA, SlidingPuzzle
from tui.game.averages import seconds_text
from tui.game.speed import line_moves
from tui.screens.home import LabLink
from tui.screens.speed import SpeedScreen
from tui.widgets.board import Board

GAP = 0.25  # seconds between moves on the test's clock


class StepClock:
    """The app's clock, moved on by the test."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def panel(screen, line_id: str) -> str:
    return str(screen.query_one(f"#{line_id}").render())




async def open_speed(pilot, size=(3, 3), seed=1) -> SpeedScreen:
    screen = SpeedScreen(size, rng=random.Random(seed))
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def optimal_moves(screen: SpeedScreen) -> list[str]:
    puzzle = screen.solve.puzzle
    solution = search.solve(puzzle, screen.solve.state)
    assert puzzle.replay(screen.solve.state, solution.moves)[-1] == puzzle.goal
    return list(solution.moves)


KEYS = {"U": "up", "D": "down", "L": "left", "R": "right"}


async def solve_by_keys(pilot, screen: SpeedScreen, clock: StepClock) -> list[str]:
    moves = optimal_moves(screen)
    for index, move in enumerate(moves):
        if index:
            clock.t += GAP
        await pilot.press(KEYS[move])
    await wait_for(pilot, lambda: screen.solve.solved, what="the solve")
    return moves


def check_figures(screen: SpeedScreen, moves: list[str], times_ms: list[int]) -> None:
    """Every figure of the last solve, from the moves and times the test played."""
    result = screen.last
    assert result is not None and not result.dnf
    assert list(result.moves) == moves and list(result.times_ms) == times_ms
    time_ms = times_ms[-1]
    assert result.time_ms == time_ms == sum(b - a for a, b in pairwise(times_ms))
    stm = len(moves)
    mtm = sum(1 for k, m in enumerate(moves) if k == 0 or moves[k - 1] != m)
    assert (result.stm, result.mtm) == (stm, mtm)
    tps = stm * 1000 / time_ms
    assert result.tps == tps
    assert f"Solved in {seconds_text(time_ms)}" in panel(screen, "speed-message")
    assert f"STM {stm}  MTM {mtm}  TPS {tps:.2f}" in panel(screen, "speed-message")
    assert f"Time {seconds_text(time_ms)}" in panel(screen, "speed-clock")
    assert panel(screen, "speed-figures") == f"STM {stm}  MTM {mtm}  TPS {tps:.2f}"  # the live line agrees after it


async def test_home_lists_speed_with_its_key(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        links = [str(link.render()) for link in app.screen.query(LabLink)]
        assert any(text.startswith("Speed (s)") for text in links)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedScreen), what="the speed screen")
        assert panel(app.screen, "speed-id").startswith("ID 15-")
        assert "ao5" in panel(app.screen, "speed-averages") and "ao12" in panel(app.screen, "speed-averages")


async def test_a_solve_by_keys_clock_on_the_first_move(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot)
        board = screen.query_one("#speed-board", Board)
        assert board.state == screen.solve.scramble  # the board shows before the clock starts
        clock.t += 42.0  # inspection
        await pilot.pause()
        assert screen.solve.elapsed_ms() == 0 and "Time 0.000" in panel(screen, "speed-clock")
        moves = await solve_by_keys(pilot, screen, clock)
        check_figures(screen, moves, [round(k * GAP * 1000) for k in range(len(moves))])
        assert board.state == SlidingPuzzle(3, 3).goal
        assert "TPS" in panel(screen, "speed-message")


async def test_a_solve_by_clicks_on_whole_lines(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=3)
        puzzle = screen.solve.puzzle
        lines = line_moves(optimal_moves(screen))
        board = screen.query_one("#speed-board", Board)
        played: list[str] = []
        times: list[int] = []
        for index, line in enumerate(lines):
            if index:
                clock.t += GAP
            row, col = divmod(screen.solve.state.index(0), puzzle.width)
            d_row, d_col = TILE_DELTA[line.direction]
            cell = (row - d_row * line.count) * puzzle.width + (col - d_col * line.count)  # the line's far tile
            x, y = board.cell_origin(cell)
            await pilot.click(board, offset=(x + 1, y))
            played += line.tiles
            times += [round(index * GAP * 1000)] * line.count
            assert screen.solve.moves == played
        await wait_for(pilot, lambda: screen.solve.solved, what="the solve")
        check_figures(screen, played, times)
        assert screen.last is not None and screen.last.mtm == len(lines)  # one click, one MTM move


async def test_five_solves_give_the_session_its_ao5(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=11)
        times = []
        for _ in range(5):
            await solve_by_keys(pilot, screen, clock)
            assert screen.last is not None
            times.append(screen.last.time_ms)
            await pilot.press("space")
            await pilot.pause()
        kept = sorted(times)[1:4]
        averages = panel(screen, "speed-averages")
        ao5_line = next(line for line in averages.splitlines() if line.startswith("ao5"))
        assert seconds_text(sum(kept) / 3) in ao5_line
        mo3_line = next(line for line in averages.splitlines() if line.startswith("mo3"))
        assert mo3_line.split()[1] == seconds_text(sum(times[-3:]) / 3)
        assert "5 solves" in averages


async def test_giving_up_counts_a_dnf(tmp_path):
    app = make_app(tmp_path)
    app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=5)
        first = optimal_moves(screen)[0]
        await pilot.press(KEYS[first])
        await pilot.press("space")  # a new scramble: the solve under way is a DNF
        await pilot.pause()
        assert "1 DNF" in panel(screen, "speed-averages")
        await pilot.press("space")  # nothing begun: no DNF
        await pilot.pause()
        assert "1 solve, 1 DNF" in panel(screen, "speed-averages")


async def test_keys_can_be_remapped_and_the_scheme_turned_over(tmp_path):
    app = make_app(tmp_path, keymap={"speed.up": "w", "speed.down": "s"})
    app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=8)
        puzzle = screen.solve.puzzle
        row = screen.solve.state.index(0) // puzzle.width
        tile_up, key = ("w", "U") if row < puzzle.height - 1 else ("s", "D")
        await pilot.press(tile_up)
        assert screen.solve.moves == [key]
        await pilot.press("i")  # arrows (and their keys) now move the blank: the tile goes back
        assert "arrows: blank" in panel(screen, "speed-title")
        await pilot.press(tile_up)
        assert screen.solve.moves == [key, {"U": "D", "D": "U"}[key]]


async def test_a_10x10_board_fits_80x24_with_every_tile_readable(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, size=(10, 10))
        await pilot.pause()
        board = screen.query_one("#speed-board", Board)
        assert not board.boxed and app.screen.region.contains_region(board.region)
        tw, th = board.tile_size()
        assert tw * 10 <= board.size.width and th * 10 <= board.size.height and tw >= 3  # two digits and a gap
        assert drawn_cells(board) == ["" if value == 0 else str(value) for value in screen.solve.state]
        assert panel(screen, "speed-id").startswith("ID sliding10x10-")


async def test_help_opens_on_the_speed_rules(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_speed(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "Speed (the speedsolvers' rules" in text and "ao100" in text


async def test_solves_reach_the_store_whole(tmp_path):
    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=21)
        await solve_by_keys(pilot, screen, clock)
        solved = screen.last
        await pilot.press("space")
        await pilot.press(KEYS[optimal_moves(screen)[0]])
        await pilot.press("space")  # given up: a DNF
        await pilot.pause()
        given_up = screen.last
        assert given_up is not None and given_up.dnf
        assert await read_store(pilot, lambda store: store.speed_solves("3x3")) == [solved, given_up]


async def test_the_session_screen_and_a_replay_on_the_solve_s_own_times(tmp_path):
    from tui.screens.speed_replay import SpeedReplayScreen
    from tui.screens.speed_session import SpeedSessionScreen

    app = make_app(tmp_path)
    clock = app.clock = StepClock()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_speed(pilot, seed=2)
        for _ in range(2):
            await solve_by_keys(pilot, screen, clock)
            await pilot.press("space")
        await wait_for(pilot, lambda: len(screen.session.optimal) == 2, what="the optimal lengths")
        for index, result in enumerate(screen.session.results):  # the optimum, checked by the solver's own replay
            assert screen.session.optimal[index] == len(search.solve(SlidingPuzzle(3, 3), result.scramble).moves)
            assert screen.session.efficiency(index) == 1.0  # the tests play optimal solutions
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, SpeedSessionScreen), what="the session screen")
        session_screen = app.screen
        await wait_for(pilot, lambda: "Records 3x3: 2 solves" in panel(session_screen, "speed-session-records"),
                       what="the records")
        assert "This session 3x3: 2 solves" in panel(session_screen, "speed-session-averages")
        newest = screen.session.results[-1]
        delays: list[float] = []
        real_set_timer = SpeedReplayScreen.set_timer

        def recording(self, delay, callback=None, **kwargs):
            delays.append(delay)
            return real_set_timer(self, 0.001, callback, **kwargs)

        SpeedReplayScreen.set_timer = recording  # type: ignore[method-assign]
        try:
            await pilot.press("r")  # the newest solve is the first row
            await wait_for(pilot, lambda: isinstance(app.screen, SpeedReplayScreen), what="the replay")
            replay = app.screen
            await wait_for(pilot, lambda: replay.done, what="the replay's end")
        finally:
            SpeedReplayScreen.set_timer = real_set_timer  # type: ignore[method-assign]
        assert replay.result == newest and replay.state == SlidingPuzzle(3, 3).goal
        gaps = [(b - a) / 1000 for a, b in pairwise(newest.times_ms)]
        assert delays[1:] == gaps  # after the scramble's pause, each move waits its own gap (at x1)
        assert f"Time {seconds_text(newest.time_ms)} / {seconds_text(newest.time_ms)}" in panel(replay, "replay-clock")


async def test_a_replay_twice_as_fast_waits_half_each_gap(tmp_path, monkeypatch):
    from tui.game.speed import SpeedResult
    from tui.screens.speed_replay import SpeedReplayScreen

    result = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 0, 876, 1000))
    delays: list[float] = []
    real_set_timer = SpeedReplayScreen.set_timer

    def recording(self, delay, callback=None, **kwargs):
        delays.append(delay)
        return real_set_timer(self, 0.001, callback, **kwargs)

    monkeypatch.setattr(SpeedReplayScreen, "set_timer", recording)
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        replay = SpeedReplayScreen(result, speed=2.0)
        await app.push_screen(replay)
        await wait_for(pilot, lambda: replay.done, what="the replay's end")
        assert replay.state == SlidingPuzzle(3, 3).goal
        assert delays[-2:] == [0.876 / 2, 0.124 / 2]  # U2 (one click) at 0, L at 876 ms, L at 1000 ms
        assert "x2" in panel(replay, "replay-title")


async def test_the_replay_steps_through_koma_s_optimal_solution_beside_the_player_s(tmp_path, monkeypatch):
    from tui.game.speed import SpeedResult
    from tui.screens.speed_replay import SpeedReplayScreen

    real_set_timer = SpeedReplayScreen.set_timer
    monkeypatch.setattr(SpeedReplayScreen, "set_timer",
                        lambda self, delay, callback=None, **kw: real_set_timer(self, 0.001, callback, **kw))
    # a detour: R L before the two line moves that solve it (6 STM where 4 are optimal)
    result = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("LRUULL"), (0, 100, 200, 300, 400, 500))
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        replay = SpeedReplayScreen(result)
        await app.push_screen(replay)
        await wait_for(pilot, lambda: replay.done, what="the player's replay")
        await pilot.press("o")
        await wait_for(pilot, lambda: replay.koma_steps is not None, what="Koma's optimal solution")
        optimal = search.solve(SlidingPuzzle(3, 3), result.scramble)
        assert sum(move.count for _, move in replay.koma_steps) == optimal.length == 4
        await wait_for(pilot, lambda: replay.done, what="Koma's replay")
        assert replay.state == SlidingPuzzle(3, 3).goal and "Koma's optimal" in panel(replay, "replay-title")
        assert "Koma: 4 (optimal) · you: 6 STM · efficiency 67%" in panel(replay, "replay-optimal")
        await pilot.press("space")  # paused: step back and forward through Koma's moves
        await pilot.press("left_square_bracket")
        assert replay.position == len(replay.koma_steps) - 1 and replay.state != SlidingPuzzle(3, 3).goal
        await pilot.press("right_square_bracket")
        assert replay.state == SlidingPuzzle(3, 3).goal
        await pilot.press("o")  # back to the player's own
        assert replay.steps is replay.player_steps and "Replay" in panel(replay, "replay-title")


async def test_a_replay_of_moves_made_in_the_same_millisecond_plays_to_its_end(tmp_path):
    """Keys that arrive together (one network packet) can be played in the same millisecond: a gap of 0 between two
    moves must not stop the replay (a timer of 0 s fails inside Textual when it runs late)."""
    from tui.game.speed import SpeedResult
    from tui.screens.speed_replay import SpeedReplayScreen

    result = SpeedResult(3, 3, (0, 2, 3, 1, 5, 6, 4, 7, 8), tuple("UULL"), (0, 0, 0, 0))
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        replay = SpeedReplayScreen(result, speed=8.0)
        await app.push_screen(replay)
        await wait_for(pilot, lambda: replay.done, timeout=30, what="the replay's end")
        assert replay.state == SlidingPuzzle(3, 3).goal
