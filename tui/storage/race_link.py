"""A racer's link to their room: race I/O on a thread of its own, with a store connection of its own.  No Textual.

A race needs latency, not the outbox's durability (a racer's row is the durable record), so its writes never wait
behind the game's storage service, and the UI thread never waits for them.  :class:`RaceLink`:

- **reads** the room when it may have changed: on SQLite when another racer's link pokes it
  (:mod:`tui.storage.race_pokes`: after each write of theirs, at most once per :data:`NOTIFIED_READ_GAP_SECONDS`),
  plus a :data:`POKED_POLL_SECONDS` safety poll while counting down or racing; a link that has no socket to be
  poked (not Linux, or its player's socket is held by another link) reads every
  :data:`~tui.game.race_rules.RACE_POLL_SECONDS` then; :data:`LOBBY_POLL_SECONDS` in the lobby and after (joins are not
  poked); a poll costs no query when no other connection has committed anything since the last (SQLite's
  ``data_version``); on PostgreSQL when
  ``koma_race`` notifies the room (at most once per :data:`NOTIFIED_READ_GAP_SECONDS`, plus a
  :data:`~tui.game.race_rules.SAFETY_POLL_SECONDS` safety poll) once its listener has heard a notification at all; until
  then (PgBouncer in transaction mode, as in ``deploy/``, passes none) it polls as on SQLite, so it is never slower
  than SQLite; reads are incremental
  (:meth:`~tui.storage.race_rooms.RaceRooms.read_round`), and ``on_room`` gets each new snapshot, only when it changed;
  after a change of its own that others' moves do not show (a finish, a start, a sweep, a rematch) it reads at once;
- **writes** the moves the racer :meth:`~RaceLink.send`\\ s within :data:`WRITE_GROUP_SECONDS`, grouped (all the
  moves sent meanwhile in one write): a send wakes the link's thread (one byte in a pipe) unless a write is due
  already; the thread writes at once if its last write is :data:`WRITE_GROUP_SECONDS` old, else that long after
  it, with whatever came meanwhile; so a key costs the racer's screen no write, and a link whose racer does not
  type sleeps until something is due (a read, a heartbeat); a finish, a DNF, a leave or a stop is
  written at once, with every move before it (nothing sent is lost).  Each write is guarded by how many moves are
  stored, so a write that landed before an outage is never appended twice;
- every :data:`~tui.game.race_rules.HEARTBEAT_SECONDS`: writes the racer's heartbeat and sweeps the room (the gone are
  DNF, a countdown past its reveal is racing, a round over or past its limit is done), and starts a quick room that
  is due; a private room starts on :meth:`~RaceLink.ask_start`;
- when the database fails: ``on_trouble`` once (:data:`TROUBLE`; the failure itself is in :attr:`RaceLink.problem`),
  keeps what is unsent, and tries again; ``on_back`` (if given) when it answers again.

A spectator (Watch) follows a race with a link too, as a player who is no racer of it: it only reads (and sweeps).
``connect`` should raise StoreError while the database cannot be reached (``tui.storage.store_choice.connect_store``),
not fall back to a store in memory (``open_store``), or the link would race alone.

``on_room`` and ``on_trouble`` are called on the link's thread: a screen hands them to its UI thread
(``post_message`` is thread-safe).  A refused :meth:`~RaceLink.ask_rematch` (full, not over) is told through
``on_trouble`` too (its one-line reason).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from solver.errors import KomaError
from tui.game.race_rules import (
    COUNTDOWN_SECONDS,
    HEARTBEAT_SECONDS,
    RACE_POLL_SECONDS,
    SAFETY_POLL_SECONDS,
    RacePhase,
    Room,
    check_moves,
)
from tui.game.speed import random_scramble
from tui.storage.backend import StoreError, one_line
from tui.storage.race_pokes import Pokes
from tui.storage.race_rooms import CHANNEL
from tui.storage.store import Store

LOBBY_POLL_SECONDS = 0.2  # SQLite: how often the lobby and the results read the room (nothing there is in a hurry)
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0)  # waits between tries while the database fails
STOP_FLUSH_SECONDS = 2.0  # how long a stopping link keeps trying to write what is unsent
# notifications of a busy room wake at most one read per gap (8 racers at 10 tiles a second notify 80 times a second;
# the screen draws the opponents at most 20 times a second): half that drawing's gap, so a move waits at most 25 ms
# for its read (`koma bench race`, 8 racers: p95 61 ms with a 50 ms gap, 33-36 ms with this, for 0.1-0.2% more of a
# core per racer's process)
NOTIFIED_READ_GAP_SECONDS = 0.025
WRITE_GROUP_SECONDS = 0.05  # the longest a racer's move waits to be written, with the others sent meanwhile
POKED_POLL_SECONDS = SAFETY_POLL_SECONDS  # SQLite: a racing link that others poke reads the room this often anyway
TROUBLE = "The race's database is not answering; your moves are kept, trying again…"


class RaceLink:
    """One racer's link to one room (see the module's docstring).  ``connect`` opens the link's own store (it may
    raise StoreError: the link tries again)."""

    def __init__(self, connect: Callable[[], Store], room: Room, player: str, on_room: Callable[[Room], None],
                 on_trouble: Callable[[str], None], *, on_back: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.time):
        self.player = player
        self._connect, self._on_room, self._on_trouble, self._clock = connect, on_room, on_trouble, clock
        self._on_back = on_back
        self.problem = ""  # the last database failure, in full (on_trouble tells the player in short)
        self._room = room
        self._lock = threading.Lock()
        self._moves: list[str] = []  # every move this racer made this round, and each one's time
        self._times: list[int] = []
        self._sent = 0  # how many of them are stored
        self._outcome: tuple[int | None, bool] = (None, False)  # finished_ms, dnf
        self._outcome_sent = True
        self._asks: list[str] = []
        self._stopping = threading.Event()
        self._adopt(room)
        self._wake_read, self._wake_write = os.pipe()  # closed by the thread as it ends (under the lock)
        self._closed = False
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(target=self._run, name=f"race-link-{room.room[:8]}", daemon=True)
        self._troubled = False
        self._store: Store | None = None
        self._listener: Any = None  # PostgreSQL's Listener, registered in the selector by its socket
        self._listener_fd = -1
        self._heard = False  # the listener has heard a notification: they do reach this process
        self._pokes: Pokes | None = None  # SQLite on one box: this link's socket, poked by the others' links
        self._pokes_tried = False
        self._last_read = 0.0  # monotonic
        self._read_wanted = True  # read at the next turn, due or not (the first read; a notification; an own change)
        self._read_version: int | None = None  # the database's data_version at the last read (None: unknown)
        self._next_beat = 0.0
        self._awake_by = 0.0  # monotonic: when the sleeping thread wakes by itself (0: it is awake, or retrying)
        self._last_write = 0.0  # monotonic: the last write of moves
        self._pipe_only: selectors.BaseSelector | None = None

    # --- the screen's side (any thread) --------------------------------------------------------------------
    @property
    def hearing(self) -> bool:
        """Whether the link is woken by notifications (PostgreSQL whose LISTEN reaches it), not by polling."""
        return self._heard

    @property
    def room(self) -> Room:
        """The latest snapshot (the one last given to ``on_room``)."""
        return self._room

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop (returns at once; the thread writes what is unsent if it can, then ends within a poll).  The racer
        stays in the race: they may come back within the reconnect window."""
        self._stopping.set()
        self._wake()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end; whether it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def send(self, moves_added: str, times_added: Sequence[int], finished_ms: int | None = None, dnf: bool = False) -> None:
        """The racer's new single-tile moves with their times (ms since the reveal), and their finish or DNF: stored
        as soon as the link can, many sends in one write.  KomaError (in the caller) for moves that cannot be."""
        check_moves(moves_added, times_added)
        with self._lock:
            self._moves.extend(moves_added)
            self._times.extend(times_added)
            wake = self._awake_by > time.monotonic() + WRITE_GROUP_SECONDS  # it would sleep past the bound
            if finished_ms is not None or dnf:
                self._outcome, self._outcome_sent = (finished_ms, dnf), False
                wake = True
        if wake:
            self._wake()

    def ask_start(self) -> None:
        """Start a private room's countdown (its host, or anyone once the host is gone; else nothing happens)."""
        self._ask("start")

    def ask_rematch(self) -> None:
        """After the round: join the next (opening it if no one has); the link follows the new round."""
        self._ask("rematch")

    def leave(self) -> None:
        """Leave the room (from the race: a DNF) and stop."""
        self._ask("leave")
        self.stop()

    def _ask(self, what: str) -> None:
        with self._lock:
            self._asks.append(what)
        self._wake()

    def _wake(self) -> None:
        with self._lock, contextlib.suppress(OSError):  # a full pipe is awake already
            if not self._closed:  # once closed, its number may be another file's
                os.write(self._wake_write, b"!")

    # --- the link's thread ----------------------------------------------------------------------------------
    def _adopt(self, room: Room) -> None:
        """Follow ``room``'s round: this racer's moves so far are the stored ones (a racer coming back continues)."""
        me = room.racer(self.player)
        with self._lock:
            self._moves = list(me.moves) if me else []
            self._times = list(me.times_ms) if me else []
            self._sent = len(self._moves)
            self._outcome, self._outcome_sent = ((me.finished_ms, me.dnf) if me else (None, False)), True
        self._room = room

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_read, selectors.EVENT_READ)
        self._pipe_only = selectors.DefaultSelector()  # while a poked read waits for its gap: more pokes change nothing
        self._pipe_only.register(self._wake_read, selectors.EVENT_READ)
        failures = 0
        stop_deadline: float | None = None
        try:
            while True:
                if self._stopping.is_set() and stop_deadline is None:
                    stop_deadline = time.monotonic() + STOP_FLUSH_SECONDS
                try:
                    self._turn(selector)
                    failures = 0
                    if self._troubled:
                        self._troubled = False
                        if self._on_back is not None:
                            self._on_back()
                except StoreError as problem:
                    self._forget_listener(selector)
                    self._read_wanted, self._read_version = True, None  # the connection may be another one now
                    self.problem = str(problem)
                    if not self._troubled:
                        self._troubled = True
                        self._on_trouble(TROUBLE)
                    failures += 1
                except Exception as problem:  # a bug: said once, in one line, and the link ends (no traceback)
                    self.problem = f"{type(problem).__name__}: {problem}"
                    self._on_trouble(f"The race link stopped ({one_line(problem)}).")
                    return
                if stop_deadline is not None and (not self._unsent() or time.monotonic() > stop_deadline):
                    return
                if failures:
                    self._sleep(selector, RETRY_SECONDS[min(failures, len(RETRY_SECONDS)) - 1], retrying=True)
                else:
                    self._sleep(selector, self._wait_seconds())
        finally:
            self._forget_listener(selector)
            selector.close()
            self._pipe_only.close()
            if self._pokes is not None:
                self._pokes.close()
            with self._lock:
                self._closed = True
                for end in (self._wake_read, self._wake_write):
                    with contextlib.suppress(OSError):
                        os.close(end)
            if self._store is not None:
                self._store.close()

    def _turn(self, selector: selectors.BaseSelector) -> None:
        """One round of work: connect (and listen) if needed, write, ask, keep house, and read if due."""
        if self._store is None:
            self._store = self._connect()
        store = self._store
        if store.backend.notifies and self._listener is None:
            self._listen(store, selector)
        if not self._pokes_tried:
            self._bind_pokes(store, selector)
        self._flush(store)
        self._answer_asks(store)
        now = self._clock()
        room = self._room
        if now >= self._next_beat or (room.phase is not RacePhase.DONE and room.phase_at(now) is not room.phase):
            self._next_beat = now + HEARTBEAT_SECONDS
            store.heartbeat(room.room, room.round, self.player)
            if store.sweep(room.room, room.round):
                self._read_wanted = True
                self._poke(room)
        if room.quick_start_due(now):
            store.start(room.room, room.round, now + COUNTDOWN_SECONDS, random_scramble(room.puzzle))
            self._read_wanted = True
            self._poke(room)
        if self._read_wanted or time.monotonic() >= self._last_read + self._poll_seconds():
            self._read(store)

    def _flush(self, store: Store) -> None:
        with self._lock:
            sent, moves, times = self._sent, "".join(self._moves[self._sent:]), self._times[self._sent:]
            finished_ms, dnf = self._outcome if not self._outcome_sent else (None, False)
        if not moves and finished_ms is None and not dnf:
            return
        room = self._room
        if finished_ms is not None or dnf:
            self._read_wanted = True  # the finish or the DNF changes the room's outline: show it at once
        self._last_write = time.monotonic()
        if store.push(room.room, room.round, self.player, moves, times, finished_ms, dnf, after=sent):
            with self._lock:
                self._sent = sent + len(moves)
                self._outcome_sent = self._outcome_sent or (finished_ms, dnf) == self._outcome
            self._poke(room)
            return
        # refused: what is stored may be ahead (a write that landed before a failure), or the racer is out
        self._read_wanted = True
        stored = store.read_round(room.room, room.round)
        me = stored.racer(self.player) if stored is not None else None
        with self._lock:
            if me is not None and not me.out and "".join(self._moves).startswith(me.moves):
                self._sent = len(me.moves)  # the rest goes in the next write
            else:
                self._sent, self._outcome_sent = len(self._moves), True  # out (DNF'd, over): nothing more is stored

    def _answer_asks(self, store: Store) -> None:
        with self._lock:
            asks, self._asks = self._asks, []
        room = self._room
        if asks:
            self._read_wanted = True
        for what in asks:
            if what == "start" and room.may_start(self.player):
                store.start(room.room, room.round, self._clock() + COUNTDOWN_SECONDS, random_scramble(room.puzzle))
            elif what == "rematch":
                try:
                    joined = store.rematch(room.room, room.round, self.player)
                except KomaError as refused:
                    self._on_trouble(str(refused))
                    continue
                self._adopt(joined)
                self._on_room(joined)
            elif what == "leave":
                store.leave(room.room, room.round, self.player)
            else:
                continue
            self._poke(room)

    def _read(self, store: Store) -> None:
        """Read the room (only what changed since the last read), unless no other connection has committed
        anything since then (SQLite's data_version; this link's own moves are known without reading them)."""
        old = self._room
        self._last_read = time.monotonic()
        wanted, self._read_wanted = self._read_wanted, False
        version = store.backend.data_version()
        if not wanted and version is not None and version == self._read_version:
            return
        self._read_version = version  # taken before the read: a commit after it shows as a change next time
        new = store.read_round(old.room, old.round, since=old)
        if new is None or new is old:
            return
        self._room = new
        if replace(new, version=0) != replace(old, version=0):
            self._on_room(new)

    def _unsent(self) -> bool:
        with self._lock:
            return self._sent < len(self._moves) or not self._outcome_sent or bool(self._asks)

    def _poll_seconds(self) -> float:
        """How long after a read the next one is due when nothing asks for one sooner."""
        if self._heard:
            return SAFETY_POLL_SECONDS
        phase = self._room.phase_at(self._clock())
        if phase not in (RacePhase.COUNTDOWN, RacePhase.RACING):
            return LOBBY_POLL_SECONDS
        return POKED_POLL_SECONDS if self._pokes is not None else RACE_POLL_SECONDS

    def _wait_seconds(self) -> float:
        """How long the thread may sleep: until the next read is due (a send wakes it if its move would wait
        longer than :data:`WRITE_GROUP_SECONDS`)."""
        return self._last_read + self._poll_seconds() - time.monotonic()

    def _urgent(self) -> bool:
        """Whether something waits that is written at once (a stop, an ask, a finish or a DNF), not grouped."""
        with self._lock:
            return self._stopping.is_set() or bool(self._asks) or not self._outcome_sent

    def _bind_pokes(self, store: Store, selector: selectors.BaseSelector) -> None:
        from tui.storage.sqlite import SqliteBackend

        self._pokes_tried = True
        backend = store.backend
        if isinstance(backend, SqliteBackend) and not backend.in_memory:
            self._pokes = Pokes.bind(str(backend.path.resolve()), self._room.room, self.player)
            if self._pokes is not None:
                selector.register(self._pokes.fileno(), selectors.EVENT_READ)

    def _poke(self, room: Room) -> None:
        """Wake the other racers' links of ``room`` to read it (SQLite on one box; see :mod:`tui.storage.race_pokes`)."""
        if self._pokes is not None:
            self._pokes.poke(r.player for r in room.racers if r.player != self.player)

    def _sleep(self, selector: selectors.BaseSelector, seconds: float, *, retrying: bool = False) -> None:
        """Wait ``seconds`` at most (no longer than the next heartbeat): a stop, a finish, an ask, a send (at once
        if the last write is :data:`WRITE_GROUP_SECONDS` old, else that long after it), or a notification or a
        poke of this room (no sooner than :data:`NOTIFIED_READ_GAP_SECONDS` after the last read) ends it.
        ``retrying``: moves sent meanwhile do not end it (they are kept for the next try)."""
        seconds = max(0.0, min(seconds, self._next_beat - self._clock()))
        deadline = time.monotonic() + seconds
        poked = False  # a poke's read waits for its gap: the pokes meanwhile need not wake the thread
        try:
            while True:
                with self._lock:  # a move sent before this is written within the bound; one sent after it, sees it
                    if not retrying and self._sent < len(self._moves):  # at once, or a group's gap after the last write
                        deadline = min(deadline, max(time.monotonic(), self._last_write + WRITE_GROUP_SECONDS))
                    self._awake_by = 0.0 if retrying else deadline
                chosen = self._pipe_only if poked and self._pipe_only is not None else selector
                for key, _ in chosen.select(max(0.0, deadline - time.monotonic())):
                    if key.fileobj == self._wake_read:
                        with contextlib.suppress(OSError):
                            while os.read(self._wake_read, 4096):
                                pass
                        if retrying or self._urgent():
                            return
                        continue  # a send: its move is written by the bound above, with those sent meanwhile
                    if self._pokes is not None and key.fileobj == self._pokes.fileno():
                        if self._pokes.drain():
                            self._read_wanted = True
                            due = self._last_read + NOTIFIED_READ_GAP_SECONDS
                            if time.monotonic() >= due:
                                return
                            deadline, poked = min(deadline, due), True  # read then, with whatever else comes meanwhile
                        continue
                    try:
                        payloads = self._listener.drain()
                    except StoreError:
                        self._forget_listener(selector)
                        return
                    self._heard = self._heard or bool(payloads)
                    if self._room.room in payloads:
                        self._read_wanted = True
                        due = self._last_read + NOTIFIED_READ_GAP_SECONDS
                        if time.monotonic() >= due:
                            return
                        deadline = min(deadline, due)  # read then, with whatever else comes meanwhile
                    if not payloads and self._listener.connection.broken:  # readable, no news: the server said goodbye
                        self._forget_listener(selector)
                        return
                if time.monotonic() >= deadline:
                    return
        finally:
            with self._lock:
                self._awake_by = 0.0

    def _listen(self, store: Store, selector: selectors.BaseSelector) -> None:
        from tui.storage.postgres import PostgresBackend

        backend = store.backend
        assert isinstance(backend, PostgresBackend)
        self._listener = backend.listen(CHANNEL)
        self._listener_fd = self._listener.fileno()
        selector.register(self._listener_fd, selectors.EVENT_READ)

    def _forget_listener(self, selector: selectors.BaseSelector) -> None:
        if self._listener is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                selector.unregister(self._listener_fd)
            self._listener.close()
            self._listener = None
            self._heard = False
