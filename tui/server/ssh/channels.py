"""The SSH session of a game: a channel that keeps only the environment a game reads (:data:`CLIENT_VARIABLES`, by
:func:`tui.patches.ssh_environment.session_channel`), and a process that only ever runs the game (exec and subsystems
refused; the one exec allowed is ``link``, which answers with a browser's link code).  Never imports Textual."""

from __future__ import annotations

from tui.patches.asyncssh_import import asyncssh
from tui.server.server_log import log

# The only variable a client may send (see colour.py), and its longest value: other env requests are refused
# and never stored, so a flood of them costs the server nothing.
CLIENT_VARIABLES = {b"COLORTERM": 16}


class GameProcess(asyncssh.SSHServerProcess):
    """A session that only ever runs the game: exec and subsystem (SFTP) requests are refused, but for ``link``."""

    def exec_requested(self, command: str) -> bool:
        if command == "link":  # ``ssh HOST link``: a one-time code that links a browser (koma web --link-only)
            return True
        log(f"refused an exec request ({command[:60]!r})")
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        log(f"refused a subsystem request ({subsystem[:30]!r})")
        return False
