"""A speed solve replayed in real time from its per-move times, or faster or slower.

Each step is one line move as it was played (:func:`~tui.game.speed.timed_steps`); the next waits for the gap
between their times divided by the speed.  Space pauses, ``+ -`` change the speed, ``r`` starts over.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer

from ..ascii import Static
from ..game.averages import seconds_text
from ..game.speed import SpeedResult, apply_line, speed_puzzle, timed_steps
from ..rendering import DirtyOnlyRendering
from ..widgets.board import Board
from ..widgets.keybar import KeyBar
from ..widgets.looks import look_for
from ..widgets.titlebar import TitleBar

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
START_PAUSE_SECONDS = 0.5  # the scramble shows this long before the first move


def speed_text(factor: float) -> str:
    return f"x{factor:g}"


class SpeedReplayScreen(DirtyOnlyRendering):
    """One speed solve played back with its own timing."""

    BINDINGS = [
        Binding("space", "pause", "pause", id="speed_replay.pause", tooltip="Pause or go on"),
        Binding("plus,equals_sign", "speed(1)", "faster", id="speed_replay.faster", tooltip="Faster"),
        Binding("minus", "speed(-1)", "slower", id="speed_replay.slower", tooltip="Slower"),
        Binding("r", "restart", "restart", id="speed_replay.restart", tooltip="From the scramble again"),
        Binding("escape", "back", "back", id="speed_replay.back", tooltip="Back"),
    ]

    def __init__(self, result: SpeedResult, *, ascii_only: bool = False, speed: float = 1.0):
        super().__init__(classes="speed-replay")
        self.result = result
        self.puzzle = speed_puzzle(result.width, result.height)
        self.steps = timed_steps(result)
        self.ascii_only = ascii_only
        self.factor = speed if speed in SPEEDS else 1.0
        self.position = 0  # steps played
        self.state = result.scramble
        self.paused = False
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="speed-body"):
            board = Board(look_for(self.puzzle, self.ascii_only), self.state, id="speed-board")
            board.set_reactive(Board.cursor, -1)  # nothing to point at
            yield board
            with Vertical(id="speed-side"):
                yield Static(id="replay-title")
                yield Static(id="replay-clock")
                yield Static(id="replay-figures")
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
        self.query_one("#replay-title", Static).update(
            f"[b]Replay[/b]  {self.result.size_label}  {speed_text(self.factor)}  [dim]{state}[/dim]")
        self.query_one("#replay-clock", Static).update(f"Time [b]{seconds_text(self.shown_ms)}[/b] / {verdict}")
        tiles = sum(move.count for _, move in self.steps[:self.position])
        self.query_one("#replay-figures", Static).update(f"STM {tiles} / {self.result.stm}  (move {self.position} "
                                                         f"of {len(self.steps)})")

    def _schedule(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.timer = None if self.done or self.paused else self.set_timer(seconds, self._step)

    def _step(self) -> None:
        self.timer = None
        if self.done or self.paused:
            return
        at, move = self.steps[self.position]
        self.state = apply_line(self.puzzle, self.state, move)
        self.position += 1
        self.query_one("#speed-board", Board).show(self.state, animate=False)
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

    def action_restart(self) -> None:
        self.position, self.state, self.paused = 0, self.result.scramble, False
        self.query_one("#speed-board", Board).show(self.state, animate=False)
        self._show()
        self._schedule(START_PAUSE_SECONDS)

    def action_back(self) -> None:
        self.app.pop_screen()
