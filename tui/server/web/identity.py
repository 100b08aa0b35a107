"""Who a browser plays as: a signed cookie naming its player, and one-time codes that link a browser to an SSH player.

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
import re
import secrets
import time
from pathlib import Path
from typing import Any

from tui.server.private_files import make_private, write_private

COOKIE_NAME = "koma_player"
COOKIE_KEY_NAME = "web_cookie_key"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie (Chromium's cap)
MAX_COOKIE_CHARS = 1024
LINK_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off one screen, typed on another
LINK_SECONDS = 600.0
LINK_TRIES_PER_MINUTE = 10  # per address: 31**8 codes, so guessing one is hopeless
MAX_LINK_CODES = 10_000


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


class LinkCodes:
    """One-time codes, each naming an SSH player for :data:`LINK_SECONDS`; a player has one code at a time."""

    def __init__(self) -> None:
        self.codes: dict[str, tuple[str, str, float]] = {}  # code -> player, name, expiry
        self.tries: dict[str, list[float]] = {}

    def issue(self, player: str, name: str) -> str:
        now = time.monotonic()
        for code in [c for c, (p, _, expiry) in self.codes.items() if p == player or expiry < now]:
            del self.codes[code]
        while len(self.codes) >= MAX_LINK_CODES:
            del self.codes[next(iter(self.codes))]
        code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(8))
        self.codes[code] = (player, name, now + LINK_SECONDS)
        return f"{code[:4]}-{code[4:]}"

    def redeem(self, typed: str, address: str) -> tuple[str, str] | str:
        """The (player, name) of a valid code, used up; else why not, in a line for the page."""
        now = time.monotonic()
        tries = [t for t in self.tries.get(address, []) if now - t < 60.0]
        if len(tries) >= LINK_TRIES_PER_MINUTE:
            return "too many tries from your address; wait a minute"
        self.tries[address] = [*tries, now]
        if len(self.tries) > 10_000:
            self.tries = {a: t for a, t in self.tries.items() if t and now - t[-1] < 60.0}
        code = re.sub(r"[^A-Z0-9]", "", typed[:64].upper())
        found = self.codes.pop(code, None)
        if found is None or found[2] < now:
            return "that code is not valid (a code works once, for 10 minutes)"
        return found[0], found[1]


def link_message(links: LinkCodes | None, player: str, name: str) -> str:
    """What ``ssh HOST link`` prints: the player's one-time code, or why there is none."""
    if links is None:
        return "koma: this server does not serve browsers (koma web); there is nothing to link.\r\n"
    code = links.issue(player, name)
    return (f"Your one-time code: {code}\r\nEnter it on the Koma web page within 10 minutes: that browser then "
            f"plays as {name}, with your games and stats.\r\n")
