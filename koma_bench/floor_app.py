"""The floors of ``koma bench keys``, ``koma bench open`` and ``koma bench serve``'s arrival: the least a Textual app can do for a key, to open
a screen shaped like Koma's play screen, and to start on a screen shaped like Koma's home (:class:`FloorArrivalApp`).

A bare Textual app, no Koma in it: a title, twenty lines that never change, and one line that counts the arrow keys,
redrawn (without a layout pass) on each.  Run as ``python -m koma_bench.floor_app``; ``q`` quits.  What a key costs here
is what Textual itself costs for a key that changes one line, on this machine; a Koma move costs that and more.
"""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static


class FloorApp(App[None]):
    """One line redrawn per arrow key: ``Keys N``."""

    def __init__(self) -> None:
        super().__init__()
        self.keys = 0

    def compose(self) -> ComposeResult:
        yield Static("[b]The floor[/b]: one line redrawn per key")
        yield Static(f"Keys {self.keys}", id="keys")
        for number in range(20):
            yield Static(f"a line that never changes ({number + 1})")

    def on_key(self, event: events.Key) -> None:
        if event.key == "q":
            self.exit()
        elif event.key in ("left", "right", "up", "down"):
            self.keys += 1
            self.query_one("#keys", Static).update(f"Keys {self.keys}", layout=False)


class FloorPlayScreen(Screen):
    """A bare screen shaped like Koma's play screen at 80x24: a 4x4 grid of bordered tiles, a side panel of eight
    lines, a title line and a line of keys (about thirty widgets, as Koma's has); ``escape`` closes it."""

    CSS = """
    Grid { grid-size: 4 4; width: 48; height: 20; }
    .tile { border: round white; content-align: center middle; }
    #side { width: 1fr; }
    """
    BINDINGS = [("escape", "app.pop_screen", "back")]

    def compose(self) -> ComposeResult:
        yield Static("Koma — 15-puzzle 4x4")
        with Horizontal():
            with Grid():
                for number in range(16):
                    yield Static(str(number + 1) if number < 15 else "", classes="tile")
            with Vertical(id="side"):
                for line in ("15-puzzle 4x4", "ID 15-1kVwAsXD3 (y copies)", "Moves 0   Time 00:00", "",
                             "64 moves from solved", "Parity: solvable\ninversions 55 + blank row 3 = 58, even", "", ""):
                    yield Static(line)
        yield Static("→ move s solve t hint u undo n new p parity esc back q quit ? help")


class FloorHomeScreen(Screen):
    """The floor's home: ``2`` opens :class:`FloorPlayScreen`."""

    BINDINGS = [("2", "open", "open")]

    def compose(self) -> ComposeResult:
        yield Static("2 opens a screen shaped like the play screen")

    def action_open(self) -> None:
        self.app.push_screen(FloorPlayScreen())


class FloorOpenApp(App[None]):
    """The floor of ``koma bench open`` (:mod:`koma_bench.open_measure`)."""

    def on_mount(self) -> None:
        self.push_screen(FloorHomeScreen())


class FloorArrivalApp(App[None]):
    """The floor of ``koma bench serve``'s arrival (:mod:`koma_bench.arrival_measure`): a bare app whose first screen
    is shaped like Koma's home at 80x24: a title line, four cards (a preview of three lines and a text beside it) and
    a line of keys; ``q`` quits."""

    CSS = """
    .card { height: 5; layout: horizontal; border: round $primary; }
    .preview { width: 9; }
    .about { width: 1fr; }
    """
    BINDINGS = [("q", "quit", "quit")]

    def compose(self) -> ComposeResult:
        yield Static("Koma — choose a puzzle")
        with Vertical():
            for name in ("8-puzzle", "15-puzzle", "Goat", "Ura-omote"):
                with Horizontal(classes="card"):
                    yield Static("1 2 3\n4 5 6\n7 8", classes="preview")
                    yield Static(f"[b]{name}[/b]\na line on what it is\n[dim]not played yet[/dim]", classes="about")
        yield Static("1-4 open  ? help  q quit")


if __name__ == "__main__":
    FloorApp().run()
