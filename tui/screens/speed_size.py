"""The Speed screen's size dialog: any size from 2x2 to 20x20 typed as ``WxH`` (Slidysim's shift and +/-).  It
dismisses with the size, or None."""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input

from solver.errors import KomaError
from tui.ascii import Static, text_for
from tui.game.speed_layout import parse_speed_size


class SpeedSizeScreen(ModalScreen[tuple[int, int] | None]):
    """Type a size (enter), or esc."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="speed_size.cancel")]

    def __init__(self, current: tuple[int, int]):
        super().__init__(classes="dialog-screen")
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="speed-size-dialog", classes="dialog") as dialog:
            dialog.border_title = "Board size"
            dialog.border_subtitle = text_for(self, "enter choose · esc cancel")
            yield Static("Columns x rows, 2x2 to 20x20 (2x7, 12x12; 9 is 9x9).")
            yield Input(placeholder=f"WxH (now {self.current[0]}x{self.current[1]})", id="speed-size-input")
            yield Static("", id="speed-size-verdict")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _typed(self, submitted: Input.Submitted) -> None:
        try:
            size = parse_speed_size(submitted.value)
        except KomaError as error:
            self.query_one("#speed-size-verdict", Static).update(escape(str(error)[:1].upper() + str(error)[1:] + "."))
            self.app.bell()
            return
        self.dismiss(size)

    def action_cancel(self) -> None:
        self.dismiss(None)
