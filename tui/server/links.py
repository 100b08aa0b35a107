"""One-time codes that link a browser to an SSH player: ``ssh -p PORT HOST link`` prints one (the SSH front end),
the web page takes it (``koma web --link-only``), and the browser then plays as that player.  Never imports Textual.
"""

from __future__ import annotations

import re
import secrets
import time

LINK_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off one screen, typed on another
LINK_SECONDS = 600.0
LINK_TRIES_PER_MINUTE = 10  # per address: 31**8 codes, so guessing one is hopeless
MAX_LINK_CODES = 10_000


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
