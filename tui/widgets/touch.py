"""The browser page's touch bar and announcements, as the game sees them (no Textual here).

The page's buttons cannot send the keys a player may have remapped, so each sends one private-use character
(U+E000 + its place in :data:`TOUCH_BUTTONS`); the app runs the binding of the screen shown whose id the button
names (``play.solve``…), whatever key it is bound to.  Enter and Space are sent as themselves.

The other way, the game writes OSC sequences of Koma's own numbers, which terminals ignore:

- ``ESC ] 7757 ; TEXT BEL``: one short line the page's ``aria-live`` region says (:func:`announcement_sequence`);
- ``ESC ] 7758 ; buttons=NAME,NAME… ; keyboard=text|none BEL``: what the touch bar shows (the buttons whose action
  the screen shown can do now, nothing else) and whether the focused widget takes typed text, so that the page
  brings up the phone's on-screen keyboard (and takes it down again) without the player finding the ⌨ button
  (:func:`bar_sequence`).  The app sends it whenever the screen's bindings or focus change and the state differs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

TOUCH_BASE = 0xE000
# button -> the binding ids it presses, the first the screen shown has wins (".escape": any screen's "x.escape")
TOUCH_BUTTONS: dict[str, tuple[str, ...]] = {
    "solve": ("play.solve",),
    "hint": ("play.hint",),
    "undo": ("play.undo",),
    "redo": ("play.redo",),
    "new": ("play.new", "speed.next", "loop_demo.new"),
    "back": (".escape", ".back", ".close", ".cancel"),
    "help": ("app.help",),
    "read": ("play.read_board",),
}
KEY_BUTTONS = {"enter": "enter", "space": "space"}  # buttons the page sends as the keys themselves ("\r", " ")
ANNOUNCE_OSC = 7757  # "\x1b]7757;TEXT\x07": the page's koma.js says TEXT in its live region
BAR_OSC = 7758  # "\x1b]7758;buttons=solve,back;keyboard=none\x07": the touch bar's buttons, the keyboard wanted
MAX_ANNOUNCEMENT = 400


@dataclass(frozen=True)
class TouchBar:
    """What the page's touch bar should offer: ``buttons`` in the bar's order, and whether a text field has the
    focus (``typing``: the page opens the on-screen keyboard)."""

    buttons: tuple[str, ...]
    typing: bool = False


def touch_button(character: str | None) -> str | None:
    """The touch bar's button a key's character stands for, if it is one."""
    if not character or len(character) != 1:
        return None
    index = ord(character) - TOUCH_BASE
    names = list(TOUCH_BUTTONS)
    return names[index] if 0 <= index < len(names) else None


def binding_matches(binding_id: str | None, wanted: str) -> bool:
    return bool(binding_id) and (binding_id == wanted or (wanted.startswith(".") and str(binding_id).endswith(wanted)))


def first_match(binding_ids: Iterable[str | None], button: str) -> int | None:
    """The index in ``binding_ids`` of the binding ``button`` presses (the first of its ids found wins), or None."""
    ids = list(binding_ids)
    for wanted in TOUCH_BUTTONS[button]:
        found = next((i for i, binding_id in enumerate(ids) if binding_matches(binding_id, wanted)), None)
        if found is not None:
            return found
    return None


def announcement_sequence(text: str) -> str:
    """The OSC sequence that carries ``text`` (one line, no control characters) to the page."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_ANNOUNCEMENT]
    return f"\x1b]{ANNOUNCE_OSC};{line}\x07"


def bar_sequence(bar: TouchBar) -> str:
    """The OSC sequence that tells the page what its touch bar shows and whether to bring up the keyboard."""
    return f"\x1b]{BAR_OSC};buttons={','.join(bar.buttons)};keyboard={'text' if bar.typing else 'none'}\x07"
