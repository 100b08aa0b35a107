"""The replica's part of the outbox: it writes what games that ended during a database outage left behind.

A game journals every accepted write before the database sees it (:mod:`tui.storage.outbox`).  A game that
quits while the database is away leaves its journal; the player's next game adopts it, and for a player who
does not come back, :class:`OutboxDrainer` (run by ``koma serve`` every few seconds, off its event loop)
applies it, in order and idempotently, then removes it.  It also tells the operator, once each, when
database trouble starts and when it ends (with its duration and the outbox's depth).  Never imports Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.storage.backend import StoreError
from tui.storage.outbox import adoptable, claimed_orphans, outbox_depth, outbox_dir
from tui.storage.service import apply_op
from tui.storage.store import Store
from tui.storage.store_choice import connect_store

DRAIN_SECONDS = 5.0


class OutboxDrainer:
    """Drains orphaned journals into the database, and logs database trouble once when it starts and ends."""

    def __init__(self, database: str | None, log: Callable[[str], None], directory: Path | None = None,
                 events: Callable[..., None] | None = None):
        """``log(message)`` gets each line; or, when given, ``events(message, event, **fields)`` does (the server's
        log, :mod:`tui.server.server_log`, which names the event and can write JSON)."""
        self.database = database
        self.log = log
        self.events = events
        self.directory = directory if directory is not None else outbox_dir()
        self.trouble_since: float | None = None
        self.probe: Store | None = None
        self.depth = (0, 0)  # (ops, journals) waiting, as of the last pass: for the metrics
        self.accepting = True  # the outbox's directory can be written (so games can keep moves while the database is away)
        self.probe_seconds: float | None = None  # the last pass's round trip to the database

    async def keep_draining(self) -> None:
        """Every few seconds, off the event loop, until cancelled: one :meth:`drain` pass."""
        while True:
            try:
                await asyncio.to_thread(self.drain)
            except Exception as problem:  # the drainer must never take the server down
                self.say(f"outbox: {problem!r}", "outbox_error")
            await asyncio.sleep(DRAIN_SECONDS)

    async def last_pass(self, seconds: float = 10.0) -> None:
        """At shutdown: what the games journalled while stopping goes to the database now, if it can."""
        try:
            await asyncio.wait_for(asyncio.to_thread(self.drain), seconds)
        except Exception as problem:
            self.say(f"outbox: left for the next start ({problem!r})", "outbox_error")

    def drain(self) -> int:
        """One pass (blocking: run it in a thread): every orphaned journal applied and removed, until the database
        fails.  Returns the ops written."""
        written = 0
        stores: dict[str, Store] = {}
        self.accepting = not self.directory.exists() or os.access(self.directory, os.W_OK)
        try:
            for path, fd in claimed_orphans(self.directory):
                try:
                    owned: set[str] = set()
                    kept_apart: set[str] = set()
                    for op in adoptable(path, self.damaged):
                        store = stores.get(op.player)
                        if store is None:
                            store = stores[op.player] = connect_store(self.database, op.player)
                        apply_op(store, op, owned, kept_apart)
                        written += 1
                    path.unlink()
                finally:
                    os.close(fd)
        except StoreError as problem:
            self._troubled(str(problem))
            return written
        finally:
            for store in stores.values():
                with contextlib.suppress(Exception):
                    store.close()
        if written:
            self.say(f"wrote {written} saved move(s) that games left in the outbox", "outbox_written", ops=written)
        try:  # nothing to drain says nothing of the database: ask it (one cheap statement)
            began = time.monotonic()
            if self.probe is None:
                self.probe = connect_store(self.database, "koma-serve")
            self.probe.backend.query("SELECT 1")
            self.probe_seconds = time.monotonic() - began
        except StoreError as problem:
            self.probe = None
            self._troubled(str(problem))
            return written
        self._healthy()
        return written

    def damaged(self, notice: str) -> None:
        self.say(f"outbox: {notice}", "outbox_damaged")

    def say(self, message: str, event: str, **fields: Any) -> None:
        if self.events is not None:
            self.events(message, event, **fields)
        else:
            self.log(message)

    def _troubled(self, reason: str) -> None:
        self.depth = ops, journals = outbox_depth(self.directory)
        if self.trouble_since is None:
            self.trouble_since = time.monotonic()
            self.say(f"database trouble: {reason}; games keep their moves in the outbox ({ops} op(s) in {journals} "
                     "journal(s))", "database_trouble", reason=reason, outbox_ops=ops)

    def _healthy(self) -> None:
        self.depth = ops, journals = outbox_depth(self.directory)
        if self.trouble_since is not None:
            seconds = time.monotonic() - self.trouble_since
            self.trouble_since = None
            self.say(f"database back after {seconds:.1f} s; outbox depth {ops} op(s) in {journals} journal(s)",
                     "database_back", seconds=round(seconds, 3), outbox_ops=ops)

    def state(self) -> dict[str, Any]:
        """For the metrics and /readyz (read from another thread: plain attributes)."""
        ops, journals = self.depth
        return {"database_trouble": int(self.trouble_since is not None), "outbox_ops": ops, "outbox_journals": journals,
                "outbox_accepting": self.accepting}
