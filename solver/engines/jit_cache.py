"""numba's on-disk cache of compiled kernels, treated as a cache: a bad entry is a miss, never a crash.

Where it lives: a per-user directory keyed by a hash of the solver sources (``$NUMBA_CACHE_DIR``
when set).  Numba only invalidates a cached function when *its own* file changes, but our
per-puzzle kernels inline the shared engines from other files; keying the whole directory on every
solver source keeps a stale engine from ever being loaded.  When that directory cannot be used (a
file in its place, unwritable), kernels are compiled into a temporary directory for this run and
the user is told once, instead of numba writing into the installed package's ``__pycache__``.

What can go wrong in it: numba keeps, per function, an index (``.nbi``: numba's version, then a
pickle of the source stamp and the overloads) and one data file per signature (``.nbc``: a pickle
of the compiled library).  Numba trusts both, so a truncated or overwritten file made the first
solve die with ``UnpicklingError``.  Two defences, installed by :func:`prepare`:

* a cheap scan (:func:`find_bad_entries`) that finds empty, truncated, garbage and
  directory-in-place-of-file entries and removes them;
* a guard around numba's own load and save of a Koma kernel: whatever still fails to load (damage
  that the scan cannot see) is removed and the kernel compiled again.

Either way the user gets one notice line (see :mod:`solver.engines.cache_files`).

On a cold cache, processes that need the same kernel at once compile it once: a lock file per kernel beside its
index (:func:`install_compile_lock`) lets one compile and save it while the others wait and load it.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.engines.cache_files import discard, post
from solver.engines.paths import user_cache_root

SOLVER_SOURCES = Path(__file__).resolve().parent.parent
STALE_SECONDS = 7 * 24 * 3600
PICKLE_PROTOCOL_MARK = 0x80  # every pickle of protocol 2 or later starts with PROTO
PICKLE_STOP = b"."  # and ends with STOP


def sources_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(SOLVER_SOURCES.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def numba_cache_dir() -> Path:
    """The default numba cache directory for this exact version of the solver sources."""
    return user_cache_root() / "numba" / sources_digest()


@dataclass(frozen=True)
class CacheStatus:
    """The directory numba uses (``active``), the one Koma wanted, and why they differ (``problem``)."""

    active: Path | None
    wanted: Path
    problem: str | None = None

    @property
    def temporary(self) -> bool:
        return self.problem is not None

    def to_dict(self) -> dict[str, Any]:
        return {"dir": str(self.active or ""), "wanted": str(self.wanted), "temporary": self.temporary,
                "problem": self.problem}


_status: CacheStatus | None = None
_prepared = False
_told: set[str] = set()
UNSAVABLE = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}  # the directory's fault, not a file's


def _unusable_because(directory: Path) -> str | None:
    """Why numba could not keep its cache in ``directory`` (created if missing), or None when it can."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return "a file is in its place"
    except OSError as problem:
        return problem.strerror or str(problem)
    try:
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as problem:
        return f"not writable: {problem.strerror or problem}"
    return None


def _remove_temporary(directory: Path, owner: int) -> None:
    if os.getpid() == owner:  # forked children (the serve warm pool) must not remove their parent's
        shutil.rmtree(directory, ignore_errors=True)


def _prune_stale_versions(current: Path) -> None:
    """Mark ``current`` as in use and remove the caches of source versions nobody used for a week."""
    try:
        os.utime(current)
        for stale in current.parent.iterdir():
            if stale != current and stale.is_dir() and time.time() - stale.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        pass


def configure() -> CacheStatus:
    """Point numba at a usable cache directory (run once, when :mod:`solver` is imported)."""
    global _status
    if _status is not None:
        return _status
    user_choice = os.environ.get("NUMBA_CACHE_DIR")
    wanted = Path(user_choice) if user_choice else numba_cache_dir()
    problem = _unusable_because(wanted)
    active: Path | None = wanted
    if problem is None:
        if not user_choice:
            _prune_stale_versions(wanted)
    else:
        try:
            active = Path(tempfile.mkdtemp(prefix="koma-numba-"))
            atexit.register(_remove_temporary, active, os.getpid())
            post(f"the numba cache {wanted} is unusable ({problem}); compiling into a temporary directory "
                 "this run (koma doctor shows it)")
        except OSError:
            active = None
            post(f"the numba cache {wanted} is unusable ({problem}) and no temporary directory could be made; "
                 "kernels compile again every run")
    _status = CacheStatus(active, wanted, problem)
    if active is not None:
        os.environ["NUMBA_CACHE_DIR"] = str(active)  # inherited by the game processes of koma serve
        if "numba" in sys.modules:  # numba read its configuration already: tell it directly
            from numba.core import config

            config.CACHE_DIR = str(active)  # type: ignore[attr-defined]
    return _status


def status() -> CacheStatus:
    return configure()


# --- finding bad entries -------------------------------------------------------------------------

@dataclass(frozen=True)
class BadEntry:
    path: Path
    reason: str


def _index_problem(path: Path, numba_version: str) -> str | None:
    if not path.is_file():
        return "not a file"
    try:
        with open(path, "rb") as handle:
            version = pickle.load(handle)
            rest = handle.read()
        if version != numba_version:
            return None  # another numba's index: numba ignores it and overwrites it
        _stamp, overloads = pickle.loads(rest)
    except Exception as problem:  # a mangled pickle raises almost anything
        return f"unreadable index ({problem.__class__.__name__})"
    return None if isinstance(overloads, dict) else "not a numba index"


def _data_problem(path: Path) -> str | None:
    if not path.is_file():
        return "not a file"
    try:
        with open(path, "rb") as handle:
            head = handle.read(1)
            if not head:
                return "empty"
            handle.seek(-1, os.SEEK_END)
            tail = handle.read(1)
    except OSError as problem:
        return f"unreadable ({problem.strerror or problem})"
    if head[0] != PICKLE_PROTOCOL_MARK:
        return "not a numba data file"
    return None if tail == PICKLE_STOP else "truncated"


def find_bad_entries(directory: Path | None = None) -> list[BadEntry]:
    """The index and data files under ``directory`` (default: the active cache) that numba would choke on.

    Cheap: it reads every index (a few KB each) but only the first and last byte of a data file, so
    a data file damaged in the middle is left to the load guard.
    """
    directory = directory or status().active
    if directory is None or not directory.is_dir():
        return []
    import numba

    bad = []
    for path in sorted(directory.rglob("*")):
        if ".tmp." in path.name:  # numba's own half-written files, renamed into place when complete
            continue
        if path.suffix == ".nbi":
            reason = _index_problem(path, numba.__version__)
        elif path.suffix == ".nbc":
            reason = _data_problem(path)
        else:
            continue
        if reason is not None:
            bad.append(BadEntry(path, reason))
    return bad


def _tell_once(kind: str, message: str) -> None:
    """One notice of each kind per process, however many kernels run into it."""
    if kind not in _told:
        _told.add(kind)
        post(message)


def _tell_removed(count: int, example: str, directory: Path | str, kept: int = 0) -> None:
    left = f"; {kept} could not be removed (koma doctor)" if kept else ""
    _tell_once("bad entries", f"the numba cache had {count} bad file(s) ({example}); removed them and compiling "
                              f"again ({directory}){left}")


def repair(directory: Path | None = None) -> int:
    """Remove every bad entry :func:`find_bad_entries` finds (one notice); how many there were."""
    directory = directory or status().active
    bad = find_bad_entries(directory)
    if bad and directory is not None:
        kept = sum(not discard(entry.path) for entry in bad)
        _tell_removed(len(bad), f"{bad[0].path.name}: {bad[0].reason}", directory, kept)
    return len(bad)


# --- the guard around numba's own load and save --------------------------------------------------

def _is_koma_kernel(cache) -> bool:
    return getattr(getattr(cache, "_py_func", None), "__module__", "").startswith("solver.")


def _drop_entries_of(cache, problem: BaseException) -> None:
    """Remove one function's index and data files, after numba failed to load or save them."""
    directory = Path(cache.cache_path)
    base = cache._impl.filename_base
    victims = [directory / f"{base}.nbi", *directory.glob(f"{base}.*.nbc")]
    kept = sum(not discard(path) for path in victims if path.exists() or path.is_symlink())
    _tell_removed(1, f"{base}: {problem.__class__.__name__}", directory, kept)


def install_load_guard() -> None:
    """Make a Koma kernel whose cache entry cannot be loaded or saved compile afresh instead of failing."""
    from numba.core.caching import Cache

    if getattr(Cache.load_overload, "koma_guard", False):
        return
    load, save = Cache.load_overload, Cache.save_overload

    def guarded_load(cache, sig, target_context):
        try:
            return load(cache, sig, target_context)
        except Exception as problem:
            if not _is_koma_kernel(cache):
                raise
            _drop_entries_of(cache, problem)
            return None  # a miss: numba compiles the kernel and saves it again

    def guarded_save(cache, sig, data):
        try:
            save(cache, sig, data)
        except Exception as problem:
            if not _is_koma_kernel(cache):
                raise
            if isinstance(problem, OSError) and problem.errno in UNSAVABLE:
                _tell_once("unsaved", f"could not save compiled kernels in {cache.cache_path} "
                                      f"({problem.strerror}); they compile again next run")
                return
            _drop_entries_of(cache, problem)
            try:
                save(cache, sig, data)
            except Exception:
                pass  # the kernel is compiled and runs; only the next run compiles it again

    guarded_load.koma_guard = True  # type: ignore[attr-defined]
    Cache.load_overload = guarded_load  # type: ignore[method-assign]  # patched on purpose: see the module docstring
    Cache.save_overload = guarded_save  # type: ignore[method-assign]


# --- one compile per kernel on the machine at a time ----------------------------------------------

COMPILE_WAIT_SECONDS = 300.0  # how long a process waits for another's compile of a kernel before compiling it too
_compiling: set[str] = set()  # this process's kernels whose lock it holds (a recursive compile must not wait on itself)


def _compile_lock_path(dispatcher) -> Path | None:
    """The lock file of a Koma kernel that numba caches on disk; None for any other function."""
    function = dispatcher.py_func
    if not function.__module__.startswith("solver."):
        return None
    directory = dispatcher.stats.cache_path  # None where the function is not cached
    if not directory:
        return None
    return Path(directory) / f"{function.__module__}.{function.__qualname__}.lock"


def _wait_for_lock(handle) -> bool:
    """Take ``handle``'s exclusive lock, waiting at most COMPILE_WAIT_SECONDS; whether it was taken."""
    import fcntl

    deadline = time.monotonic() + COMPILE_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


def install_compile_lock() -> None:
    """Make processes that need the same uncached kernel compile it once: the first compiles and saves it while
    holding the kernel's lock file in the cache directory, the others wait for it and load what it saved.

    Without it, every process that starts on a cold cache (a fresh install's games, koma serve's warm processes,
    the CLI) compiles every kernel it needs, all at the same time.  The lock is taken inside numba's own compiler
    lock, so within a process one thread at a time takes these locks, callee after caller (no cycle); a lock that
    cannot be had within COMPILE_WAIT_SECONDS, or cannot be opened, is compiled without."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    if getattr(Dispatcher.compile, "koma_lock", False):
        return
    compile_unlocked = Dispatcher.compile

    def compile_locked(dispatcher, sig):
        with global_compiler_lock:
            path = _compile_lock_path(dispatcher)
            key = str(path)
            if path is None or key in _compiling or _argument_types(sig) in dispatcher.overloads:
                return compile_unlocked(dispatcher, sig)
            try:
                handle = open(path, "a+b")  # noqa: SIM115 - closed below, which also releases the lock
            except OSError:
                return compile_unlocked(dispatcher, sig)
            with handle:
                if not _wait_for_lock(handle):
                    return compile_unlocked(dispatcher, sig)
                _compiling.add(key)
                try:
                    return compile_unlocked(dispatcher, sig)  # loads what another process saved, or compiles
                finally:
                    _compiling.discard(key)

    compile_locked.koma_lock = True  # type: ignore[attr-defined]
    Dispatcher.compile = compile_locked  # type: ignore[method-assign]  # patched on purpose: see install_compile_lock


def _argument_types(sig) -> tuple:
    from numba.core import sigutils

    return tuple(sigutils.normalize_signature(sig)[0])


def prepare() -> None:
    """Check and repair the numba cache once per process and guard every later load (idempotent).

    :mod:`solver.engines.jit` runs it when the first kernel module imports ``njit``, so before any kernel
    is compiled or loaded in any process (CLI, game, server); calling it again does no harm.  The notices it
    leaves are drained with :func:`solver.engines.cache_files.drain_notices`.
    """
    global _prepared
    if _prepared:
        return
    _prepared = True
    configure()
    install_load_guard()
    install_compile_lock()
    repair()
