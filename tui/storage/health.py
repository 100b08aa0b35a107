"""The game's part of ``koma doctor``: the saved games database and the keymap, each problem with its fix.

Read-only: the database is never created, migrated or moved from here.  Never imports Textual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.config.keymap import keymap_path, read_keymap
from tui.storage.outbox import outbox_depth, outbox_dir
from tui.storage.store import database_path, inspect

MAX_ROWS_LISTED = 20
DATABASE_FIXES = {
    "newer": "run the newer Koma that wrote it, or move {database} away to start afresh",
    "damaged": "start koma: it moves the damaged file aside (kept for inspection) and starts afresh",
    "unreadable": "check {database} and its directory (free space, permissions, a process holding a lock)",
}


def game_health(database: Path | None = None, keymap: Path | None = None) -> dict[str, Any]:
    """``{"database": store.inspect(...), "keymap": {...}, "problems": [{problem, fix, severity}]}``."""
    database = database if database is not None else database_path()
    keymap = keymap if keymap is not None else keymap_path()
    store = inspect(database)
    keys = read_keymap(keymap)
    problems: list[dict[str, str]] = []
    if store["problem"]:
        problems.append({"problem": store["problem"], "fix": DATABASE_FIXES[store["state"]].format(database=database),
                         "severity": "error"})
    problems += _listed(store["bad_rows"], f"a row of {database.name} has a wrong-typed value (Koma skips it): ",
                        "start koma once: the schema upgrade sets such rows aside in table rejected_rows, "
                        "or delete the row with sqlite3")
    problems += _listed(store["rejected_rows"], f"a damaged row of {database.name} was set aside in rejected_rows: ",
                        f"look at it, then: sqlite3 {database} 'DELETE FROM rejected_rows'")
    problems += [{"problem": problem, "fix": f"edit {keymap}", "severity": "error"} for problem in keys.problems]
    waiting, journals = outbox_depth()
    if waiting:
        problems.append({"problem": f"{waiting} accepted write(s) wait in the outbox ({journals} journal(s) in "
                                    f"{outbox_dir()}): the database was away when their games ended",
                         "fix": "start koma, or koma serve, with the database reachable: they write them", "severity": "error"})
    return {"database": store, "keymap": {"path": str(keymap), "exists": keymap.exists(), "bindings": keys.bindings,
                                          "problems": keys.problems},
            "outbox": {"path": str(outbox_dir()), "waiting": waiting, "journals": journals},
            "problems": problems}


def _listed(rows: list[str], prefix: str, fix: str) -> list[dict[str, str]]:
    """One problem per row, up to :data:`MAX_ROWS_LISTED`, then one for the rest."""
    listed = [{"problem": prefix + row, "fix": fix, "severity": "error"} for row in rows[:MAX_ROWS_LISTED]]
    if len(rows) > MAX_ROWS_LISTED:
        listed.append({"problem": f"{len(rows) - MAX_ROWS_LISTED} more such rows", "fix": fix, "severity": "error"})
    return listed
