"""The store as a service: a game never waits for the database, and never loses an accepted write.

:class:`StoreService` runs every store call of one game process on its own threads, never on the caller's:

- **writes** (:meth:`StoreService.write`, a typed write of :mod:`tui.game.writes`) are handed to the durable outbox's
  threads (:mod:`tui.storage.outbox`: written at once, fsync'd in groups within 50 ms) and return at once, with no
  file I/O on the caller's thread; the *writer* thread applies them to the database in order, many in one
  transaction (a game's moves folded onto its last save: one row written), and acknowledges them.  It gathers
  the writes of :data:`GATHER_SECONDS` into one transaction (a player typing 10 keys a second costs the database
  a few transactions a second, not one a key), unless someone waits for them (a read, :meth:`StoreService.settle`,
  :meth:`StoreService.close`); a write wakes the writer alone, not the reader's threads, and not while it gathers.  While the
  database is down, stalled or locked they wait in the outbox, and the writer tries again;
- **reads** (:meth:`StoreService.read`) run on the *reader* thread with their own connection.  The answer is
  an :class:`Answer`: the value, or ``unknown`` with the reason (never an empty result in disguise).  A
  read that has not answered by its deadline is answered ``unknown`` then.  A saved game still in the
  outbox is answered from there (the game's own latest save); a saved game read from the database is compared
  with the saves still waiting in this player's other journals (:meth:`StoreService.newest_saved_game`: a game that
  ended moments ago, whose journal a drainer or its exiting process holds), so a reconnect resumes what the
  table will hold, never an older state of it;
- **news** (:class:`SavingDelayed`, :class:`SavingResumed`, :class:`GameKeptApart`, :class:`GameBehind`) reach the
  game once per change, not per write; and what the store has to say (a damaged row skipped, a file set aside) is
  kept in :attr:`StoreService.notices`, with a :class:`Noticed` to say there is something new.

If the outbox cannot be written (its disk is full, the data dir is unusable), a write is kept in memory
instead, in order with the others, and still reaches the database when it can: play goes on, and the
player is told once.  If the disk stalls, moves keep flowing (they wait in memory, and in the journal's file
without its fsync); past :data:`MAX_PENDING_OPS` writes waiting, a write is refused with one notice (the game
then sends its whole game with its next write, so it is saved whole once the disk and the database take it).

``post`` (given by the app) receives every answer and news item from these threads; the app hands them
to its UI thread.  Every database call has a deadline (see the backends), so a stalled server holds only
these threads, and :meth:`close` never waits longer than it is told.  Never imports Textual.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Generic, TypeVar

from tui import game_metrics
from tui.game.records import SavedGame, Stats
from tui.game.writes import (
    ClearGame,
    FinishGame,
    FoldError,
    GameState,
    Guard,
    Op,
    PlayMove,
    RecordSpeedSolve,
    SaveGame,
    Seen,
    SetSpeedLooks,
    SetWatchable,
    Travel,
    Write,
    as_save,
)
from tui.storage.backend import StoreError, one_line
from tui.storage.outbox import (
    Journal,
    JournalWriter,
    adoptable,
    claimed_orphans,
    coalesced,
    player_journals,
    read_journal,
)
from tui.storage.store import Store, save_replaces

T = TypeVar("T")
MAX_PENDING_OPS = 50_000  # accepted writes waiting (for the database) past which a write is refused, with a notice
BATCH_OPS = 128  # the most ops the writer applies in one transaction
GATHER_SECONDS = 0.25  # the writer waits this long after a write for more to join its transaction (nobody waiting)
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
class GameBehind:
    """A save of the game under ``key`` was not written: the stored game is newer (another session's, resumed from
    a later state or played on since); the session's game must not replace it."""

    key: str


@dataclass(frozen=True)
class Finished:
    """A finished game is recorded: the stats after it and the daily rank (None when not counted)."""

    key: str
    stats: Stats | None
    rank: int | None


@dataclass(frozen=True)
class Noticed:
    """The store or the outbox had something to say (``notices``, also kept in :attr:`StoreService.notices`)."""

    notices: tuple[str, ...]


News = SavingDelayed | SavingResumed | GameKeptApart | GameBehind | Finished | Noticed


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


class StoreService:
    """One game process's store service (see the module's docstring)."""

    def __init__(self, connect: Callable[[], Store], player: str, post: Callable[[News], None], *,
                 outbox: Path | None = None, durable: bool = True, one_connection: bool = False,
                 fsync: Callable[[int], None] = os.fsync):
        """``connect`` opens a store (StoreError when the database cannot be reached now); ``durable=False``
        keeps the outbox in memory only (tests, the warm process's rehearsal); ``one_connection``: ``connect``
        always gives the same store, so the two threads take turns with it.  ``fsync`` is how the outbox makes
        its journal durable (a seam for tests that stall the disk)."""
        self.connect = connect
        self.player = player
        self.post = post
        self.notices: list[str] = []
        self._told: set[str] = set()  # the outbox's own notices, said once a session
        self._unsaid: list[str] = []  # the store's notices the game has not been told of yet
        self.journal: Journal | None = None
        self.outbox: JournalWriter | None = None
        if durable:
            try:
                self.journal = Journal(player, outbox, fsync=fsync)
            except OSError as problem:  # an unusable data dir: play goes on, the writes wait in memory
                self.notices.append(f"The outbox cannot be made ({one_line(problem)}); your moves are kept in memory "
                                    "until the database takes them.")
        self._pending: deque[Op] = deque()  # accepted, not yet in the database, in order
        self._seq = 0
        self._games: dict[str, list[Op]] = {}  # each game's last whole save and its changes since, as accepted
        self._db_games: dict[str, GameState] = {}  # each game as the database has it (the writer's; folds changes)
        mutex = threading.Lock()
        self._lock = threading.Condition(mutex)  # never held during file or database I/O
        self._writer_wake = threading.Condition(mutex)  # the writer's own: a write wakes it, not the reader's threads
        self._hurry = 0  # callers waiting for the writer (settle, close): it gathers nothing meanwhile
        self._reads: list[_Read] = []
        self._awaited: list[_Read] = []  # reads not yet answered, for their deadlines
        self._busy = 0  # reads being run now
        self._gathering = False  # the writer waits for more writes to join its transaction (see _gather)
        self._closing = False
        self._writer_store: Store | None = None
        self._reader_store: Store | None = None
        self._one_store = threading.Lock() if one_connection else contextlib.nullcontext()
        self._batch_limit = BATCH_OPS
        self.trouble_since: float | None = None
        self.trouble_reason = ""
        self.written_in_trouble = 0
        self.owned: set[str] = set()  # guarded game keys this session now owns (its guarded insert went in)
        self.kept_apart: set[str] = set()  # guarded keys where a stored game was found: not saved over
        self.adopted = 0
        if self.journal is not None:
            self.outbox = JournalWriter(self.journal, self._tell, stall_news=self._news)
            with contextlib.suppress(OSError):
                self._adopt_orphans()
        self._writer = threading.Thread(target=self._write_loop, name="koma-store-writer", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name="koma-store-reader", daemon=True)
        self._deadlines = threading.Thread(target=self._deadline_loop, name="koma-store-deadlines", daemon=True)
        self._writer.start()
        self._reader.start()
        self._deadlines.start()

    def _adopt_orphans(self) -> None:
        """This player's journals whose games are gone: their ops are this session's first (at start, once)."""
        assert self.journal is not None and self.outbox is not None
        for path, fd in claimed_orphans(self.journal.directory, self.player):
            try:
                ops = adoptable(path, self._tell)
            except BaseException:
                os.close(fd)
                raise
            with self._lock:
                numbered = [self._accepted(op.write, op.guard, op) for op in ops]
            self.outbox.adopted(numbered, path, fd)  # removed once they are durable in this journal
            self.adopted += len(numbered)

    # --- what the game calls (any thread; never blocks on the disk or the database) --------------------
    def write(self, write: Write, guard: Guard = Guard.NONE) -> bool:
        """Accept one write; returns at once, with no file I/O (the outbox's threads journal it).  False when it is
        not accepted: a change (:class:`PlayMove`, :class:`Travel`) of a game whose whole save this service has not
        had (the caller sends the whole game instead), or past :data:`MAX_PENDING_OPS` (told once)."""
        key = getattr(write, "key", "")
        with self._lock:
            if isinstance(write, PlayMove | Travel) and key not in self._games:
                return False
            full = len(self._pending) >= MAX_PENDING_OPS
            if not full:
                if guard is Guard.ABSENT and key in self.owned:
                    guard = Guard.NONE  # the session's guarded game went in: this is its own game now
                op = self._accepted(write, guard)
                if self.outbox is not None and not self.outbox.submit(op):
                    self._forget_last(op)
                    full = True
                elif not self._gathering or len(self._pending) >= BATCH_OPS:
                    self._writer_wake.notify()  # (a writer gathering takes this write at its deadline: no wake per key)
        if full:
            self._tell(f"Not saved: {MAX_PENDING_OPS} writes already wait for the disk or the database; the game is "
                       "saved whole once they are taken.")
            return False
        return True

    def _accepted(self, write: Write, guard: Guard, was: Op | None = None) -> Op:
        """(Lock held.)  ``write`` numbered and pending; its game's log kept for :meth:`pending_save`."""
        self._seq += 1
        op = Op(write, self.player, guard, seq=self._seq) if was is None else Op(write, self.player, guard, was.id,
                                                                                 was.at, self._seq)
        self._pending.append(op)
        if isinstance(write, SaveGame):
            self._games[write.key] = [op]
        elif isinstance(write, PlayMove | Travel):
            self._games[write.key].append(op)
        return op

    def _forget_last(self, op: Op) -> None:
        """(Lock held.)  Take back the op just accepted (the outbox refused it)."""
        self._pending.pop()
        log = self._games.get(op.key)
        if log and log[-1] is op:
            log.pop()
            if not log:
                del self._games[op.key]

    def save_game(self, key: str, game: SavedGame, guard: Guard = Guard.NONE) -> bool:
        return self.write(SaveGame(key, game), guard)

    def read(self, run: Callable[[Store], T], reply: Callable[[Answer[T]], None],
             deadline: float = READ_DEADLINE_SECONDS) -> None:
        """Run ``run(store)`` on the reader thread; ``reply`` gets its Answer (from a storage thread), by
        ``deadline`` seconds at the latest (then ``unknown``).  The read sees the writes accepted before it
        (the player's own game, just left, is on its card), unless the writer has been held for
        :data:`WRITES_FIRST_SECONDS` or is in trouble: then it reads what the database has."""
        request = _Read(run, reply, time.monotonic() + deadline)
        with self._lock:
            pending = self._pending
            request.after = pending[-1] if pending else None
            self._reads.append(request)
            self._awaited.append(request)
            self._lock.notify_all()
            self._writer_wake.notify()

    def pending_save(self, key: str) -> SavedGame | bool | None:
        """The latest save (or clear: None) of ``key`` still in the outbox; False if there is none."""
        with self._lock:
            latest = next((op for op in reversed(self._pending) if op.key == key and not isinstance(
                op.write, Seen | SetWatchable | SetSpeedLooks)), None)
            if latest is None:
                return False
            if isinstance(latest.write, ClearGame | FinishGame):
                return None
            log = list(self._games.get(key, ()))
        state = None
        try:
            for op in log:
                state = GameState.after(state, op.write)  # type: ignore[arg-type]
        except FoldError:
            return False
        return state.snapshot() if state is not None else False

    def newest_saved_game(self, store: Store, key: str) -> SavedGame | None:
        """(On the reader thread: a read's ``run``.)  The game saved under ``key`` as the table will hold it once
        every journal of this player's has drained: the database's, or a newer save still waiting in a journal this
        session could not adopt (a game that ended moments ago, whose journal a drainer, or that game's process
        while it exits, still holds), by the store's own rule (:func:`~tui.storage.store.save_replaces`).  The
        journals are read before the database: a drain that lands meanwhile is in the table then.  StoreError when
        the database cannot answer."""
        waiting = self._waiting_elsewhere(key)
        stamped = store.load_stamped_game(key)
        game: SavedGame | None = None
        version, revision = 0, None if stamped is None else stamped[1]
        if stamped is not None:
            game, version = stamped[0], stamped[0].version
        for op in sorted(waiting, key=lambda op: op.at):
            if isinstance(op.write, SaveGame):
                stamp = (op.write.game.version, op.at)
                if game is None or (not op.guarded and save_replaces((version, revision), stamp)):
                    game, (version, revision) = op.write.game, stamp
            elif not op.guarded and (revision is None or revision <= op.at):  # a clear, or a finish
                game, version, revision = None, 0, None
        return game

    def _waiting_elsewhere(self, key: str) -> list[Op]:
        """The ops of ``key`` pending in this player's other journals (live or orphaned; read, never claimed)."""
        if self.journal is None:
            return []
        own = self.journal.path
        found: list[Op] = []
        for path in player_journals(self.journal.directory, self.player):
            if path != own:
                found.extend(op for op in read_journal(path) if op.key == key and isinstance(
                    op.write, SaveGame | ClearGame | FinishGame))
        return found

    def pending_ops(self) -> list[Op]:
        with self._lock:
            return list(self._pending)

    def settle(self, seconds: float = 10.0) -> bool:
        """Wait (off the UI thread: tests, tools) until every write is in the database (and its done mark in the
        journal) and every read answered; False if that took longer than ``seconds``."""
        deadline = time.monotonic() + seconds
        with self._lock:
            self._hurry += 1
            self._writer_wake.notify()
            try:
                while (self._pending or self._reads or self._busy) and time.monotonic() < deadline:
                    self._lock.wait(0.02)
            finally:
                self._hurry -= 1
            if self._pending or self._reads or self._busy:
                return False
        return self.outbox is None or self.outbox.flush(max(0.0, deadline - time.monotonic()))

    def durable(self, seconds: float = 10.0) -> bool:
        """Wait (off the UI thread: tests) until every write accepted is fsync'd in the journal."""
        return self.outbox is None or self.outbox.flush(seconds)

    @property
    def in_trouble(self) -> bool:
        return self.trouble_since is not None

    def close(self, seconds: float = 0.5, disk_seconds: float = 1.0) -> int:
        """Let the writer drain for up to ``seconds``, then stop; the outbox writes everything accepted (a crash of
        the process after this loses nothing) and makes it durable for up to ``disk_seconds``.  Returns the ops
        left for the database (they stay in the journal, and the next game of this player, or the server, writes
        them)."""
        deadline = time.monotonic() + seconds
        with self._lock:
            self._hurry += 1
            self._writer_wake.notify()
            while self._pending and not self.in_trouble and time.monotonic() < deadline:
                self._lock.wait(max(0.0, deadline - time.monotonic()))
            self._closing = True
            self._lock.notify_all()
            self._writer_wake.notify()
        for thread in (self._writer, self._reader, self._deadlines):  # they end at once unless a database call holds them
            if thread is not threading.current_thread():
                thread.join(max(0.05, deadline - time.monotonic()))
        with self._lock:
            left = len(self._pending)
        if self.outbox is not None:
            self.outbox.close(disk_seconds)
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

    def _news(self, notice: str) -> None:
        """Tell the game ``notice`` now, however often it was said before (a disk stall, and its end, each time)."""
        with self._lock:
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
                while not self._closing and not self._pending:
                    self._writer_wake.wait()
                self._gather()
                if self._closing:
                    return
                batch = list(islice(self._pending, self._batch_limit))
            began = time.perf_counter()
            try:
                news = self._apply(batch)
            except StoreError as problem:
                game_metrics.store_error()
                self._troubled(str(problem))
                self._say()
                failures += 1
                self._batch_limit = 1  # one op at a time until one goes in: a bad op holds back only itself
                with self._lock:
                    if not self._closing:
                        self._writer_wake.wait(RETRY_SECONDS[min(failures, len(RETRY_SECONDS)) - 1])
                continue
            game_metrics.saved(time.perf_counter() - began)
            failures = 0
            self._batch_limit = BATCH_OPS
            with self._lock:
                for _ in batch:
                    self._pending.popleft()  # the batch is the queue's head: only this thread takes from it
                if self.trouble_since is not None:
                    self.written_in_trouble += len(batch)
                left = len(self._pending)
                self._lock.notify_all()
            if self.outbox is not None:
                self.outbox.acknowledge(batch)
            for item in news:
                self.post(item)
            self._say()
            if not left:
                self._recovered()

    def _gather(self) -> None:
        """(Lock held.)  Wait up to :data:`GATHER_SECONDS` for more writes to join the transaction, while nobody waits
        for the writer (a read, settle, close) and the batch is not full; not after a failure (one op at a time)."""
        deadline = time.monotonic() + GATHER_SECONDS
        self._gathering = True
        try:
            while (not self._closing and not self._hurry and not self._reads and not self._busy
                   and self._batch_limit == BATCH_OPS and len(self._pending) < BATCH_OPS):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._writer_wake.wait(left)
        finally:
            self._gathering = False

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

    def _apply(self, batch: list[Op]) -> list[News]:
        """Apply ``batch`` to the database in one transaction (StoreError if it cannot be now); the news it made.
        A game's changes are folded onto its last save: one whole save of each game the batch touched."""
        store = self._store("writer")
        ops, games = self._folded(batch)
        owned, kept_apart = set(self.owned), set(self.kept_apart)
        with self._one_store:
            try:
                with store.batch():
                    news = [item for op in ops if (item := apply_op(store, op, owned, kept_apart)) is not None]
            finally:
                self._collect(store)
        with self._lock:
            newly_owned = owned - self.owned
            self.owned, self.kept_apart = owned, kept_apart
        self._db_games.update(games)
        if self.outbox is not None:
            for key in newly_owned:  # whoever replays this journal must know the guarded game is this session's own
                self.outbox.own(key)
        return news

    def _folded(self, batch: list[Op]) -> tuple[list[Op], dict[str, GameState]]:
        """``batch`` as the store takes it: each game's changes folded onto its save, and only the last whole game
        of each kept (a later one replaces it); and the games as they stand after it."""
        survivors = {id(op) for op in coalesced(batch)}
        for op in batch:  # but a guarded game's first save is tried: whether it went in is news (GameKeptApart)
            if op.guarded and op.changes_game and op.key not in self.owned:
                survivors.add(id(op))
                break
        games: dict[str, GameState] = {}
        ops = []
        for op in batch:
            if isinstance(op.write, SaveGame | PlayMove | Travel):
                key = op.key
                state = games.get(key)
                if state is None and not isinstance(op.write, SaveGame) and key in self._db_games:
                    state = self._db_games[key].copy()
                try:
                    games[key] = state = GameState.after(state, op.write)
                except FoldError as problem:
                    games.pop(key, None)
                    self._tell(f"Skipped a move that does not fit its saved game ({problem}).")
                    continue
                if id(op) in survivors:
                    ops.append(op if isinstance(op.write, SaveGame) else as_save(op, state))
            else:
                ops.append(op)
        return ops, games

    def _troubled(self, reason: str) -> None:
        with self._lock:
            first = self.trouble_since is None
            if first:
                self.trouble_since = time.monotonic()
                self.written_in_trouble = 0
            self.trouble_reason = reason
            pending = len(self._pending)
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
                   and any(op is request.after for op in self._pending)):
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
    """Apply ``op`` to ``store`` (StoreError if the database cannot take it now).  A change (a move) must have been
    folded onto its save first (:func:`tui.game.writes.as_save`).  ``owned`` and ``kept_apart`` track the guarded
    keys of the session the op comes from: a guarded save becomes a plain one once its insert went in, and is
    dropped (with :class:`GameKeptApart`, once) where a stored game was found.  A plain save that a newer stored
    game refuses (:func:`tui.storage.store.save_replaces`) is :class:`GameBehind`."""
    write = op.write
    guarded = op.guarded and op.key not in owned
    if isinstance(write, SaveGame):
        if guarded:
            if op.key in kept_apart:
                return None
            if store.save_game(op.key, write.game, at=op.at, guard=Guard.ABSENT):
                owned.add(op.key)
                return None
            kept_apart.add(op.key)
            return GameKeptApart(op.key)
        if not store.save_game(op.key, write.game, at=op.at):
            return GameBehind(op.key)
    elif isinstance(write, ClearGame):
        if not guarded:
            store.clear_game(op.key, at=op.at)
    elif isinstance(write, FinishGame):
        stats, rank = store.finish(op.id, write, op.at, clear=not guarded)  # a guarded game is not this session's to clear
        return Finished(op.key, stats, rank)
    elif isinstance(write, RecordSpeedSolve):
        store.record_speed_solve(op.id, write, op.at)
    elif isinstance(write, Seen):
        store.seen()
    elif isinstance(write, SetWatchable):
        store.set_watchable(write.allowed)
    elif isinstance(write, SetSpeedLooks):
        store.set_speed_looks(write.scheme, write.hover)
    else:
        raise FoldError(f"a {write.KIND.value} of {op.key} applied unfolded")
    return None
