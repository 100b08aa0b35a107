"""The new-game dialog: a random board, a board an exact optimal distance away, or a typed board.

A typed board (or a game ID of this puzzle) is checked as you type: a one-line error naming the
problem, or the parity verdict.
The dialog dismisses with ``("random", None)``, ``("distance", D)`` or ``("board", state)``.
"""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioSet

from solver.errors import KomaError
from solver.ids import id_prefix, looks_like_game_id, parse_game_id
from solver.puzzle import Puzzle
from tui.ascii import RadioButton, Static, text_for


def one_line(text: str, limit: int = 160) -> str:
    """A message squeezed onto one line of at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


class NewGameScreen(ModalScreen):
    """Choose the next game."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="new.cancel")]

    def __init__(self, puzzle: Puzzle, table_ready: bool):
        super().__init__(classes="dialog-screen")
        self.puzzle = puzzle
        self.max_depth: int | None = None
        if puzzle.enumerable and table_ready:
            try:
                self.max_depth = puzzle.depth_table().max_depth
            except KomaError:
                self.max_depth = None

    def compose(self) -> ComposeResult:
        with Vertical(id="new-dialog", classes="dialog") as dialog:
            dialog.border_title = f"New {self.puzzle.title} game"
            dialog.border_subtitle = text_for(self, "enter start · esc cancel")
            with RadioSet(id="kind"):
                yield RadioButton("A random board", value=True, id="kind-random")
                if self.puzzle.enumerable:
                    label = (f"Exactly this many moves from solved (0-{self.max_depth})" if self.max_depth is not None
                             else "Exactly this many moves from solved (once warmed up)")
                    yield RadioButton(label, id="kind-distance", disabled=self.max_depth is None)
                yield RadioButton("This board or game ID", id="kind-board")
            if self.puzzle.enumerable:
                yield Input(placeholder="moves from solved, e.g. 20", id="distance", type="integer",
                            disabled=True)
            yield Input(placeholder="a board, or a game ID", id="board", disabled=True)  # the verdict gives an example
            yield Static("", id="verdict")
            with Horizontal(id="new-buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(RadioSet).focus()

    def kind(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return (pressed.id or "kind-random").removeprefix("kind-") if pressed else "random"

    @on(RadioSet.Changed)
    def _kind_changed(self) -> None:
        kind = self.kind()
        for name in ("distance", "board"):
            for field in self.query(f"#{name}"):
                field.disabled = kind != name
                if kind == name:
                    field.focus()
        self.validate()

    @on(Input.Changed)
    def _typed(self) -> None:
        self.validate()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def validate(self):
        """Check the choice; show a one-line verdict and return the dismiss value, or None."""
        verdict = self.query_one("#verdict", Static)
        verdict.remove_class("-bad")
        kind = self.kind()
        if kind == "random":
            verdict.update("A uniformly random solvable board.")
            return ("random", None)
        if kind == "distance":
            text = self.query_one("#distance", Input).value.strip()
            try:
                distance = int(text)
            except ValueError:
                verdict.update("Type a number of moves.")
                verdict.add_class("-bad")
                return None
            if self.max_depth is None or not 0 <= distance <= self.max_depth:
                verdict.update(f"Choose between 0 and {self.max_depth}.")
                verdict.add_class("-bad")
                return None
            verdict.update(f"A random board exactly {distance} moves from solved.")
            return ("distance", distance)
        text = self.query_one("#board", Input).value
        if not text.strip():
            verdict.update(f"Type a board, e.g. {escape(self.puzzle.format(self.puzzle.goal))}, or a game ID.")
            verdict.add_class("-bad")
            return None
        try:
            state = self.board_from(text)
            proof = self.puzzle.proof(state)
        except KomaError as error:
            verdict.update(escape(one_line(str(error))))
            verdict.add_class("-bad")
            return None
        except Exception as error:  # the parser tripped on something odd (a 5000-digit tile): still a verdict
            verdict.update(escape(one_line(f"Not a {self.puzzle.title} board ({error})")))
            verdict.add_class("-bad")
            return None
        if proof.solvable:
            verdict.update(f"Parity: solvable. {escape(proof.summary)}")
        else:
            verdict.update(f"Parity: NOT solvable (you can still play it). {escape(proof.summary)}")
            verdict.add_class("-bad")
        return ("board", state)

    def board_from(self, text: str) -> tuple:
        """The board typed in this puzzle's notation, or named by a game ID of this puzzle and size."""
        if not looks_like_game_id(text):
            return self.puzzle.parse(text)
        puzzle, state = parse_game_id(text)
        if id_prefix(puzzle) != id_prefix(self.puzzle):
            raise KomaError(f"that ID names a {puzzle.title} {puzzle.size_label} board; this game is "
                            f"{self.puzzle.title} {self.puzzle.size_label}")
        return state

    def action_start(self) -> None:
        choice = self.validate()
        if choice is None:
            self.app.bell()
            return
        self.dismiss(choice)

    def action_cancel(self) -> None:
        self.dismiss(None)
