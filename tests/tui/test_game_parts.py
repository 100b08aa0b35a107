"""The play screen's UI-free parts: stop flags for cancel-on-quit, the game clock, the playback controller."""

from __future__ import annotations

import threading

from rich.text import Text

from solver.engines.stop import stop_requested
from solver.registry import get_puzzle
from tui.game.clock import GameClock
from tui.game.playback import SPEEDS, PlaybackController, Step
from tui.game.solver_jobs import SolverJob, StopFlags
from tui.widgets.game_texts import playback_text


def test_a_job_flag_is_registered_while_it_runs_and_quitting_stops_it():
    flags = StopFlags()
    job = SolverJob("solve", (1, 2, 3))
    seen: list[bool] = []

    def worker() -> None:
        with flags.registered(job):
            seen.append(id(job.stop) in flags)
            flags.stop_all()  # what quitting does, from the UI thread
            seen.append(job.cancelled)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=10)
    assert seen == [True, True] and stop_requested(job.stop)
    assert id(job.stop) not in flags  # dropped when the block ends


def test_a_job_that_starts_after_quitting_began_is_stopped_at_once():
    flags = StopFlags()
    flags.stop_all()
    with flags.registered(SolverJob("solve")) as job:
        assert job.cancelled


def test_a_job_cancel_sets_only_its_own_flag():
    first, second = SolverJob("hint"), SolverJob("solve")
    first.cancel()
    assert first.cancelled and not second.cancelled


def test_the_clock_counts_only_while_it_runs():
    now = [100.0]
    clock = GameClock(lambda: now[0], seconds=5.0)
    now[0] = 130.0
    assert clock.elapsed() == 5.0 and not clock.running
    assert clock.start() and not clock.start()
    now[0] = 140.0
    assert clock.elapsed() == 15.0
    clock.pause()
    now[0] = 1000.0
    assert clock.elapsed() == 15.0 and not clock.running


class Ticker:
    """The host's ``set_interval`` as the controller sees it: it records the interval and is ticked by hand."""

    def __init__(self) -> None:
        self.timers: list[Ticker.Timer] = []

    class Timer:
        def __init__(self, seconds, callback):
            self.seconds, self.callback, self.running = seconds, callback, True

        def stop(self) -> None:
            self.running = False

        def pause(self) -> None:
            self.running = False

        def resume(self) -> None:
            self.running = True

    def __call__(self, seconds, callback):
        self.timers.append(Ticker.Timer(seconds, callback))
        return self.timers[-1]

    def tick(self) -> None:
        for timer in self.timers:
            if timer.running:
                timer.callback()


def test_playback_plays_a_real_solution_to_the_goal_then_stops():
    puzzle = get_puzzle("8")
    board = [puzzle.parse("1 2 3/4 5 6/_ 7 8")]
    moves = ["L", "L"]

    def play(move: str) -> bool:
        if move not in puzzle.moves(board[0]):
            return False
        board[0] = puzzle.apply(board[0], move)
        return True

    ticker = Ticker()
    steps: list[Step] = []
    playback = PlaybackController(ticker, play)
    playback.on_step = steps.append
    playback.start(moves)
    playback.toggle_pause()
    ticker.tick()
    assert steps == [] and playback.moves == moves  # paused: nothing played
    playback.toggle_pause()
    ticker.tick()
    ticker.tick()
    assert steps == [Step.PLAYED, Step.FINISHED] and puzzle.is_goal(board[0]) and not playback.active
    assert not any(timer.running for timer in ticker.timers)


def test_playback_speed_stays_in_range_and_a_misfit_stops_it():
    ticker = Ticker()
    playback = PlaybackController(ticker, lambda move: move != "X")
    playback.start(["R", "X", "R"])
    for _ in range(20):
        playback.change_speed(1)
    assert ticker.timers[-1].seconds == SPEEDS[-1]
    assert playback.forward() is Step.PLAYED
    assert playback.forward() is Step.MISFIT and not playback.active and playback.lines() == []


def test_the_playback_line_flows_its_parts_onto_lines_of_the_panel_s_width():
    """What Koma does and the speed, then the keys: two lines in a phone's 40 columns, three in 30; a part is never
    cut in two, and a line is longer than the width only when one part alone is."""
    playback = PlaybackController(Ticker(), lambda move: True)
    playback.start(["R"] * 31)
    for width, rows in ((40, 2), (30, 3), (200, 1)):
        lines = [Text.from_markup(line).plain for line in playback_text(playback.lines(width=width)).split("\n")]
        assert len(lines) == rows and all(len(line) <= width for line in lines), (width, lines)
        assert " · ".join(lines) == "Koma is playing: 31 moves left · 0.3 s · space pause · +/- speed · [ ] step"
    for width, doing in ((29, "Playing: 31 moves left"), (20, "Playing: 31 left")):  # a panel after a resize
        lines = [Text.from_markup(line).plain for line in playback_text(playback.lines(width=width)).split("\n")]
        assert lines[0].startswith(doing) and all(len(line) <= width for line in lines), (width, lines)
    remapped = playback_text(playback.lines(lambda binding, default: "ctrl+shift+page_down" if binding == "play.space"
                                            else default, width=12))
    assert "ctrl+shift+page_down pause" in Text.from_markup(remapped).plain.split("\n")
