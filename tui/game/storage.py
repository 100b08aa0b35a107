"""The store as a service: a game never waits for the database, and never loses an accepted write.

:class:`Storage` runs every store call of one game process on its own threads, never on the caller's:

- **writes** (:meth:`Storage.write`) are journalled in the durable outbox (:mod:`tui.game.outbox`, fsync'd)
  and return at once; the *writer* thread applies them to the database in order, and acknowledges each.
  While the database is down, stalled or locked they wait in the outbox, and the writer tries again;
- **reads** (:meth:`Storage.read`) run on the *reader* thread with their own connection.  The answer is
  an :class:`Answer`: the value, or ``unknown`` with the reason (never an empty result in disguise).  A
  read that has not answered by its deadline is answered ``unknown`` then.  A saved game still in the
  outbox is answered from there (the game's own latest save);
- **news** (:class:`SavingDelayed`, :class:`SavingResumed`, :class:`GameKeptApart`) reach the game once
  per change, not per write; and what the store has to say (a damaged row skipped, a file set aside) is
  kept in :attr:`Storage.notices`, with a :class:`Noticed` to say there is something new.

If the outbox cannot be written (its disk is full, the data dir is unusable), a write is kept in memory
instead, in order with the others, and still reaches the database when it can: play goes on, and the
player is told once.

``post`` (given by the app) receives every answer and news item from these threads; the app hands them
to its UI thread.  Every database call has a deadline (see the backends), so a stalled server holds only
these threads, and :meth:`close` never waits longer than it is told.  Never imports Textual.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from tui.game import game_metrics
from tui.game.backend import StoreError, one_line
from tui.game.outbox import GUARD, Journal, Op, OutboxFull
from tui.game.records import SavedGame, Stats
from tui.game.store import Store

T = TypeVar("T")
READ_DEADLINE_SECONDS = 4.0
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0)  # the writer's waits after a failure, then every 2 s
WRITES_FIRST_SECONDS = 1.0  # how long a read waits for the writes accepted before it (a locked database: then it reads)


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A read's answer: ``value``, or (``unknown`` set) why it is not known."""

    value: T
    unknown: str = ""

    @classmethod
    def not_known(cls, reason: str) -> Answer[Any]:
        return Answer(None, reason)

    @property
    def known(self) -> bool:
        return not self.unknown


@dataclass(frozen=True)
class SavingDelayed:
    """Writes are waiting in the outbox: the database is unreachable, stalled or busy (``reason``)."""

    reason: str
    pending: int


@dataclass(frozen=True)
class SavingResumed:
    """The database took everything that waited: ``seconds`` of trouble, ``written`` ops."""

    seconds: float
    written: int


@dataclass(frozen=True)
class GameKeptApart:
    """A game this session could not read is stored: the session's new game under ``key`` was not saved over it."""

    key: str


@dataclass(frozen=True)
class Finished:
    """A finished game is recorded: the stats after it and the daily rank (None when not counted)."""

    key: str
    stats: Stats | None
    rank: int | None


@dataclass(frozen=True)
class Noticed:
    """The store or the outbox had something to say (``notices``, also kept in :attr:`Storage.notices`)."""

    notices: tuple[str, ...]


News = SavingDelayed | SavingResumed | GameKeptApart | Finished | Noticed


@dataclass
class _Read:
    run: Callable[[Store], Any]
    reply: Callable[[Answer], None]
    due: float  # time.monotonic() by which it is answered (``unknown`` then, if the database has not)
    after: Op | None = None  # the last write accepted before the read: the read sees it, if the writer is not held
    answered: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, answer: Answer) -> None:
        with self.lock:
            if self.answered:
                return
            self.answered = True
        self.reply(answer)


class Storage:
    """One game process's store service (see the module's docstring)."""

    def __init__(self, connect: Callable[[], Store], player: str, post: Callable[[News], None], *,
                 outbox: Path | None = None, durable: bool = True, one_connection: bool = False):
        """``connect`` opens a store (StoreError when the database cannot be reached now); ``durable=False``
        keeps the outbox in memory only (tests, the warm process's rehearsal); ``one_connection``: ``connect``
        always gives the same store, so the two threads take turns with it."""
        self.connect = connect
        self.player = player
        self.post = post
        self.notices: list[str] = []
        self._told: set[str] = set()  # the outbox's own notices, said once a session
        self._unsaid: list[str] = []  # the store's notices the game has not been told of yet
        self.journal: Journal | None = None
        if durable:
            try:
                self.journal = Journal(player, outbox)
            except OSError as problem:  # an unusable data dir: play goes on, the writes wait in memory
                self.notices.append(f"The outbox cannot be made ({one_line(problem)}); your moves are kept in memory "
                                    "until the database takes them.")
        self._pending: list[Op] = []  # the pending ops when there is no journal
        self._lock = threading.Condition()
        self._reads: list[_Read] = []
        self._awaited: list[_Read] = []  # reads not yet answered, for their deadlines
        self._busy = 0  # reads being run now
        self._closing = False
        self._writer_store: Store | None = None
        self._reader_store: Store | None = None
        self._one_store = threading.Lock() if one_connection else contextlib.nullcontext()
        self.trouble_since: float | None = None
        self.trouble_reason = ""
        self.written_in_trouble = 0
        self.owned: set[str] = set()  # guarded game keys this session now owns (its guarded insert went in)
        self.kept_apart: set[str] = set()  # guarded keys where a stored game was found: not saved over
        self.adopted = 0
        if self.journal is not None:
            with contextlib.suppress(OSError, OutboxFull):
                self.adopted = self.journal.adopt_orphans()
        self._writer = threading.Thread(target=self._write_loop, name="koma-store-writer", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name="koma-store-reader", daemon=True)
        self._deadlines = threading.Thread(target=self._deadline_loop, name="koma-store-deadlines", daemon=True)
        self._writer.start()
        self._reader.start()
        self._deadlines.start()

    # --- what the game calls (any thread; never blocks on the database) --------------------------------
    def write(self, kind: str, key: str = "", data: dict[str, Any] | None = None, guard: str = "") -> bool:
        """Accept one write: in the outbox (durable, when the service has one) when this returns True.  When the
        outbox's disk refuses it (full, failing), it is kept in memory (it still reaches the database in order)
        and this returns False; past the outbox's bound it is not kept.  Either way the player is told once."""
        notice = ""
        with self._lock:
            if guard == GUARD and key in self.owned:
                guard = ""  # the session's guarded game went in: this is its own game now
            op = Op(kind, self.player, key, data or {}, guard)
            try:
                if self.journal is not None:
                    self.journal.append(op)
                else:
                    self._pending.append(op)
                durable = True
            except OutboxFull as problem:
                notice = f"Not saved: the outbox cannot take more ({one_line(problem)})."
                durable = False
            except OSError as problem:
                assert self.journal is not None
                self.journal.keep(op)
                notice = (f"The outbox cannot be written ({one_line(problem)}); your moves are kept in memory until the "
                          "database takes them.")
                durable = False
            self._lock.notify_all()
        if notice:
            self._tell(notice)
        return durable

    def save_game(self, key: str, game: SavedGame, guard: str = "") -> bool:
        return self.write("save", key, {"start": game.start, "moves": list(game.moves), "origins": game.origins,
                                        "position": game.position, "seconds": game.seconds, "hints": game.hints}, guard)

    def read(self, run: Callable[[Store], T], reply: Callable[[Answer[T]], None],
             deadline: float = READ_DEADLINE_SECONDS) -> None:
        """Run ``run(store)`` on the reader thread; ``reply`` gets its Answer (from a storage thread), by
        ``deadline`` seconds at the latest (then ``unknown``).  The read sees the writes accepted before it
        (the player's own game, just left, is on its card), unless the writer has been held for
        :data:`WRITES_FIRST_SECONDS` or is in trouble: then it reads what the database has."""
        request = _Read(run, reply, time.monotonic() + deadline)
        with self._lock:
            pending = self.pending_ops()
            request.after = pending[-1] if pending else None
            self._reads.append(request)
            self._awaited.append(request)
            self._lock.notify_all()

    def pending_save(self, key: str) -> SavedGame | bool | None:
        """The latest save (or clear: None) of ``key`` still in the outbox; False if there is none."""
        with self._lock:
            for op in reversed(self.pending_ops()):
                if op.key == key and op.kind in ("save", "clear", "finish"):
                    return _saved_game(op.data) if op.kind == "save" else None
        return False

    def pending_ops(self) -> list[Op]:
        return list(self.journal.pending) if self.journal is not None else list(self._pending)

    def settle(self, seconds: float = 10.0) -> bool:
        """Wait (off the UI thread: tests, tools) until every write is in the database and every read answered;
        False if that took longer than ``seconds``."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while (self.pending_ops() or self._reads or self._busy) and time.monotonic() < deadline:
                self._lock.wait(0.02)
            return not (self.pending_ops() or self._reads or self._busy)

    @property
    def in_trouble(self) -> bool:
        return self.trouble_since is not None

    def close(self, seconds: float = 0.5) -> int:
        """Let the writer drain for up to ``seconds``, then stop; returns the ops left in the outbox (they stay
        on disk, and the next game of this player, or the server, writes them)."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while self.pending_ops() and not self.in_trouble and time.monotonic() < deadline:
                self._lock.wait(max(0.0, deadline - time.monotonic()))
            self._closing = True
            self._lock.notify_all()
            left = len(self.pending_ops())
            if self.journal is not None:
                self.journal.close()
        for thread in (self._writer, self._reader, self._deadlines):  # they end at once unless a database call holds them
            if thread is not threading.current_thread():
                thread.join(max(0.05, deadline - time.monotonic()))
        return left

    # --- notices -------------------------------------------------------------------------------------
    def drain_notices(self) -> list[str]:
        """What the store and the outbox said since the last call (any thread)."""
        with self._lock:
            out, self.notices = self.notices, []
        return out

    def _tell(self, notice: str) -> None:
        """Keep the outbox's ``notice`` for the game, once a session."""
        with self._lock:
            if notice in self._told:
                return
            self._told.add(notice)
            self.notices.append(notice)
        self.post(Noticed((notice,)))

    def _collect(self, store: Store) -> None:
        """What ``store`` had to say since it was last asked (a damaged row skipped, a file set aside…) goes to
        :attr:`notices`; :meth:`_say` tells the game."""
        said = store.drain_notices()
        if said:
            with self._lock:
                self.notices.extend(said)
                self._unsaid.extend(said)

    def _say(self) -> None:
        """Tell the game what the store said lately (called where a storage thread holds nothing)."""
        with self._lock:
            said, self._unsaid = tuple(self._unsaid), []
        if said:
            self.post(Noticed(said))

    # --- the writer ----------------------------------------------------------------------------------
    def _write_loop(self) -> None:
        failures = 0
        while True:
            with self._lock:
                while not self._closing and not self.pending_ops():
                    self._lock.wait()
                if self._closing:
                    return
                op = self.pending_ops()[0]
            began = time.perf_counter()
            try:
                news = self._apply(op)
            except StoreError as problem:
                game_metrics.store_error()
                self._troubled(str(problem))
                self._say()
                failures += 1
                with self._lock:
                    if not self._closing:
                        self._lock.wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS)) - 1])
                continue
            game_metrics.saved(time.perf_counter() - began)
            failures = 0
            with self._lock:
                if self.journal is not None:
                    with contextlib.suppress(OSError):
                        self.journal.acknowledge(op)
                else:
                    self._pending.remove(op)
                if self.trouble_since is not None:
                    self.written_in_trouble += 1
                left = len(self.pending_ops())
                self._lock.notify_all()
            if news is not None:
                self.post(news)
            self._say()
            if not left:
                self._recovered()

    def _store(self, which: str) -> Store:
        store = self._writer_store if which == "writer" else self._reader_store
        if store is None:
            store = self.connect()
            self._collect(store)
            if which == "writer":
                self._writer_store = store
            else:
                self._reader_store = store
        return store

    def _apply(self, op: Op) -> News | None:
        """Apply one op to the database (StoreError if it cannot be now); the news it makes, if any."""
        store = self._store("writer")
        owned_before = op.key in self.owned
        with self._one_store:
            try:
                news = apply_op(store, op, self.owned, self.kept_apart)
            finally:
                self._collect(store)
        if not owned_before and op.key in self.owned:
            with self._lock:  # whoever replays this journal must know the guarded game is this session's own
                if self.journal is not None:
                    with contextlib.suppress(OSError):
                        self.journal.own(op.key)
        return news

    def _troubled(self, reason: str) -> None:
        with self._lock:
            first = self.trouble_since is None
            if first:
                self.trouble_since = time.monotonic()
                self.written_in_trouble = 0
            self.trouble_reason = reason
            pending = len(self.pending_ops())
            self._lock.notify_all()  # reads waiting for the writer read what the database has
        if first:
            self.post(SavingDelayed(reason, pending))

    def _recovered(self) -> None:
        with self._lock:
            since = self.trouble_since
            self.trouble_since = None
            written = self.written_in_trouble
        if since is not None:
            self.post(SavingResumed(time.monotonic() - since, written))

    # --- the reader ----------------------------------------------------------------------------------
    def _deadline_loop(self) -> None:
        """Answer ``unknown`` every read still unanswered at its deadline (the reader may be held by the database)."""
        while True:
            with self._lock:
                if self._closing:
                    return
                now = time.monotonic()
                self._awaited = [r for r in self._awaited if not r.answered]
                late = [r for r in self._awaited if r.due <= now]
                if not late:
                    self._lock.wait(min((r.due for r in self._awaited), default=now + 3600) - now)
                    continue
                self._awaited = [r for r in self._awaited if r.due > now]
            for request in late:
                request.answer(Answer.not_known("the database did not answer in time"))

    def _read_loop(self) -> None:
        while True:
            with self._lock:
                while not self._closing and not self._reads:
                    self._lock.wait()
                if self._closing:
                    return
                request = self._reads.pop(0)
                self._busy += 1
            try:
                self._run_read(request)
                self._say()
            finally:
                with self._lock:
                    self._busy -= 1
                    self._lock.notify_all()

    def _writes_first(self, request: _Read) -> None:
        """Wait (bounded) until the writes accepted before ``request`` are in the database."""
        if request.after is None:
            return
        until = min(request.due, time.monotonic() + WRITES_FIRST_SECONDS)
        with self._lock:
            while (not self._closing and not self.in_trouble and not request.answered
                   and any(op is request.after for op in self.pending_ops())):
                left = until - time.monotonic()
                if left <= 0:
                    return
                self._lock.wait(left)

    def _run_read(self, request: _Read) -> None:
        self._writes_first(request)
        if request.answered:
            return  # its deadline passed: nobody waits for it
        try:
            store = self._store("reader")
            with self._one_store:
                try:
                    value = request.run(store)
                finally:
                    self._collect(store)
        except StoreError as problem:
            self._reader_store = None  # connect again next time
            request.answer(Answer.not_known(str(problem)))
            if not self.pending_ops():
                self._troubled(str(problem))
            return
        except Exception as problem:  # a read must never take the game down: it is unknown
            request.answer(Answer.not_known(one_line(problem)))
            return
        request.answer(Answer(value))
        if self.in_trouble and not self.pending_ops():
            self._recovered()


def apply_op(store: Store, op: Op, owned: set[str], kept_apart: set[str]) -> News | None:
    """Apply ``op`` to ``store`` (StoreError if the database cannot take it now).  ``owned`` and ``kept_apart``
    track the guarded keys of the session the op comes from: a guarded save becomes a plain one once its
    insert went in, and is dropped (with :class:`GameKeptApart`, once) where a stored game was found."""
    if op.kind == "save":
        game = _saved_game(op.data)
        if op.guard == GUARD and op.key not in owned:
            if op.key in kept_apart:
                return None
            if store.save_game(op.key, game, at=op.at, guard=GUARD):
                owned.add(op.key)
                return None
            kept_apart.add(op.key)
            return GameKeptApart(op.key)
        store.save_game(op.key, game, at=op.at)
    elif op.kind == "clear":
        if op.guard != GUARD or op.key in owned:
            store.clear_game(op.key, at=op.at)
    elif op.kind == "finish":
        data = dict(op.data)
        if op.guard == GUARD and op.key not in owned:
            data["clear"] = False  # the stored game is not this session's to clear
        stats, rank = store.finish(op.id, data, op.at)
        return Finished(op.key, stats, rank)
    elif op.kind == "speed":
        store.record_speed_solve(op.id, op.data, op.at)
    elif op.kind == "seen":
        store.seen()
    elif op.kind == "watchable":
        store.set_watchable(bool(op.data.get("allowed", True)))
    return None


def _saved_game(data: dict[str, Any]) -> SavedGame:
    return SavedGame(str(data["start"]), list(data["moves"]), str(data["origins"]), int(data["position"]),
                     float(data["seconds"]), int(data["hints"]))
