"""The browser page's touch bar as the app keeps it told: the buttons the screen shown can use now, and whether its
focused widget takes text (the page then brings up a phone's keyboard).  The sequence that carries it and the
buttons' names are :mod:`tui.widgets.touch`'s."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, TextArea

from tui.patches.driver import write_to_terminal
from tui.widgets.touch import KEY_BUTTONS, TOUCH_BUTTONS, TouchBar, bar_sequence, first_match


def touch_bar_of(screen: Screen) -> TouchBar:
    """What the page's touch bar offers on ``screen``: each button whose binding the screen has and can run now (a
    binding turned off, or none, hides it), Enter and Space where the key bar shows them or the focused widget takes
    them (a button, a list, a text field), and whether a text field has the focus."""
    active_bindings = list(screen.active_bindings.values())
    buttons = []
    for button in TOUCH_BUTTONS:
        found = first_match((a.binding.id for a in active_bindings), button)
        if found is not None and active_bindings[found].enabled:
            buttons.append(button)
    for button, key in KEY_BUTTONS.items():
        taken = screen.active_bindings.get(key)
        if taken is not None and taken.enabled and (taken.binding.show or not isinstance(taken.node, (Screen, App))):
            buttons.append(button)
    return TouchBar(tuple(buttons), typing=isinstance(screen.focused, (Input, TextArea)))


class PageTouchBar:
    """Follows the screen shown (its bindings change with its state and its focus) and tells the page its touch bar
    when it changes, once for a burst of changes."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.sent: TouchBar | None = None  # what the page was last told
        self.due = False

    def follow(self) -> None:
        self.app.screen_change_signal.subscribe(self.app, self._screen_shown)

    def state(self) -> TouchBar:
        return touch_bar_of(self.app.screen)

    def _screen_shown(self, screen: Screen) -> None:
        screen.bindings_updated_signal.unsubscribe(self.app)  # a screen shown again: one subscription still
        screen.bindings_updated_signal.subscribe(self.app, self._bindings_changed)
        self._bindings_changed(screen)

    def _bindings_changed(self, _screen: Screen) -> None:
        if not self.due:  # one update for the messages being handled, however many times the bindings were refreshed
            self.due = True
            self.app.call_later(self._send)  # (not after the next refresh: a served app may not refresh for a while)

    def _send(self) -> None:
        self.due = False
        if not self.app.screen_stack:
            return
        bar = self.state()
        if bar != self.sent:
            self.sent = bar
            write_to_terminal(self.app, bar_sequence(bar))
