"""A game's terminal as a client asks for it, made safe: its type, its size, and keys that never become signals.

Every value here comes from a remote client, so each is bounded before anything is allocated for it.
"""

from __future__ import annotations

import fcntl
import re
import struct
import termios

TERMINAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
FALLBACK_TERMINAL = "xterm-256color"  # for a TERM that is not a terminfo name (too long, control characters)
MAX_CELLS = 1000  # columns or rows of a game's terminal, at most


def terminal_type(asked: str) -> str:
    """The client's TERM if it looks like a terminfo name (letters, digits, ``._+-``, at most 64), else
    :data:`FALLBACK_TERMINAL`: a TERM reaches the game's environment, the warm pool's messages and the log."""
    return asked if TERMINAL_NAME.fullmatch(asked) else FALLBACK_TERMINAL


def window_size(columns: int, rows: int, width: int = 0, height: int = 0) -> tuple[int, int, int, int]:
    """A window size a client sent, made sane: 1 to 1000 cells each way (24x80 when 0), pixels 0 to 65535
    (0, unknown, when out of range)."""
    columns, rows = max(1, min(int(columns or 80), MAX_CELLS)), max(1, min(int(rows or 24), MAX_CELLS))
    width, height = (int(p) if 0 < int(p) <= 0xFFFF else 0 for p in (width or 0, height or 0))
    return columns, rows, width, height


def set_window_size(fd: int, rows: int, columns: int, width: int = 0, height: int = 0) -> None:
    """Set the pty's size (bounded by :func:`window_size`); the kernel then sends SIGWINCH to the game."""
    columns, rows, width, height = window_size(columns, rows, width, height)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, width, height))


def keys_not_signals(fd: int) -> None:
    """Clear ISIG on the terminal ``fd``: ctrl+c, ctrl+z and ctrl+\\ reach the game as keys (Textual reads them
    so), never as SIGINT, SIGTSTP or SIGQUIT, which would interrupt or stop a game that is still starting."""
    attributes = termios.tcgetattr(fd)
    attributes[3] &= ~termios.ISIG  # the local modes
    termios.tcsetattr(fd, termios.TCSANOW, attributes)
