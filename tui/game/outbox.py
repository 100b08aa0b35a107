"""The durable outbox: accepted writes, journalled on the replica's disk before the database sees them.

Every write a game makes (a save, a finish, a player's first visit) is an :class:`Op`.  It is appended to
this process's journal, ``outbox/<player>.<pid>.<token>.jsonl`` in the data dir, and fsync'd, before the
store worker tries the database.  A line ``{"done": seq}`` follows once the database has it (not fsync'd:
replaying a done op is harmless, see :mod:`tui.game.store`).  So whatever happens to the database or to
the process, an accepted write is on disk.  A line ``{"owned": key}`` (fsync'd) says that the session's guarded
game under ``key`` went in: its guarded writes still pending are plain ones, whoever replays them.

The journal is held with an exclusive ``flock`` while its process lives.  A journal whose lock can be
taken is an orphan (its game ended before the database took everything): the next game of the same
player adopts it (its ops join that game's journal, in order), and the server drains the rest.  A torn
last line (a crash mid-append) is ignored: its op was never acknowledged.  The journal is bounded: when it
grows past :data:`COMPACT_BYTES` it is rewritten with only the ops still pending, a superseded save of
the same game dropped; past :data:`MAX_BYTES` of pending ops, :meth:`Journal.append` raises
:class:`OutboxFull`.  Never imports Textual.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from solver.engines.paths import data_dir

OUTBOX_DIR = "outbox"
SUFFIX = ".jsonl"
COMPACT_BYTES = 256 * 1024
MAX_BYTES = 8 * 1024 * 1024
GUARD = "absent"  # the guard of a write that must not replace a stored game its session could not read


class OutboxFull(Exception):
    """The journal's pending ops passed :data:`MAX_BYTES` (the database has been away a long time)."""


@dataclass
class Op:
    """One accepted write.  ``kind`` names it (``save``, ``clear``, ``finish``, ``seen``, ``watchable``, ``speed``); ``key``
    is the game key it concerns (``""`` for none); ``data`` its payload; ``id`` makes it idempotent;
    ``at`` is when it was accepted (a save never replaces a newer one); ``guard`` is ``"absent"`` for a write
    that must not replace a stored game this session could not read."""

    kind: str
    player: str
    key: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    guard: str = ""
    id: str = field(default_factory=lambda: secrets.token_hex(8))
    at: float = field(default_factory=time.time)
    seq: int = 0

    def line(self) -> bytes:
        return (json.dumps(asdict(self), separators=(",", ":")) + "\n").encode()

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Op:
        return cls(kind=str(record["kind"]), player=str(record["player"]), key=str(record.get("key", "")),
                   data=dict(record.get("data") or {}), guard=str(record.get("guard", "")), id=str(record["id"]),
                   at=float(record["at"]), seq=int(record["seq"]))


def outbox_dir() -> Path:
    return data_dir() / OUTBOX_DIR


def player_tag(player: str) -> str:
    """A file-name-safe, stable tag for a player (journals are found by it)."""
    return hashlib.sha256(player.encode()).hexdigest()[:16]


def read_journal(path: Path) -> list[Op]:
    """The pending ops of a journal file, in order; a torn or damaged line is skipped."""
    ops: dict[int, Op] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            if "done" in record:
                ops.pop(int(record["done"]), None)
            elif "owned" in record:
                _owned(ops.values(), str(record["owned"]))
            else:
                op = Op.from_record(record)
                ops[op.seq] = op
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line: never acknowledged
    return [ops[seq] for seq in sorted(ops)]


def _owned(ops: Iterable[Op], key: str) -> list[Op]:
    """Make the guarded ops of ``key`` plain writes (the session's guarded game went in); returns them."""
    changed = [op for op in ops if op.key == key and op.guard == GUARD]
    for op in changed:
        op.guard = ""
    return changed


def coalesced(ops: list[Op]) -> list[Op]:
    """``ops`` without the saves that a later save or clear of the same game (same player, same guard) replaces."""
    last: dict[tuple[str, str, str], int] = {}
    for index, op in enumerate(ops):
        if op.kind in ("save", "clear", "finish"):
            last[(op.player, op.key, op.guard)] = index
    return [op for index, op in enumerate(ops)
            if op.kind != "save" or last.get((op.player, op.key, op.guard)) == index]


class Journal:
    """This process's journal: append (fsync'd) and acknowledge ops; adopt a dead process's journal."""

    def __init__(self, player: str, directory: Path | None = None):
        self.player = player
        self.directory = directory if directory is not None else outbox_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / f"{player_tag(player)}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.pending: list[Op] = []
        self._sizes: dict[int, int] = {}  # each pending op's line length, by seq: a move never re-encodes the backlog
        self._seq = 0
        self._size = 0
        self._only_in_memory = False  # some pending op is not on disk (see keep)
        self._sync_directory()

    def append(self, op: Op) -> Op:
        """Write ``op`` durably (fsync) and keep it pending; raises OutboxFull or OSError (then it is not kept,
        and the journal is as it was: a line the disk took only in part is cut off again)."""
        if self.pending_bytes() > MAX_BYTES:
            self.compact()
            if self.pending_bytes() > MAX_BYTES:
                raise OutboxFull(f"the outbox holds {self.pending_bytes() // 1024} KiB not yet saved")
        op.seq = self._seq + 1
        line = op.line()
        try:
            self._write_line(line, sync=True)
        except OSError:
            op.seq = 0
            raise
        self._seq += 1
        self.pending.append(op)
        self._sizes[op.seq] = len(line)
        return op

    def _write_line(self, line: bytes, sync: bool = False) -> None:
        """Append ``line`` whole, or raise OSError with the journal cut back to where it was (a full disk may
        take part of a line: the next line must not be glued to it)."""
        try:
            _write_all(self._fd, line)
            if sync:
                os.fsync(self._fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)
            raise
        self._size += len(line)

    def keep(self, op: Op) -> Op:
        """Keep ``op`` pending in memory only (:meth:`append` failed: the disk is full or failing).  It is applied
        in order with the others; the next compaction writes it, if the disk takes it then."""
        self._seq += 1
        op.seq = self._seq
        self.pending.append(op)
        self._sizes[op.seq] = len(op.line())
        self._only_in_memory = True
        return op

    def acknowledge(self, op: Op) -> None:
        """The database has ``op``: it is no longer pending."""
        with contextlib.suppress(ValueError):
            self.pending.remove(op)
            self._sizes.pop(op.seq, None)
        if not self.pending:
            self._truncate()
            return
        try:
            self._write_line(json.dumps({"done": op.seq}).encode() + b"\n")
        except OSError:
            pass  # replaying a done op is harmless
        if self._size > COMPACT_BYTES:
            self.compact()

    def own(self, key: str) -> None:
        """The session's guarded game under ``key`` went in: its pending guarded ops are plain writes from now on,
        in memory and (a fsync'd ``{"owned": key}`` line) for whoever reads this journal after a crash."""
        for op in _owned(self.pending, key):
            self._sizes[op.seq] = len(op.line())
        self._write_line(json.dumps({"owned": key}).encode() + b"\n", sync=True)

    def pending_bytes(self) -> int:
        return sum(self._sizes.values())

    def compact(self) -> None:
        """Rewrite the journal with only the pending ops (superseded saves dropped), atomically."""
        self.pending = coalesced(self.pending)
        lines = [op.line() for op in self.pending]
        self._sizes = {op.seq: len(line) for op, line in zip(self.pending, lines, strict=True)}
        temp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            data = b"".join(lines)
            _write_all(fd, data)
            os.fsync(fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.replace(temp, self.path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        os.close(self._fd)
        self._fd, self._size = fd, len(data)
        self._only_in_memory = False
        os.lseek(self._fd, 0, os.SEEK_END)
        self._sync_directory()

    def _truncate(self) -> None:
        try:
            os.ftruncate(self._fd, 0)
            self._size = 0
        except OSError:
            pass

    def adopt_orphans(self) -> int:
        """Take over the pending ops of this player's journals whose processes are gone; returns how many."""
        adopted = 0
        for path, fd in claimed_orphans(self.directory, self.player):
            try:
                for op in read_journal(path):
                    self.append(Op(op.kind, op.player, op.key, op.data, op.guard, op.id, op.at))
                    adopted += 1
                path.unlink()
            finally:
                os.close(fd)
        return adopted

    def close(self) -> None:
        """Close the journal; a journal with nothing pending is removed, else it stays for a drainer (with the
        ops kept only in memory written too, if the disk takes them now)."""
        if self._fd < 0:
            return
        if not self.pending:
            with contextlib.suppress(OSError):
                self.path.unlink()
        elif self._only_in_memory:
            with contextlib.suppress(OSError):
                self.compact()
        os.close(self._fd)
        self._fd = -1

    def _sync_directory(self) -> None:
        try:
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (a nearly full disk may take part of it, and refuse only the next write)."""
    written = 0
    while written < len(data):
        took = os.write(fd, data[written:])
        if took <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written += took


def claimed_orphans(directory: Path, player: str | None = None) -> Iterator[tuple[Path, int]]:
    """Journals (of ``player``, else of anyone) whose writer is gone, each locked for the caller: it gets the
    path and the locked fd, and must close the fd (and unlink the file once drained)."""
    pattern = f"{player_tag(player)}.*{SUFFIX}" if player is not None else f"*{SUFFIX}"
    for path in sorted(directory.glob(pattern)) if directory.is_dir() else ():
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
