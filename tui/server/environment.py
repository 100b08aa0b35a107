"""What a game process of ``koma serve`` is given: its environment, and its player's name.  Never imports Textual."""

from __future__ import annotations

import hashlib
import os
import re

from tui.config.daily_secret import SECRET_VARIABLE
from tui.server import metrics
from tui.server.server_log import format_environment
from tui.storage.store_choice import DATABASE_VARIABLE, NO_PASSWORD_FILE, game_database_url

ESCDELAY_MS = "25"
# What the game process inherits from the server's environment, besides what it is given: the paths it
# needs, and the display settings an operator may set for every game (animations, colour).
INHERITED_VARIABLES = ("PATH", "HOME", "KOMA_DATA_DIR", "KOMA_CACHE_DIR", "NUMBA_CACHE_DIR", "KOMA_DAY", "PYTHONPATH",
                       "VIRTUAL_ENV", "TMPDIR", DATABASE_VARIABLE, SECRET_VARIABLE)
DISPLAY_VARIABLES = ("TEXTUAL_ANIMATIONS", "NO_COLOR", "TEXTUAL_COLOR_SYSTEM")


def base_environment() -> dict[str, str]:
    """What every game process gets from the server's environment, whoever plays: the warm process starts
    with it too (Textual reads its settings when it is imported)."""
    env = {k: os.environ[k] for k in INHERITED_VARIABLES + DISPLAY_VARIABLES if k in os.environ}
    if DATABASE_VARIABLE in env:  # the server alone holds the database password
        env[DATABASE_VARIABLE] = game_database_url(env[DATABASE_VARIABLE])
    env["PGPASSFILE"] = NO_PASSWORD_FILE
    # No LINES/COLUMNS: shutil.get_terminal_size() (so Textual) would prefer them to the pty's size
    # forever and ignore every resize; the pty's window size carries the client's size instead.
    env.update({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "ESCDELAY": ESCDELAY_MS, "KOMA_SERVE": "1",
                "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
                **metrics.game_environment(), **format_environment()})
    return env


def safe_username(username: str) -> str:
    """The player name for a username: distinct usernames get distinct names, and one username always the same.

    A username of letters, digits and ``._-`` (at most 32) is its own name.  Any other (a space, an accent,
    another script, too long, empty) keeps what it has of those, at most 23, then ``~`` and 8 hex digits of the
    SHA-256 of the whole username: ``~`` is never in a name kept as it was, so a mapped name is nobody's own.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "", username)
    if cleaned == username and 0 < len(username) <= 32:
        return username
    digest = hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[:23] or 'guest'}~{digest}"
