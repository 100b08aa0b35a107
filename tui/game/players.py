"""Who is playing: the local user, or the player a server passed in (``$KOMA_PLAYER``).  Never imports Textual."""

from __future__ import annotations

import os

LOCAL_PLAYER = "local"


def current_player() -> tuple[str, str]:
    """Who is playing: ``($KOMA_PLAYER, $KOMA_PLAYER_NAME)``, else the local user's profile."""
    player = os.environ.get("KOMA_PLAYER", "").strip()
    name = os.environ.get("KOMA_PLAYER_NAME", "").strip()
    if not player:
        player = LOCAL_PLAYER
    if not name:
        if player == LOCAL_PLAYER:
            import getpass

            try:
                name = getpass.getuser()
            except Exception:  # no user name at all (a container): still a profile
                name = "you"
        else:
            name = player.split(":", 1)[-1]
    return player[:200], name[:40]
