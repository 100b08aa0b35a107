"""The durable outbox: accepted writes, journalled on the replica's disk before the database sees them.

Every write a game makes is an :class:`~tui.game.writes.Op`.  The game's thread hands it to the
:class:`JournalWriter` and returns at once (no file I/O on the caller's thread).  The writer's thread appends it
to this process's journal, ``outbox/<player>.<pid>.<token>.jsonl`` in the data dir, at once (so that a crash of
the process loses nothing it has written), and a second thread makes it durable with **one fsync for every
write of the last** :data:`SYNC_DELAY_SECONDS` (a group commit, as a database's WAL does): a machine crash
loses at most that, plus the fsync's own time.  A move is journalled as the move, a few bytes
(:class:`~tui.game.writes.PlayMove`): replay folds it onto the game's last whole save in the journal.

A line ``{"done": seq}`` follows once the database has an op (never fsync'd: replaying a done op is harmless,
see :mod:`tui.storage.store`; a write of done lines alone asks for no fsync, where it once cost one of its own).
A line ``{"owned": key}`` says that the session's guarded game under ``key`` went in: its guarded writes still
pending are plain ones, whoever replays them.  Each line is versioned and checked
(:func:`~tui.game.writes.encode_record`): a damaged one is skipped, with one notice per journal.

The journal is held with an exclusive ``flock`` while its process lives.  A journal whose lock can be taken is
an orphan (its game ended before the database took everything): the next game of the same player adopts it
(its ops join that game's journal, in order), and the server drains the rest.  A torn last line (a crash
mid-append) is ignored.  The journal is never truncated per write: when it grows past :data:`COMPACT_BYTES` it is
rewritten with only what is pending (a game's pending changes folded into one whole save, superseded saves
dropped) and each game's base; past :data:`MAX_BYTES` of pending ops, a write is kept in memory only, with a
notice.  When the disk is slow to confirm (an fsync outlasts :data:`STALL_SECONDS`) the player is told once, and
once again when it confirms; the moves meanwhile are kept.  Never imports Textual.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from tui.config.paths import data_dir
from tui.game.writes import (
    ClearGame,
    DamagedRecord,
    FinishGame,
    FoldError,
    GameState,
    Guard,
    Op,
    SaveGame,
    as_save,
    decode_record,
    encode_record,
    record_op,
)

OUTBOX_DIR = "outbox"
SUFFIX = ".jsonl"
COMPACT_BYTES = 256 * 1024
MAX_BYTES = 8 * 1024 * 1024
SYNC_DELAY_SECONDS = 0.05  # an op written is fsync'd within this (plus the fsync's own time): a machine crash loses at most that
STALL_SECONDS = 2.0  # an fsync this slow: the player is told once (and once when it is done)
MAX_QUEUED = 50_000  # records waiting for the disk past which a write is refused (see JournalWriter.submit)


class OutboxFull(Exception):
    """The journal's pending ops passed :data:`MAX_BYTES` (the database has been away a long time); the first
    ``taken`` ops given were written nonetheless."""

    def __init__(self, message: str, taken: int = 0):
        super().__init__(message)
        self.taken = taken


def outbox_dir() -> Path:
    return data_dir() / OUTBOX_DIR


def player_tag(player: str) -> str:
    """A file-name-safe, stable tag for a player (journals are found by it)."""
    return hashlib.sha256(player.encode()).hexdigest()[:16]


def read_journal(path: Path, damaged: Callable[[str], None] | None = None) -> list[Op]:
    """The pending ops of a journal file, in order, each change folded onto the save before it (a
    :class:`~tui.game.writes.SaveGame` of the game it led to).  A torn last line is ignored; a damaged line, or a
    change with no save to fold it onto, is skipped, and ``damaged`` is told once (one line) for the file."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    lines = data.split(b"\n")
    if lines and lines[-1]:
        lines.pop()  # a torn last line: a crash mid-append
    skipped: list[str] = []
    pending: dict[int, Op] = {}
    states: dict[str, GameState | None] = {}  # each game as folded so far (a journal holds one player's ops)
    for raw in lines:
        if not raw.strip():
            continue
        try:
            record = decode_record(raw)
        except DamagedRecord as problem:
            skipped.append(str(problem))
            continue
        if record.done is not None:
            pending.pop(record.done, None)
        elif record.owned is not None:
            for seq, waiting in pending.items():
                if waiting.key == record.owned and waiting.guarded:
                    pending[seq] = replace(waiting, guard=Guard.NONE)
        elif record.base is not None:
            states[record.base.key] = GameState(record.base.game)
        op = record_op(record)
        if op is None:
            continue
        if op.changes_game:
            try:
                state = states[op.key] = GameState.after(states.get(op.key), op.write)  # type: ignore[arg-type]
            except FoldError as problem:
                states[op.key] = None
                skipped.append(str(problem))
                continue
            op = as_save(op, state) if not isinstance(op.write, SaveGame) else op
        pending[op.seq] = op
    if skipped and damaged is not None:
        damaged(f"Skipped {len(skipped)} damaged record{'s' if len(skipped) != 1 else ''} of the outbox journal "
                f"{path.name} ({skipped[0]}).")
    return [pending[seq] for seq in sorted(pending)]


def coalesced(ops: list[Op]) -> list[Op]:
    """``ops`` without the game writes that a later write of the same game (same player, same guard) replaces."""
    last: dict[tuple[str, str, Guard], int] = {}
    for index, op in enumerate(ops):
        if op.changes_game or isinstance(op.write, ClearGame | FinishGame):
            last[(op.player, op.key, op.guard)] = index
    return [op for index, op in enumerate(ops)
            if not op.changes_game or last.get((op.player, op.key, op.guard)) == index]


class Journal:
    """This process's journal file: append, acknowledge, compact, adopt a dead process's journal.  Used by one thread
    at a time (the :class:`JournalWriter`'s, or a test's); :meth:`append` writes without fsync, :meth:`sync` makes
    everything written so far durable."""

    def __init__(self, player: str, directory: Path | None = None, *, fsync: Callable[[int], None] = os.fsync):
        self.player = player
        self.directory = directory if directory is not None else outbox_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / f"{player_tag(player)}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.fsync = fsync
        self._pending: dict[int, Op] = {}  # by seq, in order
        self._sizes: dict[int, int] = {}  # each pending op's line length, by seq: a move never re-encodes the backlog
        self.games: dict[str, GameState] = {}  # each game as of the last op appended: its base when compacting
        self._seq = 0
        self._size = 0
        self._only_in_memory = False  # some pending op is not on disk (see keep)
        self._directory_synced = False
        self.file_lock = threading.Lock()  # held while the file (descriptor) changes; see JournalWriter

    @property
    def pending(self) -> list[Op]:
        """The ops written (or kept) and not yet acknowledged, in order."""
        return list(self._pending.values())

    def _numbered(self, ops: Iterable[Op]) -> list[Op]:
        numbered, seq = [], self._seq
        for op in ops:
            if op.seq <= seq:
                op = replace(op, seq=seq + 1)
            seq = op.seq
            numbered.append(op)
        return numbered

    def _taken(self, op: Op, size: int) -> None:
        self._seq = max(self._seq, op.seq)
        self._pending[op.seq] = op
        self._sizes[op.seq] = size
        if op.changes_game:
            try:
                self.games[op.key] = GameState.after(self.games.get(op.key), op.write)  # type: ignore[arg-type]
            except FoldError:
                self.games.pop(op.key, None)

    def append(self, op: Op) -> Op:
        """Write ``op`` (numbered, if it has no number yet) and keep it pending; see :meth:`append_many`."""
        return self.append_many([op])[0]

    def append_many(self, ops: list[Op]) -> list[Op]:
        """Write ``ops`` (in as few writes as the bound allows) and keep them pending; returns them numbered.  Past
        :data:`MAX_BYTES` pending, the journal is compacted first; if still past it, OutboxFull (the ops before
        were taken, see its ``taken``).  OSError: the failed write's ops are not kept, and the journal is as it was
        (a line the disk took only in part is cut off again)."""
        numbered = self._numbered(ops)
        lines = [encode_record(op=op) for op in numbered]
        start = 0
        while start < len(numbered):
            if self.pending_bytes() > MAX_BYTES:
                self.compact()
                if self.pending_bytes() > MAX_BYTES:
                    raise OutboxFull(f"the outbox holds {self.pending_bytes() // 1024} KiB not yet saved", taken=start)
            room, end = MAX_BYTES - self.pending_bytes(), start
            while end < len(lines) and room >= 0:  # the op that crosses the bound is taken; the next one waits
                room -= len(lines[end])
                end += 1
            self._write(b"".join(lines[start:end]))
            for op, line in zip(numbered[start:end], lines[start:end], strict=True):
                self._taken(op, len(line))
            start = end
        return numbered

    def _write(self, data: bytes) -> None:
        """Append ``data`` whole, or raise OSError with the journal cut back to where it was (a full disk may
        take part of a line: the next line must not be glued to it)."""
        with self.file_lock:
            try:
                _write_all(self._fd, data)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)
                raise
            self._size += len(data)

    def sync(self) -> None:
        """Make everything written so far durable (fsync; the directory too, once)."""
        with self.file_lock:
            fd = os.dup(self._fd)
        try:
            self.fsync(fd)
        finally:
            os.close(fd)
        if not self._directory_synced:
            self._sync_directory()
            self._directory_synced = True

    def keep(self, op: Op) -> Op:
        """Keep ``op`` pending in memory only (:meth:`append` failed: the disk is full or failing).  The next
        compaction writes it, if the disk takes it then."""
        op = self._numbered([op])[0]
        self._taken(op, len(encode_record(op=op)))
        self._only_in_memory = True
        return op

    def acknowledge(self, op: Op) -> None:
        self.acknowledge_many([op])

    def acknowledge_many(self, ops: Iterable[Op]) -> None:
        """The database has ``ops``: they are no longer pending (a ``done`` line each, in one write; never a
        truncation: the journal is compacted once it has grown past :data:`COMPACT_BYTES`)."""
        done = [op.seq for op in ops if self._pending.pop(op.seq, None) is not None]
        for seq in done:
            self._sizes.pop(seq, None)
        if not done:
            return
        with contextlib.suppress(OSError):  # replaying a done op is harmless
            self._write(b"".join(encode_record(done=seq) for seq in done))
        if self._size > COMPACT_BYTES:
            with contextlib.suppress(OSError):
                self.compact()

    def own(self, key: str) -> None:
        """The session's guarded game under ``key`` went in: its pending guarded ops are plain writes from now on,
        in memory and (an ``owned`` line) for whoever reads this journal after a crash."""
        for seq, op in self._pending.items():
            if op.key == key and op.guarded:
                self._pending[seq] = plain = replace(op, guard=Guard.NONE)
                self._sizes[seq] = len(encode_record(op=plain))
        self._write(encode_record(owned=key))

    def pending_bytes(self) -> int:
        return sum(self._sizes.values())

    def compact(self) -> None:
        """Rewrite the journal, atomically, with each game's base and only the pending ops: a game's pending
        changes become one whole save, and a save a later write replaces is dropped."""
        pending = []
        for op in coalesced(self.pending):
            if op.changes_game and not isinstance(op.write, SaveGame) and op.key in self.games:
                op = as_save(op, self.games[op.key])
            pending.append(op)
        bases = [encode_record(base=SaveGame(key, state.snapshot())) for key, state in self.games.items()]
        lines = [encode_record(op=op) for op in pending]
        temp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            data = b"".join(bases + lines)
            _write_all(fd, data)
            self.fsync(fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.replace(temp, self.path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        with self.file_lock:
            os.close(self._fd)
            self._fd, self._size = fd, len(data)
            os.lseek(self._fd, 0, os.SEEK_END)
        self._pending = {op.seq: op for op in pending}
        self._sizes = {op.seq: len(line) for op, line in zip(pending, lines, strict=True)}
        self._only_in_memory = False
        self._sync_directory()

    def adopt_orphans(self, damaged: Callable[[str], None] | None = None) -> int:
        """Take over the pending ops of this player's journals whose processes are gone (written and fsync'd here
        before theirs are removed); returns how many."""
        adopted = 0
        for path, fd in claimed_orphans(self.directory, self.player):
            try:
                ops = adoptable(path, damaged)
                self.append_many([replace(op, seq=0) for op in ops])
                self.sync()
                adopted += len(ops)
                path.unlink()
            finally:
                os.close(fd)
        return adopted

    def close(self) -> None:
        """Close the journal; a journal with nothing pending is removed, else it stays for a drainer (with the
        ops kept only in memory written too, if the disk takes them now)."""
        if self._fd < 0:
            return
        if not self._pending:
            with contextlib.suppress(OSError):
                self.path.unlink()
        elif self._only_in_memory:
            with contextlib.suppress(OSError):
                self.compact()
        with self.file_lock:
            os.close(self._fd)
            self._fd = -1

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def _sync_directory(self) -> None:
        try:
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            self.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def adoptable(path: Path, damaged: Callable[[str], None] | None = None) -> list[Op]:
    """A dead journal's pending ops, folded and coalesced: what a new journal takes over."""
    return coalesced(read_journal(path, damaged))


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (a nearly full disk may take part of it, and refuse only the next write)."""
    written = 0
    while written < len(data):
        took = os.write(fd, data[written:])
        if took <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written += took


def player_journals(directory: Path, player: str | None = None) -> list[Path]:
    """The journals (of ``player``, else of anyone) in ``directory``, live or orphaned."""
    pattern = f"{player_tag(player)}.*{SUFFIX}" if player is not None else f"*{SUFFIX}"
    return sorted(directory.glob(pattern)) if directory.is_dir() else []


def claimed_orphans(directory: Path, player: str | None = None) -> Iterator[tuple[Path, int]]:
    """Journals (of ``player``, else of anyone) whose writer is gone, each locked for the caller: it gets the
    path and the locked fd, and must close the fd (and unlink the file once drained)."""
    for path in player_journals(directory, player):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # its writer lives
        if os.path.exists(path) and os.fstat(fd).st_ino == os.stat(path).st_ino:
            yield path, fd
        else:
            os.close(fd)  # replaced by a compaction meanwhile


def outbox_depth(directory: Path | None = None) -> tuple[int, int]:
    """``(ops, journals)`` waiting in the outbox: every journal's pending ops, live or orphaned."""
    directory = directory if directory is not None else outbox_dir()
    ops = journals = 0
    for path in directory.glob(f"*{SUFFIX}") if directory.is_dir() else ():
        pending = len(read_journal(path))
        if pending:
            ops += pending
            journals += 1
    return ops, journals


@dataclass
class _Claim:
    """An orphan journal adopted: removed once its ops are durable in ours."""

    path: Path
    fd: int


def done_mark(item: Op | tuple[str, object]) -> bool:
    """Whether a queued item is a ``done`` mark (the database has those ops), which is never fsync'd."""
    return isinstance(item, tuple) and item[0] == "done"


class JournalWriter:
    """The journal's own threads: the caller hands over ops and marks and returns at once; the *writer* appends
    them (in order, many in one write), the *syncer* makes them durable (one fsync for all written within
    :data:`SYNC_DELAY_SECONDS`), the *watcher* tells of an fsync that outlasts :data:`STALL_SECONDS` (and of its
    end: ``stall_news``).  ``tell(notice)`` hears, once each, of a disk that refuses the journal.  The lock the
    caller takes is never held during file I/O, nor while telling (the storage service's lock comes first)."""

    def __init__(self, journal: Journal, tell: Callable[[str], None], *, stall_news: Callable[[str], None] | None = None,
                 sync_delay: float = SYNC_DELAY_SECONDS, stall_seconds: float | None = None):
        """``tell`` hears each trouble once; ``stall_news`` (default ``tell``) hears each stall and its end."""
        self.journal = journal
        self.tell = tell
        self.stall_news = stall_news or tell
        self.sync_delay = sync_delay
        self.stall_seconds = STALL_SECONDS if stall_seconds is None else stall_seconds
        # one lock for the state below; each thread waits on its own condition of it, so that a write wakes the
        # writer alone (not the syncer and the watcher too, each to find nothing to do), and a flush waits on _lock
        lock = threading.RLock()
        self._lock = threading.Condition(lock)
        self._to_write = threading.Condition(lock)  # the writer: items queued, or closing
        self._to_sync = threading.Condition(lock)  # the syncer: a batch written, or closing
        self._to_watch = threading.Condition(lock)  # the watcher: an fsync began or ended, or closing
        self._queue: list[Op | tuple[str, object]] = []  # ops, ("done", [ops]), ("owned", key), ("claim", _Claim)
        self._writing = False  # the writer holds items taken from the queue
        self._written = 0  # batches written so far
        self._synced = 0  # batches durable so far
        self._unsynced_since: float | None = None  # when the oldest batch not yet fsync'd was written
        self._sync_began: float | None = None  # an fsync in flight since
        self._stall_told = False
        self._claims: list[tuple[int, _Claim]] = []  # removed once the batch holding their ops is durable
        self._closing = False
        self._told: set[str] = set()
        self.stalls = 0  # fsyncs that outlasted stall_seconds (for tests and metrics)
        self._writer = threading.Thread(target=self._write_loop, name="koma-outbox-writer", daemon=True)
        self._syncer = threading.Thread(target=self._sync_loop, name="koma-outbox-syncer", daemon=True)
        self._watcher = threading.Thread(target=self._watch_loop, name="koma-outbox-watcher", daemon=True)
        self._writer.start()
        self._syncer.start()
        self._watcher.start()

    # --- any thread; never blocks on the disk ----------------------------------------------------------------
    def submit(self, op: Op) -> bool:
        """Queue ``op`` for the journal; False (not queued) when :data:`MAX_QUEUED` records already wait for the disk."""
        with self._lock:
            if len(self._queue) >= MAX_QUEUED or self._closing:
                return False
            self._queue.append(op)
            self._to_write.notify()
        return True

    def acknowledge(self, ops: list[Op]) -> None:
        self._put(("done", ops))

    def own(self, key: str) -> None:
        self._put(("owned", key))

    def adopted(self, ops: list[Op], path: Path, fd: int) -> None:
        """``ops`` (numbered) come from the orphan journal ``path`` (claimed: ``fd`` holds its lock): journalled here,
        then ``path`` is removed."""
        with self._lock:
            self._queue.extend(ops)
            self._queue.append(("claim", _Claim(path, fd)))
            self._to_write.notify()

    def _put(self, item: tuple[str, object]) -> None:
        with self._lock:
            if not self._closing:
                self._queue.append(item)
                self._to_write.notify()

    @property
    def stalled(self) -> bool:
        """An fsync has been in flight for :data:`STALL_SECONDS` or more."""
        with self._lock:
            return self._sync_began is not None and time.monotonic() - self._sync_began >= self.stall_seconds

    def flush(self, seconds: float = 10.0) -> bool:
        """Wait (off the UI thread: tests, quitting) until everything queued is written and durable; False if that
        took longer than ``seconds``."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while self._queue or self._writing or self._synced < self._written:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.05))
        return True

    def close(self, seconds: float = 1.0) -> bool:
        """Write what is queued (the writer drains), make it durable for up to ``seconds``, close the journal.
        True if all of it is durable; else it is written (a crash of this process loses nothing) but the disk has
        not confirmed it yet."""
        deadline = time.monotonic() + seconds
        with self._lock:
            self._closing = True
            self._wake_all()
        self._writer.join(max(0.05, deadline - time.monotonic()))  # it writes, never fsyncs but to compact
        self._syncer.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            durable = self._synced >= self._written and not self._queue and not self._writing
        if not self._writer.is_alive():  # else the journal stays as it is, for the next game or the server
            with contextlib.suppress(OSError):
                self.journal.close()
        return durable

    def _wake_all(self) -> None:
        """(Lock held.)  Wake every thread and every flush: closing."""
        for condition in (self._to_write, self._to_sync, self._to_watch, self._lock):
            condition.notify_all()

    # --- the writer ------------------------------------------------------------------------------------------
    def _write_loop(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closing:
                    self._to_write.wait()
                items, self._queue = self._queue, []
                if not items and self._closing:
                    self._wake_all()
                    return
                self._writing = True
            claims = self._write(items)
            with self._lock:
                self._writing = False
                if not all(done_mark(item) for item in items):  # done lines alone need no fsync (see the module)
                    self._written += 1
                    self._claims.extend((self._written, claim) for claim in claims)
                    if self._unsynced_since is None:
                        self._unsynced_since = time.monotonic()
                    self._to_sync.notify()
                self._lock.notify_all()  # flush

    def _watch_loop(self) -> None:
        """Tell of an fsync that outlasts the stall threshold, once a stall, with no lock held (the news takes the
        storage service's lock).  Its own thread: on some filesystems (FUSE) a write waits behind an fsync in flight,
        so the writer may be held too."""
        while True:
            with self._lock:
                wait, stalled = self._stall_check()
                while not stalled and not (self._closing and not self._syncer.is_alive()):
                    self._to_watch.wait(wait if wait is not None else (0.5 if self._closing else None))
                    wait, stalled = self._stall_check()
            if not stalled:
                return
            self.stall_news(stalled)

    def _stall_check(self) -> tuple[float | None, str]:
        """(Lock held.)  How long to wait before looking again (None: until woken), and the notice of an fsync that
        has outlasted the stall threshold, once a stall ("" if none: the caller tells it, with no lock held)."""
        if self._sync_began is None:
            return None, ""
        waited = time.monotonic() - self._sync_began
        if waited < self.stall_seconds:
            return self.stall_seconds - waited + 0.01, ""
        if self._stall_told:
            return None, ""
        self._stall_told = True
        self.stalls += 1
        return None, (f"The disk is slow to confirm saves (no answer for {waited:.0f} s); your moves are kept and "
                      "written as soon as it answers.")

    def _write(self, items: list[Op | tuple[str, object]]) -> list[_Claim]:
        """Write ``items`` in order: runs of ops in one write each; done and owned marks; claims returned."""
        claims: list[_Claim] = []
        ops: list[Op] = []
        for item in [*items, ("end", None)]:
            if isinstance(item, Op):
                ops.append(item)
                continue
            self._append(ops)
            ops = []
            what, value = item
            if what == "done":
                self.journal.acknowledge_many(value)  # type: ignore[arg-type]
            elif what == "owned":
                try:
                    self.journal.own(str(value))
                except OSError as problem:
                    self._refused(problem)
            elif what == "claim":
                claims.append(value)  # type: ignore[arg-type]
        return claims

    def _append(self, ops: list[Op]) -> None:
        if not ops:
            return
        try:
            self.journal.append_many(ops)
        except OutboxFull as problem:
            for op in ops[problem.taken:]:
                self.journal.keep(op)
            self._say(f"The outbox on disk is full ({problem}); your moves are kept in memory until the database "
                      "takes them.")
        except OSError as problem:
            for op in ops:
                self.journal.keep(op)
            self._refused(problem)

    def _refused(self, problem: OSError) -> None:
        self._say(f"The outbox cannot be written ({_one_line(problem)}); your moves are kept in memory until the "
                  "database takes them.")

    def _say(self, notice: str) -> None:
        if notice not in self._told:
            self._told.add(notice)
            self.tell(notice)

    # --- the syncer ------------------------------------------------------------------------------------------
    def _sync_loop(self) -> None:
        while True:
            with self._lock:
                while self._synced >= self._written and not (self._closing and not self._writer.is_alive()):
                    self._to_sync.wait(0.5 if self._closing else None)
                if self._synced >= self._written:
                    return
                if not self._closing and self._unsynced_since is not None:
                    due = self._unsynced_since + self.sync_delay
                    while not self._closing and time.monotonic() < due:
                        self._to_sync.wait(due - time.monotonic())  # a group: every write of the next moments
                target = self._written
                self._unsynced_since = None
                self._sync_began = time.monotonic()
                self._to_watch.notify()  # the watcher times it
            failed: OSError | None = None
            try:
                self.journal.sync()
            except OSError as problem:
                failed = problem
            except ValueError:  # the journal was closed meanwhile (quitting): nothing more to make durable
                failed = OSError("closed")
            with self._lock:
                took = time.monotonic() - (self._sync_began or time.monotonic())
                self._sync_began = None
                if failed is None:
                    self._synced = max(self._synced, target)
                    done = [claim for batch, claim in self._claims if batch <= target]
                    self._claims = [(batch, claim) for batch, claim in self._claims if batch > target]
                else:
                    self._synced = max(self._synced, target)  # not durable, but nothing better to do than go on
                    done = []
                recovered = self._stall_told
                self._stall_told = False
                self._to_watch.notify()
                self._lock.notify_all()  # flush
            if failed is not None and str(failed) != "closed":
                self._refused(failed)
            if recovered:
                self.stall_news(f"The disk answered again after {took:.0f} s; every move is saved on it.")
            for claim in done:
                with contextlib.suppress(OSError):
                    claim.path.unlink()
                os.close(claim.fd)


def _one_line(problem: BaseException) -> str:
    return " ".join(str(problem).split())[:200] or type(problem).__name__
