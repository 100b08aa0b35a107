"""Who a browser plays as: a signed cookie naming its player (and, with ``--link-only``, an SSH player's identity
carried over by a one-time code of :mod:`tui.server.links`).

A browser's first visit makes it a guest (``web:`` and 16 hex digits); the cookie carries the player and the name
the game shows, signed with HMAC-SHA256 under a key kept beside the SSH host key (replicas share it, as they share
the host key), so a cookie cannot be forged or edited and no server keeps a table of browsers.  With
``koma web --link-only`` a browser must first enter a code that ``ssh -p PORT HOST link`` printed: it then carries
that SSH player's identity, with the same games, stats and leaderboards.  Imports neither aiohttp nor Textual.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from pathlib import Path
from typing import Any

from tui.server.private_files import make_private, write_private

COOKIE_NAME = "koma_player"
COOKIE_KEY_NAME = "web_cookie_key"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie (Chromium's cap)
MAX_COOKIE_CHARS = 1024


def cookie_key(path: Path, log: Any) -> bytes:
    """The key that signs cookies: read from ``path`` (made private if others could read it: see
    :func:`~tui.server.private_files.make_private`), or made there (32 random bytes, mode 0600, written atomically)
    if missing or too short."""
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            make_private(path, log)
            return key
        log(f"{path} is too short to sign cookies; making a new key")
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(32)
    try:
        write_private(path, key)
    except OSError as problem:
        raise ValueError(f"cannot write the cookie key {path}: {problem.strerror or problem}") from None
    log(f"made a cookie key in {path}")
    return key


class Identities:
    """Signs and reads player cookies: ``base64url(json [player, name]) . base64url(hmac)``."""

    def __init__(self, key: bytes):
        self.key = key

    def _mac(self, body: str) -> str:
        digest = hmac.new(self.key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def sign(self, player: str, name: str) -> str:
        body = base64.urlsafe_b64encode(json.dumps([player, name]).encode()).decode().rstrip("=")
        return f"{body}.{self._mac(body)}"

    def read(self, cookie: str | None) -> tuple[str, str] | None:
        """The (player, name) a cookie names, or None when it is missing, malformed or not signed by us."""
        if not cookie or len(cookie) > MAX_COOKIE_CHARS or not cookie.isascii() or cookie.count(".") != 1:
            return None  # ours are ASCII: anything else is not ours (and compare_digest takes ASCII strings only)
        body, mac = cookie.split(".")
        if not hmac.compare_digest(mac, self._mac(body)):
            return None
        try:
            player, name = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except (ValueError, TypeError, binascii.Error):
            return None
        if not isinstance(player, str) or not isinstance(name, str):
            return None
        return player, name

    @staticmethod
    def new_guest() -> tuple[str, str]:
        number = secrets.token_hex(8)
        return f"web:{number}", f"guest-{number[:6]}"
