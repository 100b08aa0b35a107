"""Koma's auto-solve playback, without the UI: the moves left, pause, speed and stepping.

The controller plays one move per tick of a timer it gets from its host (a screen's
``set_interval``), through the host's ``play`` callback, which says whether the move still fits
the board.  Any move of the player's takes over: the host calls :meth:`PlaybackController.stop`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Protocol

from tui.game.formatting import plural

SPEEDS = (1.2, 0.8, 0.5, 0.3, 0.18, 0.1, 0.05)  # seconds per move
DEFAULT_SPEED = 3


class Timer(Protocol):
    def stop(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...


class Step(Enum):
    """What one step forward did."""

    PLAYED = "played"  # a move was played; more are left
    FINISHED = "finished"  # the last move was played
    MISFIT = "misfit"  # the next move no longer fits the board: playback stopped


class PlaybackController:
    """Plays a list of moves one per tick; ``moves`` is None when no playback is under way."""

    def __init__(self, schedule: Callable[[float, Callable[[], None]], Timer], play: Callable[[str], bool]):
        self.schedule, self.play = schedule, play
        self.moves: list[str] | None = None
        self.paused = False
        self.speed = DEFAULT_SPEED  # an index into SPEEDS; it lasts from one playback to the next
        self.timer: Timer | None = None
        self.on_step: Callable[[Step], None] = lambda step: None  # told after each timed step

    @property
    def active(self) -> bool:
        return self.moves is not None

    def start(self, moves: list[str]) -> None:
        self.moves = list(moves)
        self.paused = False
        self._restart_timer()

    def stop(self) -> bool:
        """End the playback; False if there was none."""
        if self.moves is None:
            return False
        self.moves = None
        self.paused = False
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        return True

    def toggle_pause(self) -> None:
        if self.moves is not None:
            self.paused = not self.paused

    def change_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        if self.moves is not None:
            self._restart_timer()

    def forward(self) -> Step:
        """Play the next move (the playback stops after the last one, or at a move that no longer fits)."""
        if not self.moves:
            self.stop()
            return Step.FINISHED
        move = self.moves.pop(0)
        if not self.play(move):
            self.stop()
            return Step.MISFIT
        if not self.moves:
            self.stop()
            return Step.FINISHED
        return Step.PLAYED

    def back(self, move: str) -> None:
        """Put ``move`` (just undone) back at the front of the moves left."""
        if self.moves is not None:
            self.moves.insert(0, move)

    def hold(self, held: bool) -> None:
        """Hold the timer while the screen is hidden (the playback's own pause is unchanged)."""
        if self.timer is not None:
            self.timer.pause() if held else self.timer.resume()

    def lines(self, key: Callable[[str, str], str] = lambda _binding, default: default,
              width: int = 40) -> list[list[tuple[str, bool]]]:
        """The panel's line as lines of parts ``(text, dim)``; ``key(binding_id, default)`` names the key bound now (a
        remapped key as remapped).  The parts (what Koma does, the speed, then the keys, dim) flow onto lines of at
        most ``width`` cells: two on a phone's 40 columns, three in a 30-column panel, never a part cut in two (what
        Koma does is said shorter where it would not fit a line).  No lines when nothing plays."""
        if self.moves is None:
            return []
        state = "paused" if self.paused else "playing"
        pause, faster, slower = key("play.space", "space"), key("play.faster", "+"), key("play.slower", "-")
        back, forward = key("play.step_back", "["), key("play.step_forward", "]")
        doing = next((text for text in (f"Koma is {state}: {plural(len(self.moves), 'move')} left",
                                         f"{state.capitalize()}: {plural(len(self.moves), 'move')} left")
                      if len(text) <= width), f"{state.capitalize()}: {len(self.moves)} left")
        parts = [(doing, False),
                 (f"{SPEEDS[self.speed]:.2g} s", False),
                 (f"{pause} pause", True), (f"{faster}/{slower} speed", True), (f"{back} {forward} step", True)]
        lines: list[list[tuple[str, bool]]] = [[]]
        for part in parts:
            line = lines[-1]
            if line and sum(len(text) + 3 for text, _ in line) + len(part[0]) > width:
                lines.append(line := [])
            line.append(part)
        return lines

    def _tick(self) -> None:
        if self.moves is not None and not self.paused:
            self.on_step(self.forward())

    def _restart_timer(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.schedule(SPEEDS[self.speed], self._tick)
