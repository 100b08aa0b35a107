"""The player's keymap, binding id -> keys, checked: what may be bound, and one line per problem.

The file (``keymap.toml``, read by :mod:`tui.config.keymap`) lives in the data dir and holds one table::

    [keymap]
    "play.solve" = "S"
    "app.help" = "f1,question_mark"

Keys are comma-separated, as Textual's ``App.set_keymap`` takes them.  A file that cannot be used
(unreadable, not UTF-8, not TOML, ``keymap`` not a table) is ignored as a whole; a binding that
cannot be used (not a string, no key, a key with spaces, or taking quit's key) is ignored alone.
Each problem is one notice line; the defaults stay.  Quit always keeps a key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KEYMAP_NAME = "keymap.toml"
QUIT_ID = "app.quit"
QUIT_KEY = "q"  # KomaApp's default for app.quit


@dataclass
class Keymap:
    """What the file gives: the bindings to apply, and one line per problem found."""

    bindings: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def check_bindings(table: dict, name: str = KEYMAP_NAME) -> Keymap:
    """Keep the bindings that can be used; one problem line for each that cannot."""
    keymap = Keymap()
    quit_keys = {QUIT_KEY}
    if isinstance(table.get(QUIT_ID), str):
        quit_keys = set(split_keys(table[QUIT_ID])) or quit_keys
    for binding_id, value in table.items():
        if not isinstance(value, str):
            keymap.problems.append(f"{name}: {binding_id!r} must be keys in a string, not {value!r}; it keeps its default.")
            continue
        keys = split_keys(value)
        if not keys:
            keymap.problems.append(f"{name}: {binding_id!r} = {value!r} names no key; it keeps its default.")
        elif any(any(c.isspace() for c in key) for key in keys):
            keymap.problems.append(f"{name}: {binding_id!r} = {value!r} has a key with spaces; it keeps its default.")
        elif binding_id != QUIT_ID and quit_keys & set(keys):
            keymap.problems.append(f"{name}: {binding_id!r} = {value!r} takes quit's key; it keeps its default.")
        else:
            keymap.bindings[str(binding_id)] = ",".join(keys)
    return keymap


def split_keys(value: str) -> list[str]:
    return [key.strip() for key in value.split(",") if key.strip()]
