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

Either way the user gets one notice line (see :mod:`solver.engines.cache_files`).  The patches on numba itself
(the guard, the lean load, the compile lock's wrapper) are :mod:`solver.engines.numba_patches`'s.

One compile per kernel per machine: on a cold cache, processes that need the same kernel at once (the suite's
workers, koma serve's first games, two ``koma`` on a fresh install) compile it once. Every kernel made by
:mod:`solver.engines.jit` holds an exclusive ``flock`` on ``<module>.<name>.lock`` beside its index while numba
loads or compiles one of its overloads (:func:`with_compile_lock`): the first process compiles and saves it, the
others wait (holding no lock of their own process meanwhile) and then load it. The wait is bounded
(COMPILE_WAIT_SECONDS, then it compiles anyway), a killed holder frees the lock, and no lock is taken outside the
active cache directory or where the lock file cannot be opened. A numba without what this relies on gets no lock,
and one notice says so (:mod:`solver.engines.numba_patches`).
"""

from __future__ import annotations

import atexit
import errno
import functools
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.engines.cache_files import default_cache_root, discard, post

SOLVER_SOURCES = Path(__file__).resolve().parent.parent
STALE_SECONDS = 7 * 24 * 3600
PICKLE_PROTOCOL_MARK = 0x80  # every pickle of protocol 2 or later starts with PROTO
PICKLE_STOP = b"."  # and ends with STOP


@functools.cache  # the sources do not change under a running process
def sources_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(SOLVER_SOURCES.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def numba_cache_dir() -> Path:
    """The default numba cache directory for this exact version of the solver sources."""
    return default_cache_root() / "numba" / sources_digest()


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
    """Point numba at a usable cache directory (once: :mod:`solver.engines.jit` runs it before it imports numba)."""
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
            from solver.engines.numba_patches import point_cache_at

            point_cache_at(active)
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
    from solver.engines.numba_patches import function_of

    return getattr(function_of(cache), "__module__", "").startswith("solver.")


def _drop_entries_of(cache, problem: BaseException) -> None:
    """Remove one function's index and data files, after numba failed to load or save them."""
    from solver.engines.numba_patches import entry_files

    directory, base = entry_files(cache)
    victims = [directory / f"{base}.nbi", *directory.glob(f"{base}.*.nbc")]
    kept = sum(not discard(path) for path in victims if path.exists() or path.is_symlink())
    _tell_removed(1, f"{base}: {problem.__class__.__name__}", directory, kept)


def _save_failed(cache, problem: BaseException, again) -> None:
    if isinstance(problem, OSError) and problem.errno in UNSAVABLE:
        _tell_once("unsaved", f"could not save compiled kernels in {cache.cache_path} "
                              f"({problem.strerror}); they compile again next run")
        return
    _drop_entries_of(cache, problem)
    try:
        again()
    except Exception:
        pass  # the kernel is compiled and runs; only the next run compiles it again


def load_compiler() -> None:
    """Import and install numba's typing and lowering registries now, as a process's first compile would.

    Loads skip them (:func:`solver.engines.numba_patches.lean_loader`); the warm process of ``koma serve`` calls this so
    that a game forked from it that ever compiles a kernel imports nothing of its own (the registries are shared,
    copy-on-write)."""
    from solver.engines.numba_patches import load_compiler as install_registries

    install_registries()


def install_load_guard() -> None:
    """Make a Koma kernel whose cache entry cannot be loaded or saved compile afresh instead of failing (the patch is
    :func:`solver.engines.numba_patches.guard_cache`)."""
    from solver.engines.numba_patches import guard_cache

    guard_cache(_is_koma_kernel, _drop_entries_of, _save_failed)


# --- one compile per kernel on the machine at a time ----------------------------------------------

COMPILE_WAIT_SECONDS = 300.0  # how long a process waits for another's compile of a kernel before compiling it too
COMPILE_LOCK_POLL_SECONDS = 0.02
_compiling: dict[Path, int] = {}  # the kernels whose lock this process holds, and the thread holding it


def _compile_lock_path(dispatcher) -> Path | None:
    """The kernel's lock file, beside its cache index in Koma's numba cache; None for a kernel that is not cached
    there (``cache=False``, or numba caching elsewhere because no cache directory could be made)."""
    from solver.engines.numba_patches import cache_path_of

    active = status().active
    directory = cache_path_of(dispatcher)
    if active is None or not directory or not Path(directory).resolve().is_relative_to(active.resolve()):
        return None
    function = dispatcher.py_func
    return Path(directory) / f"{function.__module__}.{function.__qualname__}.lock"


def _take_lock(handle, deadline: float) -> bool:
    """Take ``handle``'s exclusive lock, polling until ``deadline``; whether it was taken."""
    import fcntl

    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(COMPILE_LOCK_POLL_SECONDS)
        except OSError:  # a file system without locks
            return False


def _open_lock(path: Path):
    try:
        return open(path, "a+b")  # the callers close it, which also releases the lock
    except OSError:  # an unwritable cache, a directory in its place: no lock
        return None


def _wait_until_free(path: Path, deadline: float) -> None:
    """Wait, holding nothing, until no other compile holds ``path``'s lock (or ``deadline``)."""
    handle = _open_lock(path)
    if handle is not None:
        with handle:
            _take_lock(handle, deadline)  # released at once by the close


def with_compile_lock(dispatcher):
    """Give one dispatcher of :mod:`solver.engines.jit` a ``compile`` that holds the kernel's lock file (returned).

    numba compiles an overload through the dispatcher's ``compile(sig)``: on a first call with new argument
    types (``_compile_for_args``), when a kernel being compiled calls it (``get_call_template``), and when
    asked.  (The ``inline="always"`` engines are inlined into their callers' IR and never compiled as
    dispatchers: they get neither a lock file nor a cache entry.)  The wrapper, an instance attribute over numba's
    bound method, first waits, holding nothing, until no other compile holds the kernel's lock (so a thread
    waiting for another process keeps no other thread of its process from compiling or loading other kernels);
    then it takes numba's compiler lock, then the kernel's lock file, then runs numba's ``compile``, which
    loads the overload from the cache (another process has usually just saved it) before it compiles and saves
    it.  A thread blocks only on the compiler lock while it holds a file lock, and takes file locks inside the
    compiler lock, callee after caller along the (acyclic) call graph, so processes cannot deadlock on them;
    a kernel compiled again while its lock is held by its own thread (a second signature, from inside the first)
    does not wait on itself.  The wait is bounded (COMPILE_WAIT_SECONDS in all, then it compiles anyway); a lock
    that cannot be opened (an unwritable cache) means no lock; a process killed while holding one frees it.
    Quitting does not wait for a waiting thread (``koma`` ends with ``os._exit``; tui.workers.QuitNowExecutor).
    """
    from solver.engines import numba_patches

    if numba_patches.COMPILE_SEAM_PROBLEM:  # told once, when numba_patches was imported
        return dispatcher
    path = _compile_lock_path(dispatcher) if hasattr(dispatcher, "py_func") else None
    if path is None:
        return dispatcher

    def compile_locked(compile_unlocked, sig):
        if _compiling.get(path) == threading.get_ident() or numba_patches.compiled(dispatcher, sig):
            return compile_unlocked(sig)  # this thread holds the lock already, or there is nothing to compile
        deadline = time.monotonic() + COMPILE_WAIT_SECONDS
        _wait_until_free(path, deadline)
        with numba_patches.global_compiler_lock:
            if path in _compiling:  # by this thread (another would hold the compiler lock): a nested compile
                return compile_unlocked(sig)
            handle = _open_lock(path)
            if handle is None:
                return compile_unlocked(sig)
            with handle:
                if not _take_lock(handle, deadline):
                    return compile_unlocked(sig)
                _compiling[path] = threading.get_ident()
                try:
                    return compile_unlocked(sig)  # loads what another process saved, or compiles and saves
                finally:
                    del _compiling[path]

    numba_patches.lock_compiles(dispatcher, compile_locked, path)  # numba calls self.compile(sig): see the docstring
    return dispatcher


def prepare() -> None:
    """Check and repair the numba cache once per process and guard every later load (idempotent).

    :mod:`solver.engines.jit` runs it when the first kernel module imports ``njit``, so before any kernel
    is compiled or loaded in any process (CLI, game, server); calling it again does no harm.  Its notices go where
    :func:`solver.engines.cache_files.send_notices_to` says.
    """
    global _prepared
    if _prepared:
        return
    _prepared = True
    configure()
    install_load_guard()
    repair()
