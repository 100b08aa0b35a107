"""Starting tmux sessions in tests, while the previous test's tmux server may still be exiting."""

from __future__ import annotations

import subprocess
import time

RETRY_SECONDS = 30.0


def new_tmux_session(tmux: str, *arguments: str) -> None:
    """``tmux new-session ARGUMENTS``.  When the last session of the previous test was just killed, its
    server may still be exiting and refuse us (about 1 try in 150 on a loaded box): try again for up to
    30 s, and raise with tmux's own message after that."""
    command = [tmux, "new-session", *arguments]
    deadline = time.monotonic() + RETRY_SECONDS
    while subprocess.run(command, capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            subprocess.run(command, check=True, capture_output=True, text=True)
        time.sleep(0.1)
