"""``koma doctor``: what a user needs to see when something is off, each problem with its fix.

This is the solver's part (versions, the numba and table caches, the data dir, the terminal); the parts that live
outside the solver (the SSH server's host key, the saved games) are :class:`DoctorSection`s that the ``koma``
command line registers (see :func:`solver.tools.cli.add_commands`).
"""

from __future__ import annotations

import locale
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from solver.engines import jit_cache, tables
from solver.engines.paths import data_dir

PACKAGES = ("koma", "textual", "numba", "numpy", "platformdirs", "asyncssh")
Problem = dict[str, str]  # {"problem", "fix", "severity": "error" or "advice"}


@dataclass(frozen=True)
class DoctorSection:
    """A part of the report that lives outside the solver: ``diagnose(report)`` gets the solver's report and returns
    the section's figures (kept under ``name``; None: none) and its problems (listed after the solver's);
    ``line(figures)``, if given, is its line in the text report, after the terminal's."""

    name: str
    diagnose: Callable[[dict[str, Any]], tuple[dict[str, Any] | None, list[Problem]]]
    line: Callable[[dict[str, Any]], str] | None = None


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


def _terminal() -> dict[str, Any]:
    size = shutil.get_terminal_size((0, 0))
    encoding = locale.getpreferredencoding(False)
    colour = os.environ.get("TEXTUAL_COLOR_SYSTEM") or (
        "truecolor" if os.environ.get("COLORTERM") in ("truecolor", "24bit")
        else "256" if "256" in os.environ.get("TERM", "") else "standard")
    return {"term": os.environ.get("TERM", ""), "colour_system": colour, "no_color": "NO_COLOR" in os.environ,
            "columns": size.columns, "lines": size.lines, "utf8": encoding.lower().replace("-", "") == "utf8",
            "encoding": encoding}


def diagnose(sections: Sequence[DoctorSection] = ()) -> dict[str, Any]:
    """Everything ``koma doctor`` reports, ``sections`` included, plus ``problems``: a list of {problem, fix, severity}."""
    report: dict[str, Any] = {
        "versions": {"python": sys.version.split()[0], **{name: _version(name) for name in PACKAGES}},
        "numba_cache": _numba_cache(),
        "cache_dir": str(tables.cache_dir()),
        "data_dir": str(data_dir()),
        "tables": _table_files(),
        "leftovers": [{"path": str(path), "bytes": _size(path)} for path in tables.leftovers()],
        "terminal": _terminal(),
    }
    problems: list[Problem] = []

    def wrong(problem: str, fix: str) -> None:
        problems.append({"problem": problem, "fix": fix, "severity": "error"})

    def advice(problem: str, fix: str) -> None:
        problems.append({"problem": problem, "fix": fix, "severity": "advice"})

    for name in ("textual", "numba", "numpy", "platformdirs"):
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
              _directory_fix(tables.cache_dir(), "KOMA_CACHE_DIR"))
    for table in report["tables"]:
        if table["status"] != "ok":
            where = tables.cache_dir() / (table["name"] if table["name"].endswith(".lock") else table["name"] + ".npy")
            wrong(f"table {table['name']} is {table['status']}; it will be rebuilt on use", f"rm -r {shlex.quote(str(where))}")
    if report["leftovers"]:
        megabytes = sum(leftover["bytes"] for leftover in report["leftovers"]) / 1e6
        advice(f"{len(report['leftovers'])} temporary file(s) ({megabytes:.1f} MB) left in the table cache by interrupted "
               "builds; the next solve removes them", "rm " + " ".join(shlex.quote(leftover["path"]) for leftover in report["leftovers"]))
    data_dir_problem = directory_problem(data_dir())
    report["data_dir_problem"] = data_dir_problem
    if data_dir_problem:
        wrong(f"the data dir {data_dir()} is unusable ({data_dir_problem}); games, stats and the keymap cannot be saved",
              _directory_fix(data_dir(), "KOMA_DATA_DIR"))
    terminal = report["terminal"]
    if not terminal["utf8"]:
        advice(f"the locale encoding is {terminal['encoding']}, not UTF-8: Koma draws with ASCII letters", "export LANG=C.UTF-8")
    if terminal["columns"] and (terminal["columns"] < 80 or terminal["lines"] < 24):
        advice(f"the terminal is {terminal['columns']}x{terminal['lines']}; Koma needs at least 80x24", "enlarge the window")
    for section in sections:
        figures, found = section.diagnose(report)
        if figures is not None:
            report[section.name] = figures
        problems += found
    report["problems"] = problems
    return report


def _directory_fix(directory: Path, variable: str) -> str:
    where = shlex.quote(str(directory))
    if directory.exists() and not directory.is_dir():
        return f"move {where} away, or export {variable}=a directory you can write"
    return f"mkdir -p {where} && chmod u+w {where}, or export {variable}=a directory you can write"


def something_is_wrong(report: dict[str, Any]) -> bool:
    """Whether ``koma doctor`` found a fault (not just advice): it then exits with status 1."""
    return any(problem["severity"] == "error" for problem in report["problems"])


def render(report: dict[str, Any], sections: Sequence[DoctorSection] = ()) -> str:
    versions = "  ".join(f"{k} {v or 'missing'}" for k, v in report["versions"].items())
    cache = report["numba_cache"]
    terminal = report["terminal"]
    lines = [
        f"versions      {versions}",
        f"numba cache   {cache['dir'] or '(none)'}{'  (temporary)' if cache['temporary'] else ''}  writable={cache['writable']}  "
        f"warm={cache['warm']} ({cache['cached_functions']} functions, {len(cache['bad_files'])} bad files)",
        f"table cache   {report['cache_dir']}",
        f"data dir      {report['data_dir']}",
        f"terminal      TERM={terminal['term'] or '?'}  colours={terminal['colour_system']}  NO_COLOR={terminal['no_color']}  "
        f"size={terminal['columns']}x{terminal['lines']}  utf8={terminal['utf8']}",
    ]
    lines += [section.line(report[section.name]) for section in sections if section.line and section.name in report]
    lines.append("tables" + ("        (none built yet)" if not report["tables"] else ""))
    lines += [f"  {t['name']:<24} {t['bytes']:>14,} bytes  {t['status']}" for t in report["tables"]]
    lines += [f"  {Path(t['path']).name:<24} {t['bytes']:>14,} bytes  left by an interrupted build" for t in report["leftovers"]]
    if report["problems"]:
        lines.append("problems")
        lines += [f"  - {p['problem']}{'' if p['severity'] == 'error' else ' (advice)'}\n    fix: {p['fix']}"
                  for p in report["problems"]]
    else:
        lines.append("no problems found")
    return "\n".join(lines)
