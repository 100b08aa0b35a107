"""The browser page's touch bar and announcements, as the game sees them (no Textual here).

The page's buttons cannot send the keys a player may have remapped, so each sends one private-use character
(U+E000 + its place in :data:`TOUCH_BUTTONS`); the app runs the binding of the screen shown whose id the button
names (``play.solve``…), whatever key it is bound to.  The other way, the game tells the page one short line
to announce (its ``aria-live`` region) in an OSC sequence of Koma's own number, which terminals ignore.
"""

from __future__ import annotations

TOUCH_BASE = 0xE000
# button -> the binding ids it presses, the first the screen shown has wins (".escape": any screen's "x.escape")
TOUCH_BUTTONS: dict[str, tuple[str, ...]] = {
    "solve": ("play.solve",),
    "hint": ("play.hint",),
    "undo": ("play.undo",),
    "redo": ("play.redo",),
    "new": ("play.new",),
    "back": (".escape", ".back", ".close", ".cancel"),
    "help": ("app.help",),
    "read": ("play.read_board",),
}
ANNOUNCE_OSC = 7757  # "\x1b]7757;TEXT\x07": the page's koma.js says TEXT in its live region
MAX_ANNOUNCEMENT = 400


def touch_button(character: str | None) -> str | None:
    """The touch bar's button a key's character stands for, if it is one."""
    if not character or len(character) != 1:
        return None
    index = ord(character) - TOUCH_BASE
    names = list(TOUCH_BUTTONS)
    return names[index] if 0 <= index < len(names) else None


def binding_matches(binding_id: str | None, wanted: str) -> bool:
    return bool(binding_id) and (binding_id == wanted or (wanted.startswith(".") and str(binding_id).endswith(wanted)))


def announcement_sequence(text: str) -> str:
    """The OSC sequence that carries ``text`` (one line, no control characters) to the page."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_ANNOUNCEMENT]
    return f"\x1b]{ANNOUNCE_OSC};{line}\x07"
