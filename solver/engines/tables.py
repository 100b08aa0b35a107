"""Depth tables and the on-disk cache for every big table (depth tables, pattern databases).

A cached table is an ordinary ``.npy`` file followed by a 48-byte trailer: magic, format version,
the table's own version, the payload length and a BLAKE2b digest of the payload.  Files are
written to a temporary name and renamed into place, loaded with ``np.load(mmap_mode="r")`` so
that every process on the machine shares the pages, and checked against the trailer on every
load: a truncated, corrupt or foreign file is rebuilt, never trusted.  The payload's digest is
computed once per version of the file: a stamp beside it (``NAME.npy.verified``) records the size,
inode, modification and change times and digest of the file it vouched for, and a load whose file
still matches every one of them skips reading the payload again (any write to the file, or a
``touch`` to hide one, moves its change time).

A table being written lives in ``NAME.npy.PID.XXXX.tmp`` until it is renamed into place: a write
that fails or is interrupted removes it, so does the process leaving normally (``atexit``), and a
process that was killed leaves one that the next process to open the cache removes
(:func:`remove_leftovers`: the temporary files whose writer is gone).  A lock file serialises
concurrent builds of the same table; if the cache directory is unwritable, the table lives in
memory and the caller is told once.

A builder may hand back a :class:`Streamed` table instead of an array: it then writes its payload
straight into the file with positional writes, so that a table bigger than the memory one
wants to spend on it never sits in memory whole (the 15-puzzle's 7-8 pattern databases).  Checks
read the file in chunks rather than through the mapping, so checking does not fill the process's
memory either.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import struct
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.engines.cache_files import Notice, discard, post, tables_dir
from solver.errors import KomaError

MAGIC = b"KOMATBL1"
TRAILER = struct.Struct("<8sIIQ24s")  # magic, format version, table version, payload bytes, digest
FORMAT_VERSION = 1
_build_lock = threading.Lock()


def cache_dir() -> Path:
    """Where tables live (see :func:`solver.engines.cache_files.use_tables_dir`)."""
    return tables_dir()


def table_path(name: str) -> Path:
    return cache_dir() / f"{name}.npy"


CHUNK = 16 << 20  # bytes read at once while checking a file
STAMP_SUFFIX = ".verified"
_writing: set[str] = set()  # this process's temporary files, removed if it leaves before renaming them
_swept: set[Path] = set()  # cache directories already cleared of dead writers' leftovers
ABANDONED_SECONDS = 3600.0  # a temporary file without a writer's id, untouched this long, is a leftover


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + STAMP_SUFFIX)


def _identity(stat: os.stat_result, digest: bytes) -> str:
    return f"{stat.st_size} {stat.st_ino} {stat.st_mtime_ns} {stat.st_ctime_ns} {digest.hex()}"


def _vouched(path: Path, stat: os.stat_result, digest: bytes) -> bool:
    """Whether the stamp beside ``path`` vouches for this very file (same size, inode, times and digest)."""
    try:
        return _stamp_path(path).read_text() == _identity(stat, digest)
    except (OSError, UnicodeDecodeError):
        return False


def _vouch(path: Path, stat: os.stat_result, digest: bytes) -> None:
    """Record that ``path``, as it is now, matched its digest (best effort: an unwritable cache checks each time)."""
    stamp = _stamp_path(path)
    temporary = stamp.with_name(f"{stamp.name}.{os.getpid()}.stamp.tmp")
    try:
        temporary.write_text(_identity(stat, digest))
        os.replace(temporary, stamp)
    except OSError:
        temporary.unlink(missing_ok=True)


def _temporary(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path``, named with this process's id and removed if the process leaves first."""
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    _writing.add(tmp)
    return fd, tmp


def _done_with(tmp: str, remove: bool) -> None:
    _writing.discard(tmp)
    if remove:
        Path(tmp).unlink(missing_ok=True)


@atexit.register
def _remove_own_temporaries() -> None:
    for tmp in list(_writing):
        _done_with(tmp, remove=True)


def _writer_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def leftovers(directory: Path | None = None) -> list[Path]:
    """Temporary files in the table cache whose writing process is gone (a build that was killed)."""
    directory = directory or cache_dir()
    found = []
    try:
        candidates = list(directory.glob("*.tmp"))
    except OSError:
        return []
    for candidate in candidates:
        parts = candidate.name.split(".")  # NAME.npy.PID.RANDOM.tmp
        pid = int(parts[-3]) if len(parts) >= 4 and parts[-3].isdigit() else None
        if pid is None:  # not named by a writer's id (an older Koma's): gone once it is clearly abandoned
            try:
                stale = time.time() - candidate.stat().st_mtime > ABANDONED_SECONDS
            except OSError:
                stale = False
            if stale:
                found.append(candidate)
        elif (str(candidate) not in _writing) if pid == os.getpid() else not _writer_alive(pid):
            found.append(candidate)
    return found


def remove_leftovers(directory: Path | None = None) -> list[Path]:
    """Remove :func:`leftovers` (once per directory and process, when a table is first loaded); what was removed."""
    removed = []
    for leftover in leftovers(directory):
        try:
            leftover.unlink()
            removed.append(leftover)
        except OSError:
            pass
    return removed


def _digest(array: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data, digest_size=24).digest()


def _file_digest(fd: int, offset: int, length: int) -> bytes:
    """The digest of ``length`` bytes of file ``fd`` from ``offset``, read in chunks (nothing stays mapped)."""
    digest = hashlib.blake2b(digest_size=24)
    buffer = bytearray(min(CHUNK, max(1, length)))
    view = memoryview(buffer)
    done = 0
    while done < length:
        got = os.preadv(fd, [view[:min(CHUNK, length - done)]], offset + done)
        if got <= 0:
            raise TableError("wrong size (truncated or padded)")
        digest.update(view[:got])
        done += got
    return digest.digest()


@dataclass
class Streamed:
    """A table that its builder writes straight into the file: ``count`` entries of ``dtype``.

    ``into_file(fd, offset)`` writes the payload at ``offset`` of the file ``fd`` (already that long)
    with positional writes; ``into_array()`` builds it in memory instead (when the cache cannot be written).
    """

    count: int
    dtype: np.dtype
    into_file: Callable[[int, int], None]
    into_array: Callable[[], np.ndarray]


Built = np.ndarray | Streamed


class TableError(Exception):
    """A cached table file that must not be trusted; the message says why."""


def read_table(path: Path, version: int, *, trust_stamp: bool = True) -> np.ndarray:
    """Memory-map a cached table after checking its trailer and checksum (raises TableError); the checksum is
    skipped when the file's stamp vouches for it (and ``trust_stamp``)."""
    size = path.stat().st_size  # FileNotFoundError passes through: nothing cached yet
    if not path.is_file():
        raise TableError("not a file (a directory in its place?)")
    try:
        with open(path, "rb") as handle:
            major, _ = np.lib.format.read_magic(handle)
            read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read_header(handle)
            header = handle.tell()
    except Exception as error:  # numpy raises several kinds for a mangled header
        raise TableError(f"unreadable header ({error.__class__.__name__})") from None
    payload = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if fortran or size != header + payload + TRAILER.size:
        raise TableError("wrong size (truncated or padded)")
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    with open(path, "rb") as handle:
        stat = os.fstat(handle.fileno())
        handle.seek(size - TRAILER.size)
        magic, fmt, table_version, length, digest = TRAILER.unpack(handle.read(TRAILER.size))
        if magic != MAGIC or fmt != FORMAT_VERSION:
            raise TableError("not a Koma table")
        if table_version != version:
            raise TableError(f"version {table_version}, expected {version}")
        if length != payload:
            raise TableError("payload length mismatch")
        if not (trust_stamp and _vouched(path, stat, digest)):
            if _file_digest(handle.fileno(), header, payload) != digest:
                raise TableError("checksum mismatch")
            _vouch(path, stat, digest)
    return array


def inspect_table(path: Path) -> str:
    """"ok", or why the cached table at ``path`` would be rejected (whatever its table version)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, path.stat().st_size - TRAILER.size))
            version = TRAILER.unpack(handle.read(TRAILER.size))[2]
        read_table(path, version, trust_stamp=False)
    except (OSError, struct.error) as problem:
        return f"unreadable ({getattr(problem, 'strerror', None) or problem})"
    except TableError as problem:
        return f"corrupt ({problem})"
    return "ok"


def write_table(path: Path, array: np.ndarray, version: int) -> None:
    """Write ``array`` with its trailer atomically (temporary file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.lib.format.write_array(handle, np.ascontiguousarray(array), allow_pickle=False)
            handle.write(TRAILER.pack(MAGIC, FORMAT_VERSION, version, array.nbytes, _digest(array)))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; tables are shared read-only by every user of the cache
        os.replace(tmp, path)
    except BaseException:
        _done_with(tmp, remove=True)
        raise
    _done_with(tmp, remove=False)


def write_streamed(path: Path, table: Streamed, version: int) -> None:
    """Let ``table`` write its payload into a new file for ``path``, add the trailer, and rename it into place.

    Like :func:`write_table`: atomic, and nothing is left behind if the builder or a write fails.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temporary(path)
    try:
        dtype = np.dtype(table.dtype)
        length = table.count * dtype.itemsize
        with os.fdopen(fd, "r+b") as handle:
            np.lib.format.write_array_header_1_0(
                handle, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (table.count,)})
            header = handle.tell()
            handle.flush()
            os.ftruncate(handle.fileno(), header + length)
            table.into_file(handle.fileno(), header)
            trailer = TRAILER.pack(MAGIC, FORMAT_VERSION, version, length, _file_digest(handle.fileno(), header, length))
            os.pwrite(handle.fileno(), trailer, header + length)
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        _done_with(tmp, remove=True)
        raise
    _done_with(tmp, remove=False)


def _save(path: Path, built: Built, version: int) -> None:
    if isinstance(built, Streamed):
        write_streamed(path, built, version)
    else:
        write_table(path, built, version)


def _in_memory(built: Built) -> np.ndarray:
    return built.into_array() if isinstance(built, Streamed) else built


def cached_table(name: str, version: int, build: Callable[[], Built], notice: Notice | None = None) -> np.ndarray:
    """Load table ``name`` from the cache, or build, save and load it.

    ``build`` runs at most once per machine at a time (a lock file serialises builders); it returns
    the table, or a :class:`Streamed` one that is built while it is written.  Every
    problem with the cache becomes a one-line notice, passed to ``notice`` and to the caches' listener
    (:func:`solver.engines.cache_files.send_notices_to`); the table is then rebuilt or kept in memory.
    """

    def tell(message: str) -> None:
        post(message, notice)

    path = table_path(name)
    if path.parent not in _swept:
        _swept.add(path.parent)
        for leftover in remove_leftovers(path.parent):
            tell(f"removed {leftover.name}, left in the table cache by a build that was interrupted")
    try:
        return read_table(path, version)
    except FileNotFoundError:
        pass
    except TableError as problem:
        tell(f"cached table {name} was rejected ({problem}); rebuilding it")
    except OSError as problem:
        if path.is_file():  # otherwise the directory itself is the problem, reported below
            tell(f"cached table {name} could not be read ({problem.strerror}); rebuilding it")
    with _build_lock:
        try:
            lock = _open_lock(path, tell)
        except OSError as problem:
            tell(f"table cache {path.parent} is not writable ({problem.strerror}); keeping {name} in memory")
            return _in_memory(build())
        with lock:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                try:
                    return read_table(path, version)  # another process built it while we waited
                except FileNotFoundError:
                    pass
                except (OSError, TableError):
                    if path.exists() and not path.is_file():
                        discard(path)  # a directory: the rename below could not replace it
                built = build()
                try:
                    _save(path, built, version)
                    return read_table(path, version)
                except (OSError, TableError) as problem:
                    reason = getattr(problem, "strerror", None) or str(problem)
                    tell(f"could not save table {name} ({reason}); keeping it in memory")
                    return _in_memory(built)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def lock_path(path: Path) -> Path:
    """The lock file that serialises the builders of the table at ``path``."""
    return path.with_suffix(".lock")


def _open_lock(path: Path, tell: Notice):
    """Open the table's lock file, first removing whatever stands in its place or in the tables dir's."""
    directory, lock = path.parent, lock_path(path)
    if directory.parent.is_dir() and directory.exists() and not directory.is_dir() and discard(directory):
        tell(f"the table cache {directory} was a file; replaced it with a directory")
    directory.mkdir(parents=True, exist_ok=True)
    if lock.exists() and not lock.is_file() and discard(lock):
        tell(f"the table lock {lock.name} was not a file; replaced it")
    return open(lock, "a+b")


@dataclass
class DepthTable:
    """``depth[rank]`` is the optimal distance to the goal (-1: unreachable), from one full BFS."""

    depth: np.ndarray
    seconds: float = 0.0

    def __post_init__(self) -> None:
        counts = np.bincount(np.asarray(self.depth[self.depth >= 0], dtype=np.int64))
        self.histogram: list[int] = [int(c) for c in counts]
        self.states = int(counts.sum())
        self.max_depth = len(counts) - 1

    def distance(self, puzzle, state) -> int:
        return int(self.depth[puzzle.rank(state)])

    def ranks_at(self, d: int) -> np.ndarray:
        return np.flatnonzero(self.depth == d)

    def nth_rank_at(self, d: int, k: int) -> int:
        return int(self.ranks_at(d)[k])

    def descend(self, puzzle, state) -> tuple[list[str], list[tuple[int, ...]]]:
        """Moves and boards from ``state`` to the goal, always stepping one closer (first in move order)."""
        state = tuple(state)
        d = self.distance(puzzle, state)
        if d < 0:
            raise KomaError("this board cannot reach the goal")
        moves: list[str] = []
        path = [state]
        while d > 0:
            for move, child in puzzle.neighbours(state):
                if self.depth[puzzle.rank(child)] == d - 1:
                    moves.append(move)
                    path.append(child)
                    state = child
                    d -= 1
                    break
            else:  # pragma: no cover - only a corrupt table gets here, and tables are checksummed
                raise KomaError("depth table is inconsistent")
        return moves, path


def timed(build: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    began = time.perf_counter()
    array = build()
    return array, time.perf_counter() - began
