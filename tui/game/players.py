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


def current_address() -> str:
    """The client's address as a server passed it in (``$KOMA_ADDRESS``: an IPv4 address or an IPv6 /64), '' when
    played locally: what code guesses are counted by besides the player."""
    return os.environ.get("KOMA_ADDRESS", "").strip()[:64]


def player_identity(player: str | None = None, name: str | None = None) -> tuple[str, str]:
    """``(player, name)`` for a store: the ones given, else the current player; a given player's name
    defaults to the part after ``user:``/``key:``."""
    default_player, default_name = current_player()
    return player or default_player, name or (default_name if player is None else player.split(":", 1)[-1])
