"""Fault injection on every kind of cached file, through the real ``koma`` in a subprocess (and, for the numba
cache's scan and repair, every damage to every kind of file in this process too).

A damaged numba index or data file, a damaged table, a directory where a file should be, a cache
directory that is a file: the answer is still right (replayed here), the user gets one notice line
and no traceback, the bad file is gone or rebuilt, and ``koma doctor`` reports what is wrong.
Each test runs on its own copy of a cache warmed once, with its own NUMBA_CACHE_DIR and KOMA_CACHE_DIR.

The puzzle is Ura-omote 4x4: its depth table (the same table cache as every puzzle's) is built by one BFS kernel
(the same numba cache, scan and load guard as every kernel's), the cheapest of Koma's kernels to compile again
(about 2 CPU-seconds, where the Goat's article IDA* took 6), and the 4x4 table is built in milliseconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from solver.engines import jit_cache
from solver.engines.jit_cache import SOLVER_SOURCES, find_bad_entries, repair
from solver.ura.model import UraPuzzle

KOMA = Path(sys.executable).with_name("koma")
URA = UraPuzzle(4, 4)
START = "BBWB/BWWB/WWWW/WBWW"  # 6 moves from the goal, the 4x4 board's longest distance
TABLE = "ura-4x4"
DEADLINE = 600  # seconds for one command: compiling on a loaded 2-core box, with room to spare


@dataclass(frozen=True)
class Caches:
    numba: Path
    koma: Path

    @property
    def tables(self) -> Path:
        return self.koma / "tables"

    def run(self, *argv: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(self.numba), "KOMA_CACHE_DIR": str(self.koma)}
        return subprocess.run([str(KOMA), *argv], capture_output=True, text=True, timeout=DEADLINE, env=env)


def solve(caches: Caches, *, kernel: bool = False) -> tuple[dict, list[str]]:
    """Solve START; check the exit status, that there is no traceback and that the moves replay to the goal.

    ``kernel``: remove the cached table first, so that koma needs the BFS kernel (loaded from the numba cache, or
    compiled) to build it again; with the table there, koma reads it and needs no kernel."""
    if kernel:
        (caches.tables / f"{TABLE}.npy").unlink(missing_ok=True)
    done = caches.run("solve", "ura", "--size", "4x4", START, "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads(done.stdout)
    path = URA.replay(URA.parse(START), data["moves"])
    assert path[-1] == URA.goal and data["length"] == 6 == len(data["moves"])
    return data, done.stderr.splitlines()


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> Caches:
    """Both kinds of numba files (the Ura-omote BFS kernel's index and data) and the 4x4 table, written once."""
    root = tmp_path_factory.mktemp("warm")
    caches = Caches(root / "numba", root / "koma")
    solve(caches)
    return caches


@pytest.fixture
def caches(warm, tmp_path) -> Caches:
    shutil.copytree(warm.numba, tmp_path / "numba")
    shutil.copytree(warm.koma, tmp_path / "koma")
    return Caches(tmp_path / "numba", tmp_path / "koma")


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not what was cached\n" * 64)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def directory(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("a directory where a file should be")


DAMAGES = {"truncated": truncate, "garbage": garbage, "empty": empty, "directory": directory}


def kernel_file(caches: Caches, suffix: str) -> Path:
    (found,) = caches.numba.rglob(f"kernels.ura_bfs-*{suffix}")
    return found


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
def test_every_damage_to_a_numba_file_is_found_and_removed(caches, suffix, damage):
    """The scan (what ``koma`` runs at start) finds each kind of damage to each kind of file, and the repair removes
    that file (a directory in its place too) and nothing else, with one notice."""
    victim = kernel_file(caches, suffix)
    others = {path for path in caches.numba.rglob("*") if path.is_file() and path != victim}
    DAMAGES[damage](victim)
    assert [entry.path for entry in find_bad_entries(caches.numba)] == [victim]
    told: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jit_cache, "_told", set())
        patch.setattr(jit_cache, "post", told.append)
        assert repair(caches.numba) == 1
    assert not victim.exists() and len(told) == 1 and victim.name in told[0]
    assert {path for path in caches.numba.rglob("*") if path.is_file()} == others
    assert find_bad_entries(caches.numba) == []


# Through the real koma: a damaged file is removed and its kernel compiled again, the answer still right.  Every
# damage is found and removed alike (above); these three cover both kinds of file and a directory in a file's place.
@pytest.mark.parametrize("suffix, damage", [(".nbi", "garbage"), (".nbc", "truncated"), (".nbc", "directory")])
def test_a_damaged_numba_file_is_removed_and_compiled_again(caches, suffix, damage):
    victim = kernel_file(caches, suffix)
    DAMAGES[damage](victim)
    assert find_bad_entries(caches.numba) != []
    _, notices = solve(caches, kernel=True)
    assert len(notices) == 1 and "numba cache" in notices[0] and victim.name in notices[0], notices
    assert find_bad_entries(caches.numba) == []
    assert kernel_file(caches, suffix).is_file()  # written again
    _, notices = solve(caches, kernel=True)
    assert notices == []


def test_a_data_file_damaged_in_the_middle_is_caught_when_numba_loads_it(caches):
    victim = kernel_file(caches, ".nbc")
    data = bytearray(victim.read_bytes())
    data[40:-40] = b"x" * (len(data) - 80)  # first and last bytes intact: the scan cannot see it
    victim.write_bytes(bytes(data))
    assert find_bad_entries(caches.numba) == []
    _, notices = solve(caches, kernel=True)
    assert len(notices) == 1 and "numba cache" in notices[0] and "kernels.ura_bfs" in notices[0], notices
    _, notices = solve(caches, kernel=True)
    assert notices == []


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_table_is_rebuilt(caches, damage):
    DAMAGES[damage](caches.tables / f"{TABLE}.npy")
    data, notices = solve(caches)
    assert data["method"] == "table"
    assert len(notices) == 1 and f"cached table {TABLE} was rejected" in notices[0], notices
    assert (caches.tables / f"{TABLE}.npy").is_file()
    _, notices = solve(caches)
    assert notices == []


def test_a_directory_in_place_of_a_table_lock_is_reported_and_replaced(caches):
    lock = caches.tables / f"{TABLE}.lock"
    (caches.tables / f"{TABLE}.npy").unlink()
    directory(lock)
    report = caches.run("doctor", "--json")
    assert report.returncode == 1
    problems = [p["problem"] for p in json.loads(report.stdout)["problems"] if p["severity"] == "error"]
    assert any(f"{TABLE}.lock" in problem for problem in problems), problems
    _, notices = solve(caches)
    assert len(notices) == 1 and f"{TABLE}.lock" in notices[0], notices
    assert lock.is_file() and (caches.tables / f"{TABLE}.npy").is_file()


def test_doctor_reports_a_damaged_numba_cache_and_leaves_the_repair_to_the_next_run(caches):
    victim = kernel_file(caches, ".nbc")
    truncate(victim)
    report = caches.run("doctor", "--json")
    assert report.returncode == 1 and "Traceback" not in report.stderr
    data = json.loads(report.stdout)
    assert [Path(bad["path"]).name for bad in data["numba_cache"]["bad_files"]] == [victim.name]
    assert any("numba cache has 1 bad file" in p["problem"] for p in data["problems"])
    text = caches.run("doctor")
    assert text.returncode == 1 and "1 bad files" in text.stdout and victim.name in text.stdout
    solve(caches, kernel=True)
    healthy = json.loads(caches.run("doctor", "--json").stdout)
    assert healthy["numba_cache"]["bad_files"] == []
    assert [p for p in healthy["problems"] if p["severity"] == "error"] == []


def _package_kernel_files() -> set[Path]:
    return set(SOLVER_SOURCES.rglob("*.nbi")) | set(SOLVER_SOURCES.rglob("*.nbc"))


def test_a_numba_cache_dir_that_is_a_file_means_a_temporary_cache_not_the_package(caches):
    caches.numba.rename(caches.numba.with_name("numba-was-here"))
    caches.numba.write_text("a file where the numba cache should be")
    in_package = _package_kernel_files()
    _, notices = solve(caches, kernel=True)
    assert len(notices) == 1 and "temporary directory" in notices[0] and str(caches.numba) in notices[0], notices
    assert _package_kernel_files() == in_package  # numba did not fall back to the package's __pycache__
    assert caches.numba.read_text() == "a file where the numba cache should be"
    report = caches.run("doctor", "--json")
    assert report.returncode == 1
    data = json.loads(report.stdout)
    assert data["numba_cache"]["temporary"] is True and data["numba_cache"]["wanted"] == str(caches.numba)
    assert any("is unusable" in p["problem"] and p["fix"] == f"rm {caches.numba}" for p in data["problems"])
    assert len(report.stderr.splitlines()) == 1 and "temporary directory" in report.stderr


# --- the load guard's decisions, in process, on a stand-in for numba's per-function cache ----------------
class StandInCache:
    """Just enough of numba's ``Cache`` for its real ``load_overload``/``save_overload`` to drive."""

    def __init__(self, directory: Path, module: str, failure: BaseException):
        self.cache_path = str(directory)
        self._py_func = type("Function", (), {"__module__": module})()
        self._impl = type("Impl", (), {"filename_base": "kernel-12.py311"})()
        self.failure = failure
        self.saves = 0

    def _guard_against_spurious_io_errors(self):
        import contextlib

        return contextlib.nullcontext()

    def _load_overload(self, sig, target_context):
        raise self.failure

    def _save_overload(self, sig, data):
        self.saves += 1
        raise self.failure


def target_context():
    """numba's own CPU target context: a Koma kernel's load starts numba's memory runtime on it."""
    from numba.core.registry import cpu_target

    return cpu_target.target_context


def stand_in(tmp_path, failure, module="solver.solving.stand_in") -> StandInCache:
    for name in ("kernel-12.py311.nbi", "kernel-12.py311.1.nbc", "other-3.py311.nbi"):
        (tmp_path / name).write_bytes(b"\x80cached.")
    return StandInCache(tmp_path, module, failure)


@pytest.fixture
def guarded(monkeypatch):
    from numba.core.caching import Cache

    from solver.engines import jit_cache
    from tui import notices

    jit_cache.install_load_guard()
    monkeypatch.setattr(jit_cache, "_told", set())
    notices.drain()
    return Cache


def test_a_koma_kernel_that_fails_to_load_is_a_miss_and_its_files_go(guarded, tmp_path):
    import pickle

    from tui.notices import drain as drain_notices

    cache = stand_in(tmp_path, pickle.UnpicklingError("pickle data was truncated"))
    assert guarded.load_overload(cache, "sig", target_context()) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-3.py311.nbi"]  # only that kernel's files
    (notice,) = drain_notices()
    assert "kernel-12.py311: UnpicklingError" in notice and "compiling again" in notice


def test_other_code_keeps_numbas_own_behaviour(guarded, tmp_path):
    import pickle

    cache = stand_in(tmp_path, pickle.UnpicklingError("truncated"), module="someone_else")
    with pytest.raises(pickle.UnpicklingError):
        guarded.load_overload(cache, "sig", target_context())
    assert len(list(tmp_path.iterdir())) == 3


def test_an_unwritable_cache_is_told_once_and_nothing_is_removed(guarded, tmp_path):
    import errno

    from tui.notices import drain as drain_notices

    cache = stand_in(tmp_path, OSError(errno.EROFS, os.strerror(errno.EROFS)))
    guarded.save_overload(cache, "sig", "data")
    guarded.save_overload(cache, "sig", "data")
    assert cache.saves == 2 and len(list(tmp_path.iterdir())) == 3
    (notice,) = drain_notices()
    assert "could not save compiled kernels" in notice and "Read-only file system" in notice


def test_a_save_that_trips_on_a_bad_file_removes_it_and_tries_once_more(guarded, tmp_path):
    cache = stand_in(tmp_path, IsADirectoryError(21, "Is a directory"))
    guarded.save_overload(cache, "sig", "data")  # the second attempt fails too: the kernel still runs
    assert cache.saves == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-3.py311.nbi"]


# --- one compile per kernel on the machine at a time ------------------------------------------------------------
COMPILE_AT_ONCE = """
import json, os, sys, time
from solver.engines.ranking import popcount
while not os.path.exists(sys.argv[1]):  # all start compiling together
    time.sleep(0.005)
assert popcount(7) == 3
print(json.dumps([sum(popcount.stats.cache_hits.values()), sum(popcount.stats.cache_misses.values())]))
"""


def test_processes_that_need_the_same_uncached_kernel_compile_it_once(tmp_path):
    """Three processes on a cold cache call one kernel at the same moment: one compiles it (a cache miss) while
    holding its lock, the other two wait for it and load what it saved (cache hits)."""
    go = tmp_path / "go"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    runs = [subprocess.Popen([sys.executable, "-c", COMPILE_AT_ONCE, str(go)], stdout=subprocess.PIPE, text=True,
                             env=env) for _ in range(3)]
    time.sleep(1.0)  # let them import; a late one only loads from the cache, which the assertion allows for too
    go.touch()
    outcomes = []
    for run in runs:
        out, _ = run.communicate(timeout=DEADLINE)
        assert run.returncode == 0
        outcomes.append(json.loads(out))
    assert sorted(outcomes) == [[0, 1], [1, 0], [1, 0]], outcomes


# A lock held by another process: popcount's lock file is taken by a holder process, then one process needs the kernel.
HOLD_THE_LOCK = """
import fcntl, os, signal, sys
from solver.engines.ranking import popcount
handle = open(popcount.compile.koma_lock, "a+b")
fcntl.flock(handle, fcntl.LOCK_EX)
print("held", flush=True)
if sys.argv[1] == "stop":
    os.kill(os.getpid(), signal.SIGSTOP)
sys.stdin.read()  # a slow one: holds the lock until it is killed
"""
WAIT_FOR_THE_LOCK = """
import json, sys, time
from numba.core import event
from solver.engines import jit_cache
from solver.engines.ranking import popcount
jit_cache.COMPILE_WAIT_SECONDS = float(sys.argv[1])
compiling = []
class CompileStarts(event.Listener):
    def on_start(self, _event):
        compiling.append(time.monotonic())
    def on_end(self, _event):
        pass
event.register("numba:compile", CompileStarts())
start = time.monotonic()
assert popcount(7) == 3
print(json.dumps({"waited": (compiling or [time.monotonic()])[0] - start,
                  "misses": sum(popcount.stats.cache_misses.values())}))
"""


def lock_holder(env: dict, how: str) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, how], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.parametrize("how", ["stop", "slow"])
def test_a_lock_held_by_a_stopped_or_slow_process_is_waited_for_at_most_the_bound(tmp_path, how):
    """The holder never lets go (stopped with SIGSTOP, or busy): the process that needs the kernel waits the bound
    (3 s here), then compiles it itself."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    holder = lock_holder(env, how)
    try:
        done = subprocess.run([sys.executable, "-c", WAIT_FOR_THE_LOCK, "3"], capture_output=True, text=True,
                              env=env, timeout=DEADLINE)
        assert done.returncode == 0, done.stderr
        outcome = json.loads(done.stdout)
        assert outcome["misses"] == 1 and 3 <= outcome["waited"] < 3 + 60, outcome
        assert holder.poll() is None  # it held the lock the whole time
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_whose_holder_is_killed_is_free_at_once(tmp_path):
    """A holder killed mid-compile (SIGKILL) frees the lock: the waiting process goes on long before the bound."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    holder = lock_holder(env, "slow")
    waiter = subprocess.Popen([sys.executable, "-c", WAIT_FOR_THE_LOCK, "300"], stdout=subprocess.PIPE, text=True,
                              env=env)
    time.sleep(2.0)  # let the waiter reach the lock; if it is later, it finds the lock free, which passes too
    holder.kill()
    holder.wait()
    out, _ = waiter.communicate(timeout=DEADLINE)
    assert waiter.returncode == 0
    outcome = json.loads(out)
    assert outcome["misses"] == 1 and outcome["waited"] < 120, outcome


WITHOUT_THE_SEAM = """
import json, os, sys
from numba.core import compiler_lock
numbas_own = compiler_lock.global_compiler_lock
del compiler_lock.global_compiler_lock  # a numba without what the lock relies on, while the kernels are made
from solver.engines import cache_files
heard = []
cache_files.send_notices_to(heard.append)
from solver.engines.ranking import popcount
from solver.sliding import search_kernels  # more kernels: still one notice
compiler_lock.global_compiler_lock = numbas_own  # numba's own compiling needs it
assert popcount(7) == 3
print(json.dumps({"notices": heard, "wrapped": hasattr(popcount.compile, "koma_lock"),
                  "locks": [name for _, _, names in os.walk(sys.argv[1]) for name in names if name.endswith(".lock")],
                  "misses": sum(popcount.stats.cache_misses.values())}))
"""


def test_a_numba_without_the_seam_compiles_without_the_lock_and_says_so_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    done = subprocess.run([sys.executable, "-c", WITHOUT_THE_SEAM, str(tmp_path / "numba")], capture_output=True,
                          text=True, env=env, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    (notice,) = outcome["notices"]
    assert "global_compiler_lock" in notice and "without the cross-process lock" in notice, notice
    assert not outcome["wrapped"] and outcome["locks"] == [] and outcome["misses"] == 1, outcome


def test_a_lock_file_that_cannot_be_opened_means_no_lock_not_an_error(tmp_path):
    """A directory where the lock file should be (as an unwritable cache would refuse it): the kernel compiles."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    where = subprocess.run([sys.executable, "-c", "from solver.engines.ranking import popcount; "
                            "print(popcount.compile.koma_lock)"], capture_output=True, text=True, env=env, check=True)
    Path(where.stdout.strip()).mkdir()
    done = subprocess.run([sys.executable, "-c", WAIT_FOR_THE_LOCK, "300"], capture_output=True, text=True, env=env,
                          timeout=DEADLINE)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["misses"] == 1


def test_no_lock_file_outside_the_active_numba_cache(tmp_path):
    """A kernel numba would cache elsewhere (no usable cache directory: numba's own locations) gets no lock."""
    from types import SimpleNamespace

    def kernel(directory):
        return SimpleNamespace(stats=SimpleNamespace(cache_path=str(directory)), py_func=kernel)

    active = jit_cache.status().active
    assert active is not None
    assert jit_cache._compile_lock_path(kernel(tmp_path / "elsewhere")) is None
    assert jit_cache._compile_lock_path(kernel(active / "engines_x")) == active / "engines_x" / (
        f"{__name__}.test_no_lock_file_outside_the_active_numba_cache.<locals>.kernel.lock")


WAIT_IN_A_THREAD = """
import json, os, sys, threading, time
from solver.engines import jit_cache
from solver.engines.ranking import nth_set_bit, popcount
jit_cache.COMPILE_WAIT_SECONDS = 120.0
waiting = threading.Thread(target=popcount, args=(7,))
waiting.start()
lock = str(popcount.compile.koma_lock)
deadline = time.monotonic() + 120
while lock not in {os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")}:
    assert time.monotonic() < deadline, "the thread never waited for the lock"
    time.sleep(0.01)
assert nth_set_bit(0b1011, 2) == 3  # another kernel, compiled while the thread waits
print(json.dumps({"other_kernel_while_waiting": waiting.is_alive(),
                  "compiled": sum(nth_set_bit.stats.cache_misses.values())}), flush=True)
os._exit(0)
"""


def test_a_thread_waiting_for_another_process_s_compile_does_not_hold_up_its_process(tmp_path):
    """One thread waits for a kernel whose lock a stopped process holds: another thread of the same process still
    compiles another kernel meanwhile (the waiting thread holds no lock of its process while it waits)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOMA_CACHE_DIR": str(tmp_path / "koma")}
    holder = lock_holder(env, "stop")
    try:
        done = subprocess.run([sys.executable, "-c", WAIT_IN_A_THREAD], capture_output=True, text=True, env=env,
                              timeout=DEADLINE)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"other_kernel_while_waiting": True, "compiled": 1}
    finally:
        holder.kill()
        holder.wait()
