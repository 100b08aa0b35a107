"""The solver's part of ``koma doctor``: its libraries, the numba and table caches, each problem with its fix.

The command itself, with the product's parts (Koma's and Textual's versions, the data dir, the terminal, serving,
the saved games), is the product's (:mod:`tui.doctor`): it calls :func:`diagnose` and puts :func:`cache_lines` and
:func:`table_lines` in its report.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from solver.engines import jit_cache, tables

PACKAGES = ("numba", "numpy", "platformdirs")  # what the solver runs on
Problem = dict[str, str]  # {"problem", "fix", "severity": "error" or "advice"}


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def directory_problem(directory: Path) -> str | None:
    """Why Koma could not keep files in ``directory``, or None when it can.

    Found by trying, as Koma would (permission bits do not tell: root passes them, and ``/proc`` or a
    read-only mount refuses root): make the directory if it is missing, then make and remove a file in it.
    Directories made here are removed again, so the check leaves nothing behind.
    """
    made: list[Path] = []
    doing = "looked at"
    try:
        if directory.exists() and not directory.is_dir():
            return "it is not a directory"
        missing = directory
        while not missing.exists() and missing != missing.parent:
            made.append(missing)
            missing = missing.parent
        doing = "created"
        directory.mkdir(parents=True, exist_ok=True)
        doing = "written"
        handle, name = tempfile.mkstemp(prefix=".koma-doctor-", dir=directory)
        os.close(handle)
        os.unlink(name)
        return None
    except OSError as error:
        return f"it cannot be {doing}: {error.strerror or error}"
    finally:
        for path in made:  # deepest first; only what this check made, and only if still empty
            try:
                path.rmdir()
            except OSError:
                pass


def _writable(directory: Path) -> bool:
    return directory_problem(directory) is None


def _numba_cache() -> dict[str, Any]:
    state = jit_cache.status()
    path = state.active
    entries = list(path.rglob("*.nbi")) if path is not None and path.is_dir() else []
    bad = jit_cache.find_bad_entries(path)
    return {**state.to_dict(), "writable": path is not None and _writable(path), "cached_functions": len(entries),
            "warm": len(entries) > len(bad), "bad_files": [{"path": str(b.path), "reason": b.reason} for b in bad]}


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _table_files() -> list[dict[str, Any]]:
    """Every table in the cache with its status, and every lock file that is not a file."""
    directory = tables.cache_dir()
    found = []
    for path in sorted(directory.glob("*.npy")) if directory.is_dir() else []:
        found.append({"name": path.stem, "bytes": path.stat().st_size if path.is_file() else 0,
                      "status": tables.inspect_table(path)})
    for lock in sorted(directory.glob("*.lock")) if directory.is_dir() else []:
        if not lock.is_file():
            found.append({"name": lock.name, "bytes": 0, "status": "corrupt (a lock that is not a file)"})
    return found


def diagnose(tables_variable: str | None = None) -> dict[str, Any]:
    """The solver's figures (``versions``, ``numba_cache``, ``cache_dir``, ``tables``, ``leftovers``) and ``problems``: a
    list of {problem, fix, severity}; ``tables_variable`` names the environment variable that moves the table cache,
    for the fix of an unusable one (the program's, when it has one)."""
    report: dict[str, Any] = {
        "versions": {"python": sys.version.split()[0], **{name: _version(name) for name in PACKAGES}},
        "numba_cache": _numba_cache(),
        "cache_dir": str(tables.cache_dir()),
        "tables": _table_files(),
        "leftovers": [{"path": str(path), "bytes": _size(path)} for path in tables.leftovers()],
    }
    problems: list[Problem] = []

    def wrong(problem: str, fix: str) -> None:
        problems.append({"problem": problem, "fix": fix, "severity": "error"})

    def advice(problem: str, fix: str) -> None:
        problems.append({"problem": problem, "fix": fix, "severity": "advice"})

    for name in PACKAGES:
        if report["versions"][name] is None:
            wrong(f"{name} is not installed", "pip install -e .")
    cache = report["numba_cache"]
    if cache["temporary"]:
        wrong(f"the numba cache {cache['wanted']} is unusable ({cache['problem']}); kernels compile into a temporary "
              "directory every run", f"rm {shlex.quote(cache['wanted'])}" if Path(cache["wanted"]).is_file()
              else f"mkdir -p {shlex.quote(cache['wanted'])}, or export NUMBA_CACHE_DIR=a writable directory")
    elif not cache["writable"]:
        wrong("the numba cache is not writable, so every start compiles again", "export NUMBA_CACHE_DIR=~/.cache/koma/numba")
    elif cache["bad_files"]:
        first = cache["bad_files"][0]
        wrong(f"the numba cache has {len(cache['bad_files'])} bad file(s) ({Path(first['path']).name}: {first['reason']}); "
              "the next solve removes them and compiles again", f"rm -r {shlex.quote(cache['dir'])}")
    elif not cache["warm"]:
        advice("the numba cache is cold: the first solve compiles (a few seconds)", "koma bench 8")
    table_cache_problem = directory_problem(tables.cache_dir())
    if table_cache_problem:
        wrong(f"the table cache {tables.cache_dir()} is unusable ({table_cache_problem}); tables are rebuilt every run",
              directory_fix(tables.cache_dir(), tables_variable))
    for table in report["tables"]:
        if table["status"] != "ok":
            where = tables.cache_dir() / (table["name"] if table["name"].endswith(".lock") else table["name"] + ".npy")
            wrong(f"table {table['name']} is {table['status']}; it will be rebuilt on use", f"rm -r {shlex.quote(str(where))}")
    if report["leftovers"]:
        megabytes = sum(leftover["bytes"] for leftover in report["leftovers"]) / 1e6
        advice(f"{len(report['leftovers'])} temporary file(s) ({megabytes:.1f} MB) left in the table cache by interrupted "
               "builds; the next solve removes them", "rm " + " ".join(shlex.quote(leftover["path"]) for leftover in report["leftovers"]))
    report["problems"] = problems
    return report


def directory_fix(directory: Path, variable: str | None) -> str:
    """How to make ``directory`` usable, or (``variable``) which environment variable points elsewhere."""
    where = shlex.quote(str(directory))
    elsewhere = f"export {variable}=a directory you can write" if variable else "use a directory you can write"
    if directory.exists() and not directory.is_dir():
        return f"move {where} away, or {elsewhere}"
    return f"mkdir -p {where} && chmod u+w {where}, or {elsewhere}"


def cache_lines(report: dict[str, Any]) -> list[str]:
    """The text report's lines about the numba cache and the table cache."""
    cache = report["numba_cache"]
    return [f"numba cache   {cache['dir'] or '(none)'}{'  (temporary)' if cache['temporary'] else ''}  "
            f"writable={cache['writable']}  warm={cache['warm']} ({cache['cached_functions']} functions, "
            f"{len(cache['bad_files'])} bad files)",
            f"table cache   {report['cache_dir']}"]


def table_lines(report: dict[str, Any]) -> list[str]:
    """The text report's lines about every table and every file an interrupted build left."""
    lines = ["tables" + ("        (none built yet)" if not report["tables"] else "")]
    lines += [f"  {t['name']:<24} {t['bytes']:>14,} bytes  {t['status']}" for t in report["tables"]]
    lines += [f"  {Path(t['path']).name:<24} {t['bytes']:>14,} bytes  left by an interrupted build" for t in report["leftovers"]]
    return lines
