"""A speed solve replayed in real time from its per-move times, or faster or slower; and Koma's optimal solution
of the same scramble, to step through beside it.

Each step is one line move as it was played (:func:`~tui.game.speed.timed_steps`); the next waits for the gap
between their times divided by the speed.  Space pauses, ``+ -`` change the speed, ``[ ]`` step while paused,
``r`` starts over.  ``o`` switches to Koma's optimal solution (found in the background: boards of up to 16 cells; the
4x5, 5x4, and the 5x5 once its tables are built, within a time budget; see :func:`~tui.game.speed.optimum_plan`),
played at the player's own average pace, and back.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer

from solver import solving as search
from solver.errors import GaveUp
from solver.puzzle import Solution
from tui.ascii import Static
from tui.game.averages import seconds_text
from tui.game.solver_jobs import SolverJob
from tui.game.speed import LineMove, SpeedResult, apply_line, gave_up_text, line_moves, optimum_plan, searching_text, speed_puzzle, timed_steps
from tui.game.speed_interop import replay_link
from tui.messages import JobFailed, JobProgress
from tui.patches.rendering import DirtyOnlyRendering
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import SpeedLook
from tui.widgets.titlebar import TitleBar
from tui.workers import run_job

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
START_PAUSE_SECONDS = 0.5  # the scramble shows this long before the first move
SHORTEST_WAIT_SECONDS = 0.001  # the shortest timer the replay sets


def speed_text(factor: float) -> str:
    return f"x{factor:g}"


@dataclass
class OptimalFound(Message):
    """Koma's optimal solution of the replayed scramble."""

    job: SolverJob
    solution: Solution


def paced_steps(moves: tuple[str, ...], result: SpeedResult) -> list[tuple[int, LineMove]]:
    """Koma's ``moves`` as line moves timed at the player's own pace (their ms per tile), from 0."""
    pace = (result.time_ms - (result.times_ms[0] if result.times_ms else 0)) / max(1, result.stm)
    steps, tiles = [], 0
    for move in line_moves(moves):
        steps.append((round(tiles * pace), move))
        tiles += move.count
    return steps


class SpeedReplayScreen(DirtyOnlyRendering):
    """One speed solve played back with its own timing."""

    BINDINGS = [
        Binding("space", "pause", "pause", id="speed_replay.pause", tooltip="Pause or go on"),
        Binding("plus,equals_sign", "speed(1)", "faster", id="speed_replay.faster", tooltip="Faster"),
        Binding("minus", "speed(-1)", "slower", id="speed_replay.slower", tooltip="Slower"),
        Binding("right_square_bracket", "step(1)", "Step forward", id="speed_replay.step_forward", show=False,
                tooltip="One move forward (while paused)"),
        Binding("left_square_bracket", "step(-1)", "Step back", id="speed_replay.step_back", show=False,
                tooltip="One move back (while paused)"),
        Binding("r", "restart", "restart", id="speed_replay.restart", tooltip="From the scramble again"),
        Binding("o", "optimal", "Koma's optimal", id="speed_replay.optimal",
                tooltip="Koma's optimal solution of this scramble, at your pace, and back to yours"),
        Binding("l", "link", "link", id="speed_replay.link", tooltip="Copy the solve's Slidysim replay link"),
        Binding("escape", "back", "back", id="speed_replay.back", tooltip="Back"),
    ]

    def __init__(self, result: SpeedResult, *, ascii_only: bool = False, speed: float = 1.0,
                 koma_moves: tuple[str, ...] | None = None):
        """``koma_moves``: Koma's optimal solution when the search after the solve found it (``o`` then needs none)."""
        super().__init__(classes="speed-replay")
        self.result = result
        self.puzzle = speed_puzzle(result.width, result.height)
        self.player_steps = timed_steps(result)
        self.steps = self.player_steps
        self.koma_steps = paced_steps(koma_moves, result) if koma_moves else None  # Koma's optimal, once found
        self.optimal_job: SolverJob | None = None
        self.optimal_limit: float | None = None  # the search's time budget, in seconds
        self.ascii_only = ascii_only
        self.factor = speed if speed in SPEEDS else 1.0
        self.position = 0  # steps played
        self.state = result.scramble
        self.paused = False
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="speed-body"):
            yield Board(SpeedLook(self.puzzle.width, self.puzzle.height, self.ascii_only), self.state, id="speed-board")
            with Vertical(id="speed-side"):
                yield Static(id="replay-title")
                yield Static(id="replay-clock")
                yield Static(id="replay-figures")
                yield Static(id="replay-optimal")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"Speed replay {self.result.size_label}"
        self._show()
        self._schedule(START_PAUSE_SECONDS)

    @property
    def done(self) -> bool:
        return self.position >= len(self.steps)

    @property
    def shown_ms(self) -> int:
        """The solve's clock at the step shown."""
        return self.steps[self.position - 1][0] if self.position else 0

    def _show(self) -> None:
        state = "paused" if self.paused else "done" if self.done else "playing"
        verdict = "DNF" if self.result.dnf else seconds_text(self.result.time_ms)
        whose = "Koma's optimal" if self.steps is self.koma_steps else "Replay"
        self.query_one("#replay-title", Static).update(
            f"[b]{whose}[/b]  {self.result.size_label}  {speed_text(self.factor)}  [dim]{state}[/dim]")
        self.query_one("#replay-clock", Static).update(f"Time [b]{seconds_text(self.shown_ms)}[/b] / {verdict}")
        tiles = sum(move.count for _, move in self.steps[:self.position])
        total = sum(move.count for _, move in self.steps)
        self.query_one("#replay-figures", Static).update(f"STM {tiles} / {total}  (move {self.position} "
                                                         f"of {len(self.steps)})")
        if self.koma_steps is not None:
            koma = sum(move.count for _, move in self.koma_steps)
            self.query_one("#replay-optimal", Static).update(
                f"Koma: {koma} (optimal) · you: {self.result.stm} STM" + (
                    f" · efficiency {koma / self.result.stm:.0%}" if self.result.stm and not self.result.dnf else ""))

    def _schedule(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.stop()
        # moves made in the same millisecond (keys that came in one packet) are 0 s apart: a timer of 0 s fails
        # inside Textual when it runs late, so the shortest wait is a millisecond
        self.timer = None if self.done or self.paused else self.set_timer(max(seconds, SHORTEST_WAIT_SECONDS), self._step)

    def _step(self) -> None:
        self.timer = None
        if self.done or self.paused:
            return
        at, move = self.steps[self.position]
        self.state = apply_line(self.puzzle, self.state, move)
        self.position += 1
        self.query_one("#speed-board", Board).show(self.state)
        self._show()
        if not self.done:
            self._schedule((self.steps[self.position][0] - at) / 1000 / self.factor)

    def _next_gap(self) -> float:
        if self.done:
            return 0.0
        return (self.steps[self.position][0] - self.shown_ms) / 1000 / self.factor if self.position else 0.0

    def action_pause(self) -> None:
        self.paused = not self.paused
        self._schedule(self._next_gap())
        self._show()

    def action_speed(self, delta: int) -> None:
        index = SPEEDS.index(self.factor)
        self.factor = SPEEDS[max(0, min(len(SPEEDS) - 1, index + delta))]
        self._schedule(self._next_gap())
        self._show()

    def action_step(self, delta: int) -> None:
        """One move forward or back, while paused."""
        if not self.paused:
            self.app.bell()
            return
        position = max(0, min(len(self.steps), self.position + delta))
        self._go_to(position)

    def _go_to(self, position: int) -> None:
        state = self.result.scramble
        for _, move in self.steps[:position]:
            state = apply_line(self.puzzle, state, move)
        self.position, self.state = position, state
        self.query_one("#speed-board", Board).show(self.state)
        self._show()

    def action_optimal(self) -> None:
        """Koma's optimal solution of the scramble (found once, in the background), and back to the player's."""
        if self.koma_steps is not None:
            self._switch(self.player_steps if self.steps is self.koma_steps else self.koma_steps)
            return
        plan = optimum_plan(self.puzzle)
        if not plan.search:
            note = plan.note or f"optimal: Koma has no optimal solver for the {self.puzzle.size_label}"
            self.query_one("#replay-optimal", Static).update(note)
            self.notify(note, timeout=6)
            return
        if self.optimal_job is None:
            job = self.optimal_job = SolverJob("speed-replay-optimal", self.result.scramble)
            puzzle, options = self.puzzle, plan.options()
            run_job(self, job, lambda job, report: search.solve(puzzle, job.state, stop=job.stop, progress=report,
                                                                **options),
                    group="speed-replay-optimal", answer=OptimalFound)
            self.optimal_limit = plan.limit
            self.query_one("#replay-optimal", Static).update(searching_text({}, plan.limit))

    def on_job_progress(self, event: JobProgress) -> None:
        if event.job is self.optimal_job and self.koma_steps is None:
            self.query_one("#replay-optimal", Static).update(searching_text(event.info, self.optimal_limit))

    def on_job_failed(self, event: JobFailed) -> None:
        """The search ran out of time (say what it proved; ``o`` does not start it again) or failed."""
        if event.job is not self.optimal_job:
            return
        error = event.error
        self.query_one("#replay-optimal", Static).update(
            gave_up_text(error.lower_bound, self.optimal_limit or error.seconds) if isinstance(error, GaveUp)
            else f"optimal: not found ({error})")

    def on_optimal_found(self, event: OptimalFound) -> None:
        if event.job is not self.optimal_job:
            return
        if not event.solution.optimal:  # the 5x5's tables did not load: the solver fell back to a reduction
            self.query_one("#replay-optimal", Static).update(f"optimal: not proven ({event.solution.note})")
            return
        self.koma_steps = paced_steps(event.solution.moves, self.result)
        self._switch(self.koma_steps)

    def _switch(self, steps: list[tuple[int, LineMove]]) -> None:
        self.steps = steps
        self.action_restart()

    def on_unmount(self) -> None:
        if self.optimal_job is not None:
            self.optimal_job.cancel()

    def action_restart(self) -> None:
        self.position, self.state, self.paused = 0, self.result.scramble, False
        self.query_one("#speed-board", Board).show(self.state)
        self._show()
        self._schedule(START_PAUSE_SECONDS)

    def action_link(self) -> None:
        self.app.copy_to_clipboard(replay_link(self.result))
        self.notify("Copied the solve's Slidysim replay link.", timeout=3)

    def action_back(self) -> None:
        self.app.pop_screen()
