"""How many colours a game served over SSH draws with: truecolor when the client says so, else 256.

The client says so with ``COLORTERM=truecolor`` (or ``24bit``) in an SSH ``env`` request (OpenSSH:
``SetEnv COLORTERM=truecolor``, or ``SendEnv COLORTERM``).  Only that one variable is read from the client, and
only those two values pass.  The operator's settings win: ``KOMA_SERVE_COLORTERM`` is given to every game,
and a ``TEXTUAL_COLOR_SYSTEM`` of the server's own is inherited unchanged.  Never imports Textual.
"""

from __future__ import annotations

from collections.abc import Mapping

TRUECOLOR = ("truecolor", "24bit")


def colour_environment(terminal: str, client: Mapping[str, str], operator: Mapping[str, str]) -> dict[str, str]:
    """The colour variables to add to one game's environment (``terminal`` is the client's TERM)."""
    forced = operator.get("KOMA_SERVE_COLORTERM")
    if forced:
        return {"COLORTERM": forced}
    if "TEXTUAL_COLOR_SYSTEM" in operator:
        return {}
    sent = str(client.get("COLORTERM", "")).lower()
    if sent in TRUECOLOR:
        return {"COLORTERM": sent}
    if terminal.endswith("256color"):
        return {}  # Textual reads 256 colours from TERM itself
    return {"TEXTUAL_COLOR_SYSTEM": "256"}
