"""A finished race replayed: every racer's board, each move at its real time from the reveal (or faster or
slower, as the speed replay goes: :mod:`tui.screens.speed_replay`), and the finish order as it happened.

The race's moves, every racer's together, are sorted by time; the next step waits for the gap between its time
and the clock shown, divided by the speed.  Space pauses, ``+ -`` change the speed, ``r`` starts over.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer

from tui.ascii import Static
from tui.game.averages import seconds_text
from tui.game.race_rules import Racer, Room
from tui.patches.rendering import DirtyOnlyRendering
from tui.screens.race_views import RaceBoards, minis_of, order_text
from tui.screens.speed_replay import SPEEDS, START_PAUSE_SECONDS, speed_text
from tui.widgets.keybar import KeyBar
from tui.widgets.race_minis import RaceMinis
from tui.widgets.titlebar import TitleBar


def race_steps(room: Room) -> list[int]:
    """The distinct times (ms from the reveal) at which something happens: a racer's move or finish."""
    times = {t for racer in room.racers for t in racer.times_ms}
    times |= {racer.finished_ms for racer in room.racers if racer.finished_ms is not None}
    return sorted(times)


def racer_at(racer: Racer, at_ms: int) -> Racer:
    """``racer`` as they stood ``at_ms`` after the reveal: their moves by then, finished once their time came,
    DNF only at the end (shown as still racing until then)."""
    played = sum(1 for t in racer.times_ms if t <= at_ms)
    finished = racer.finished_ms if racer.finished_ms is not None and racer.finished_ms <= at_ms else None
    return replace(racer, moves=racer.moves[:played], times_ms=racer.times_ms[:played], finished_ms=finished,
                   dnf=False)


def room_at(room: Room, at_ms: int, over: bool) -> Room:
    """The room as it stood ``at_ms`` after the reveal (``over``: the replay's end, the DNFs shown)."""
    if over:
        return room
    return replace(room, racers=tuple(racer_at(r, at_ms) for r in room.racers))


class RaceReplayScreen(DirtyOnlyRendering):
    """One round of a race played back with its own timing."""

    BINDINGS = [
        Binding("space", "pause", "pause", id="race_replay.pause", tooltip="Pause or go on"),
        Binding("plus,equals_sign", "speed(1)", "faster", id="race_replay.faster", tooltip="Faster"),
        Binding("minus", "speed(-1)", "slower", id="race_replay.slower", tooltip="Slower"),
        Binding("r", "restart", "restart", id="race_replay.restart", tooltip="From the reveal again"),
        Binding("escape", "back", "back", id="race_replay.back", tooltip="Back"),
    ]

    def __init__(self, room: Room, *, ascii_only: bool = False, speed: float = 1.0):
        super().__init__(classes="race-replay")
        self.room = room
        self.ascii_only = ascii_only
        self.steps = race_steps(room)
        self.factor = speed if speed in SPEEDS else 1.0
        self.position = 0  # steps shown
        self.paused = False
        self.timer: Timer | None = None
        self.boards = RaceBoards()

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="race-replay-body"):
            yield Static(id="race-replay-title")
            yield Static(id="race-replay-order")
            yield RaceMinis(ascii_only=self.ascii_only, id="race-replay-minis")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"Race replay {self.room.size_label}"
        self._show()
        self._schedule(START_PAUSE_SECONDS)

    @property
    def done(self) -> bool:
        return self.position >= len(self.steps)

    @property
    def shown_ms(self) -> int:
        return self.steps[self.position - 1] if self.position else 0

    def shown_room(self) -> Room:
        return room_at(self.room, self.shown_ms, self.done)

    def _show(self) -> None:
        room = self.shown_room()
        state = "paused" if self.paused else "done" if self.done else "playing"
        self.query_one("#race-replay-title", Static).update(
            f"[b]Race replay[/b] {room.size_label} {speed_text(self.factor)}  Time [b]{seconds_text(self.shown_ms)}[/b]"
            f"  [dim]{state}[/dim]", layout=False)
        self.query_one("#race-replay-order", Static).update(order_text(room), layout=False)
        # the boards at the replay's clock: minis_of reads the racers' figures at the time shown
        reveal = room.reveal_at or 0.0
        self.query_one("#race-replay-minis", RaceMinis).show(
            minis_of(room, list(room.racers), self.boards, reveal + self.shown_ms / 1000))

    def _schedule(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.timer = None if self.done or self.paused else self.set_timer(seconds, self._step)

    def _step(self) -> None:
        self.timer = None
        if self.done or self.paused:
            return
        self.position += 1
        self._show()
        if not self.done:
            self._schedule((self.steps[self.position] - self.shown_ms) / 1000 / self.factor)

    def _next_gap(self) -> float:
        if self.done:
            return 0.0
        return (self.steps[self.position] - self.shown_ms) / 1000 / self.factor

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
        self.position, self.paused = 0, False
        self._show()
        self._schedule(START_PAUSE_SECONDS)

    def action_back(self) -> None:
        self.app.pop_screen()
