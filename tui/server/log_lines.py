"""Log lines that no outside text can forge: control characters become escapes (``\\n``, ``\\x1b``, ``\\u202e``).

Used by ``koma serve``'s log and by a game that reports its own failure to that log (:mod:`tui.zygote`).
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, Unicode line and paragraph separators, and the bidirectional overrides that
# can make a line read as another
UNSAFE_IN_A_LOG = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every character that could end, hide or reorder a log line written as an escape."""
    return UNSAFE_IN_A_LOG.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)
