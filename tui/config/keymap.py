"""Reading the player's ``keymap.toml`` from the data dir; the checks are the game's (:mod:`tui.game.keymap`).

A file that cannot be used (unreadable, not UTF-8, not TOML, ``keymap`` not a table) is ignored as a whole, with one
problem line; the defaults stay.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tui.config.paths import data_dir
from tui.game.keymap import KEYMAP_NAME, Keymap, check_bindings


def keymap_path() -> Path:
    return data_dir() / KEYMAP_NAME


def read_keymap(path: Path | None = None) -> Keymap:
    """Read and check ``keymap.toml`` (missing: no bindings, no problem); never raises."""
    path = path if path is not None else keymap_path()
    name = path.name
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Keymap()
    except OSError as problem:
        return Keymap(problems=[f"{name} cannot be read ({problem.strerror or problem}); using the default keys."])
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as problem:
        return Keymap(problems=[f"{name} is not UTF-8 text (byte {problem.start}); using the default keys."])
    except tomllib.TOMLDecodeError as problem:
        return Keymap(problems=[f"{name} is not valid TOML ({problem}); using the default keys."])
    table = document.get("keymap", {})
    if not isinstance(table, dict):
        return Keymap(problems=[f"{name}: 'keymap' must be a table of binding ids and keys, not "
                                f"{type(table).__name__} {table!r}; using the default keys."])
    return check_bindings(table, name)
