"""The floor of ``koma bench keys``: the least a Textual app can do for a key.

A bare Textual app, no Koma in it: a title, twenty lines that never change, and one line that counts the arrow keys,
redrawn (without a layout pass) on each.  Run as ``python -m tui.floor_app``; ``q`` quits.  What a key costs here
is what Textual itself costs for a key that changes one line, on this machine; a Koma move costs that and more.
"""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
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


if __name__ == "__main__":
    FloorApp().run()
