"""A widget whose press plays (a tile, a line): the move starts on the press, and nothing else is done for the tap.

A tap in ``koma web`` arrives as a press and a release at once, a mouse click as a press and, later, a release.
Textual would make each press the start of a text selection and each release its end (a repaint of the whole screen
each time, before the move is drawn), make a click of the pair, and bubble all three through every container up to
the app.  A widget built on :class:`PressPlays` plays in its own ``on_mouse_down`` (which stops the press there),
takes no part in text selection, and stops its release and its click at once.
"""

from __future__ import annotations

from textual import events


class PressPlays:
    """Mixed into a widget (before its Textual base) that plays in ``on_mouse_down``."""

    ALLOW_SELECT = False

    def on_mouse_up(self, event: events.MouseUp) -> None:
        event.stop()

    def on_click(self, event: events.Click) -> None:
        event.stop()
