"""Shared test setup: a private table cache, so tests never touch (or depend on) the user's."""

import functools
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

# The table cache is shared by every process of a run (pytest-xdist's workers inherit it from the controller,
# which imports this first): a table is built once per run, and its writes are atomic (mkstemp, then replace).
# The data directory is each process's own: no two workers ever share a koma.db.
_CACHE = tempfile.mkdtemp(prefix="koma-test-cache-")
os.environ.setdefault("KOMA_CACHE_DIR", _CACHE)
os.environ["KOMA_DATA_DIR"] = tempfile.mkdtemp(prefix="koma-test-data-")
if os.environ["KOMA_CACHE_DIR"] != _CACHE:
    os.rmdir(_CACHE)  # a worker's: the controller's is used

# Here ``tui`` is tests/tui merged with the product's package, whose __init__ (which does this) does not run.
from tui.config import connect_the_solver  # noqa: E402

connect_the_solver()  # the product's table cache ($KOMA_CACHE_DIR) and notices, in every test process



# Modules whose module-scoped fixture is dear (a server, a cold numba compile, a table): each runs whole on one xdist
# worker (--dist loadgroup), so that fixture is made once per run, not once per worker that gets one of its tests.
# test_goat builds its tables into an empty cache, test_ura runs the BFS of every size, test_fifteen loads 6-6-3: on
# six workers each did so up to six times (warm, the three: 47.2 core-seconds on six workers, 24.0 in one process);
# test_pdb_dual's BFS of every 8-puzzle board and 6-6-3 (run alone on six workers: 6.7-7.1 core-seconds, 4.3-4.9);
# test_web_phone's one koma web for its four phones.
ONE_WORKER_MODULES = {"test_cache_faults.py", "test_hostile.py", "test_web.py", "test_serve_faults.py",
                      "test_twentyfour.py", "test_play_twentyfour.py", "test_goat.py", "test_ura.py", "test_fifteen.py",
                      "test_pdb_dual.py", "test_web_phone.py"}


# What the everyday loop (``pytest -m "not slow"``, README) leaves to the whole run: the servers and browsers
# (tests/serve), real terminals, cold compiles, and the long searches and fuzzers.
SLOW_MODULES = {"test_cache_faults.py", "test_e2e_tmux.py", "test_fuzz_dialog.py", "test_move_pruning.py",
                "test_pdb_dual.py", "test_twentyfour.py", "test_play_twentyfour.py", "test_warm_process.py",
                "test_startup.py", "test_architecture.py", "test_bench_against.py"}


# The quick loop (``pytest -m "not slow and not app"``, README) also leaves out the modules that drive the app (Pilot,
# snapshots) or run koma as a process: what is left tests the model, the solver and the storage, in about a minute.
APP_MODULE = re.compile(r"run_test\(|snap_compare|make_app\(|KomaApp\(|subprocess|tmux")


@functools.cache
def drives_the_app(path: Path) -> bool:
    return APP_MODULE.search(path.read_text(errors="replace")) is not None


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: left out of the everyday loop (pytest -m 'not slow'); the whole run has it")
    config.addinivalue_line("markers", "app: in a module that drives the app or runs koma as a process (the quick loop "
                                       "leaves these out: pytest -m 'not slow and not app')")


@pytest.hookimpl(tryfirst=True)  # before xdist's own (a worker's), which reads xdist_group to make the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in ONE_WORKER_MODULES:
            item.add_marker(pytest.mark.xdist_group(item.path.stem))
        if item.path.parent.name == "serve" or item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if drives_the_app(item.path):
            item.add_marker(pytest.mark.app)


def pytest_sessionstart(session):
    """Before xdist starts its workers (its own hook runs last), what every worker would otherwise do for itself:
    write the test modules' assertion-rewritten bytecode once, so that six workers read it instead of each rewriting
    every module (pytest's rewriting is most of a collection: about 8 of its 12 CPU-seconds per process; with
    PYTHONDONTWRITEBYTECODE set nobody writes it), and have Hypothesis build its table of Unicode characters once."""
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", 0):
        return
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:  # a chosen few tests: not worth a pass over all
        return
    stale = [path for path in sorted(Path(config.rootpath, "tests").rglob("test_*.py")) if not has_fresh_bytecode(path)]
    runs = start_writing_rewritten_bytecode(stale, config.rootpath) if stale else []
    draw_one_text()  # meanwhile, here
    wait_for(runs)


def draw_one_text() -> None:
    """Draw one text with Hypothesis, so that it builds its table of Unicode characters (its charmap, kept in
    .hypothesis/ beside the tests) now, once: each process that drew its first text without that file built the table
    itself, 1.7 CPU-seconds each (a fresh clone's workers did so at once).  Best effort, as the bytecode pass."""
    import warnings

    from hypothesis import Phase, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisSideeffectWarning

    @settings(max_examples=1, database=None, phases=[Phase.generate])
    @given(st.text())
    def draw(text: str) -> None:
        pass

    try:
        with warnings.catch_warnings():  # it warns that this is slow work before the tests: here it is meant to be
            warnings.simplefilter("ignore", HypothesisSideeffectWarning)
            draw()
    except Exception:  # the workers then build the table themselves, as before
        pass


def has_fresh_bytecode(path: Path) -> bool:
    """Whether pytest's rewritten bytecode for the test module ``path`` is there and newer than its source."""
    cached = list((path.parent / "__pycache__").glob(f"{path.stem}.*-pytest-*.pyc"))
    return any(pyc.stat().st_mtime >= path.stat().st_mtime for pyc in cached)


def start_writing_rewritten_bytecode(paths: list[Path], rootdir: Path, processes: int = 2) -> list:
    """Start collecting ``paths`` (split over ``processes`` runs at once, without xdist) with bytecode writing on:
    pytest writes each module's rewritten bytecode as it imports it.  Best effort: a failure here only costs the
    time.  :func:`wait_for` the runs it returns."""
    import subprocess
    import sys

    # the runs make (and remove) their own data and cache directories, not this run's
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONDONTWRITEBYTECODE", "KOMA_CACHE_DIR", "KOMA_DATA_DIR")}
    return [subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                              "-p", "no:cacheprovider", *map(str, paths[k::processes])],
                             cwd=rootdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for k in range(processes)]


def wait_for(runs: list) -> None:
    import subprocess

    for run in runs:
        try:
            run.wait(timeout=300)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()


def pytest_sessionfinish(session):
    """The controller (or a run without workers) removes the directories it made; workers leave the cache to it."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(os.environ["KOMA_DATA_DIR"], ignore_errors=True)
        return
    for name in ("KOMA_CACHE_DIR", "KOMA_DATA_DIR"):
        path = os.environ.get(name, "")
        if os.path.basename(path).startswith(("koma-test-cache-", "koma-test-data-")):
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def table_cache_dir():
    return os.environ["KOMA_CACHE_DIR"]

from hypothesis import HealthCheck, settings  # noqa: E402

# Hypothesis's own 100 examples per property in the whole run; 20 in the everyday loop (``HYPOTHESIS_PROFILE=dev``,
# README); `pytest --hypothesis-profile=thorough` runs 10,000.
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=10_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server for the session (skips, with the reason, where none can start)."""
    from postgres_server import start_postgres

    server, why_not = start_postgres()
    if server is None:
        pytest.skip(why_not)
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server):
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return postgres_server.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """A store's URL on each backend: a SQLite file of the test's own, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'koma.db'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(scope="session")
def pgbouncer(postgres_server):
    """PgBouncer as deploy/pgbouncer.ini sets it up (transaction mode, 10 server connections) before the session's PostgreSQL."""
    from postgres_server import start_pgbouncer

    bouncer, why_not = start_pgbouncer(postgres_server)
    if bouncer is None:
        pytest.skip(why_not)
    yield bouncer
    bouncer.stop()


@pytest.fixture(autouse=True)
def no_cache_notices_from_earlier_tests():
    """The notices wait in one list per process for a command to print them (:func:`tui.notices.drain`): a test
    starts with none left by an earlier test on the same worker (``koma`` run in-process would print them)."""
    from tui import notices

    notices.drain()
