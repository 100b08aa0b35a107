"""A finished game replayed move by move, with the auto-solve's playback controls (space, + -, [ ]).

The moves come from the store (:class:`~tui.game.records.Replay`); the timing, pause, speed and
stepping are the play screen's :class:`~tui.game.playback.PlaybackController`.  Moves Koma played
are marked as Koma's, and so is a game Koma finished.
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message_pump import MessagePump

from solver.errors import KomaError
from solver.puzzle import Puzzle
from tui.app_view import koma_app
from tui.ascii import Static
from tui.game.daily import puzzle_for_id
from tui.game.formatting import clock_text
from tui.game.history import HINT, KOMA
from tui.game.playback import SPEEDS, PlaybackController, Step
from tui.game.records import Replay
from tui.patches.rendering import DirtyOnlyRendering
from tui.widgets.board import Board
from tui.widgets.keybar import KeyBar
from tui.widgets.looks import look_for
from tui.widgets.titlebar import TitleBar

WHO = {KOMA: "Koma", HINT: "you, after a hint"}


def open_replay(node: MessagePump, replay: Replay) -> None:
    """Replay a finished game over ``node``'s screen; a notice instead if the stored game no longer fits its puzzle."""
    try:
        screen = ReplayScreen(puzzle_for_id(replay.game), replay, ascii_only=koma_app(node).ascii_only)
    except (KomaError, ValueError) as problem:
        node.app.notify(f"This game cannot be replayed: {problem}", title="Replay", severity="warning")
        return
    node.app.push_screen(screen)


def replay_title(replay: Replay) -> str:
    """Whose game, and whether Koma finished it (the mark lists and the replay share)."""
    koma = " · [b]finished by Koma[/b]" if replay.by_koma else ""
    return f"{escape(replay.name or replay.player)}{koma}"


class ReplayScreen(DirtyOnlyRendering):
    """Replay one finished game; it starts playing at once, and esc goes back."""

    BINDINGS = [
        Binding("space", "pause", "pause", id="replay.pause", tooltip="Pause or play (from the start again at the end)"),
        Binding("plus,equals_sign", "speed(1)", "faster", id="replay.faster", tooltip="Faster replay"),
        Binding("minus", "speed(-1)", "slower", id="replay.slower", tooltip="Slower replay"),
        Binding("right_square_bracket", "step(1)", "step", id="replay.step_forward", tooltip="Step the paused replay forward"),
        Binding("left_square_bracket", "step(-1)", "", id="replay.step_back", tooltip="Step the paused replay back"),
        Binding("escape", "back", "back", id="replay.back", tooltip="Back"),
    ]

    def __init__(self, puzzle: Puzzle, replay: Replay, ascii_only: bool = False):
        super().__init__(classes=f"replay -{puzzle.key}")
        self.puzzle, self.replay = puzzle, replay
        self.look = look_for(puzzle, ascii_only)
        self.path = list(puzzle.replay(puzzle.parse(replay.start), replay.moves))
        self.position = 0
        self.playback = PlaybackController(self.set_interval, self._play)
        self.playback.on_step = self._stepped

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="play-body"):
            yield Board(self.look, self.path[0], id="board")
            with Vertical(id="side"):
                yield Static(f"[b]Replay · {self.puzzle.title}[/b]  {self.puzzle.size_label}", id="title")
                yield Static(id="replay-who")
                yield Static(id="replay-counters")
                yield Static(id="replay-state")
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Koma"
        self.sub_title = f"replay · {self.puzzle.title} {self.puzzle.size_label}"
        replay = self.replay
        optimal = f"optimal {replay.optimal}" if replay.optimal is not None else "optimal unknown"
        self.query_one("#replay-who", Static).update(
            f"{replay_title(replay)}\n{len(replay.moves)} moves ({optimal}) in {clock_text(replay.seconds)}")
        self.playback.start(self.replay.moves)
        self.refresh_view()

    def on_screen_suspend(self) -> None:
        self.playback.hold(True)  # a hidden screen does no work

    def on_screen_resume(self) -> None:
        self.playback.hold(False)

    def _play(self, move: str) -> bool:
        """Show the next move of the game (the controller's ``play``); False if it is not the game's next."""
        if self.position >= len(self.replay.moves) or self.replay.moves[self.position] != move:
            return False
        self.position += 1
        self.query_one(Board).show(self.path[self.position])
        return True

    def _stepped(self, step: Step) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        total = len(self.replay.moves)
        last = self.replay.origins[self.position - 1] if self.position else ""
        by = f" ({WHO[last]})" if last in WHO else ""
        self.query_one("#replay-counters", Static).update(f"Move [b]{self.position}[/b] of {total}{by}")
        if not self.playback.active:
            state = "The end. Space plays it again." if self.position == total else "Stopped."
        else:
            state = "Paused" if self.playback.paused else "Playing"
        self.query_one("#replay-state", Static).update(
            f"{state}\n[dim]space pause · +/- speed ({SPEEDS[self.playback.speed]:.2g} s) · \\[ ] step · esc back[/dim]")

    def action_pause(self) -> None:
        if self.playback.active:
            self.playback.toggle_pause()
        else:  # at the end: from the start again
            self.position = 0
            self.query_one(Board).show(self.path[0], animate=False)
            self.playback.start(self.replay.moves)
        self.refresh_view()

    def action_speed(self, delta: int) -> None:
        self.playback.change_speed(delta)
        self.refresh_view()

    def action_step(self, delta: int) -> None:
        if not (self.playback.active and self.playback.paused):
            self.app.bell()
        elif delta > 0:
            self._stepped(self.playback.forward())
        elif self.position == 0:
            self.app.bell()
        else:
            self.position -= 1
            self.playback.back(self.replay.moves[self.position])
            self.query_one(Board).show(self.path[self.position])
            self.refresh_view()

    def action_back(self) -> None:
        self.playback.stop()
        self.app.pop_screen()

    def on_unmount(self) -> None:
        self.playback.stop()
