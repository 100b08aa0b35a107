"""The Speed screen's event dialog: single, BLD, a marathon of the lengths the speedsolvers race (or any length typed)
and Slidysim's relays (down from the size chosen).  It dismisses with the :class:`~tui.game.speed_events.Event` chosen, or None."""

from __future__ import annotations

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from solver.errors import KomaError
from tui.ascii import Static, text_for
from tui.game.speed_events import EVENTS, MARATHON_LIMITS, Event, marathon


def event_name(event: Event) -> str:
    """How the dialog lists an event: ``marathon x10``, ``relay 3x3-7x7``."""
    return f"relay {event.label((0, 0))}" if event.sizes else event.title


EVENT_NOTES = {
    "single": "one solve",
    "bld": "numbers hidden from the first move; space confirms",
    "rel": "every square down to 2x2",
    "wrel": "the width down to 2",
    "hrel": "the height down to 2",
    "eut": "every size up to this one",
}


class SpeedEventScreen(ModalScreen[Event | None]):
    """Choose the speed event: enter on one listed, or a marathon's length typed (enter)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="speed_event.cancel")]

    def __init__(self, current: Event):
        super().__init__(classes="dialog-screen")
        self.current = current

    def compose(self) -> ComposeResult:
        low, high = MARATHON_LIMITS
        with Vertical(id="speed-event-dialog", classes="dialog") as dialog:
            dialog.border_title = "Speed event"
            dialog.border_subtitle = text_for(self, "enter choose · esc cancel")
            options = [Option(event_name(event) + (f" [dim]({EVENT_NOTES[event.key]})[/dim]"
                                                   if event.key in EVENT_NOTES else ""), id=event.key)
                       for event in EVENTS]
            yield OptionList(*options, id="speed-events")
            yield Input(placeholder=f"marathon: N solves ({low}-{high})", type="integer", id="speed-marathon")
            yield Static("", id="speed-event-verdict")

    def on_mount(self) -> None:
        events = self.query_one(OptionList)
        keys = [event.key for event in EVENTS]
        events.highlighted = keys.index(self.current.key) if self.current.key in keys else 0
        events.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, selected: OptionList.OptionSelected) -> None:
        self.dismiss(next(event for event in EVENTS if event.key == selected.option.id))

    @on(Input.Submitted)
    def _typed(self, submitted: Input.Submitted) -> None:
        verdict = self.query_one("#speed-event-verdict", Static)
        text = submitted.value.strip()
        if not text.isdigit():
            verdict.update("Type a number of solves.")
            self.app.bell()
            return
        try:
            event = marathon(int(text))
        except KomaError as error:
            verdict.update(escape(str(error)[:1].upper() + str(error)[1:] + "."))
            self.app.bell()
            return
        self.dismiss(event)

    def action_cancel(self) -> None:
        self.dismiss(None)
