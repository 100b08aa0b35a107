"""``koma doctor``: what a user needs to see when something is off, each problem with its fix."""

from __future__ import annotations

import locale
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from solver.engines import tables
from solver.engines.paths import data_dir

PACKAGES = ("koma", "textual", "numba", "numpy", "platformdirs", "asyncssh")
HOST_KEY_NAME = "ssh_host_ed25519_key"


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _writable(directory: Path) -> bool:
    probe = directory
    while not probe.exists():
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK)


def _numba_cache() -> dict[str, Any]:
    path = Path(os.environ.get("NUMBA_CACHE_DIR", ""))
    entries = list(path.rglob("*.nbi")) if path.is_dir() else []
    return {"dir": str(path), "writable": bool(path.name) and _writable(path), "cached_functions": len(entries),
            "warm": len(entries) > 0}


def _table_files() -> list[dict[str, Any]]:
    directory = tables.cache_dir()
    found = []
    for path in sorted(directory.glob("*.npy")) if directory.is_dir() else []:
        found.append({"name": path.stem, "bytes": path.stat().st_size, "status": tables.inspect_table(path)})
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


def diagnose() -> dict[str, Any]:
    """Everything ``koma doctor`` reports, plus ``problems``: a list of {problem, fix}."""
    report: dict[str, Any] = {
        "versions": {"python": sys.version.split()[0], **{name: _version(name) for name in PACKAGES}},
        "numba_cache": _numba_cache(),
        "cache_dir": str(tables.cache_dir()),
        "data_dir": str(data_dir()),
        "tables": _table_files(),
        "terminal": _terminal(),
    }
    host_key = data_dir() / HOST_KEY_NAME
    report["serve"] = {"asyncssh": report["versions"]["asyncssh"] is not None,
                       "host_key": str(host_key), "host_key_exists": host_key.exists()}
    problems = []
    for name in ("textual", "numba", "numpy", "platformdirs"):
        if report["versions"][name] is None:
            problems.append({"problem": f"{name} is not installed", "fix": "pip install -e ."})
    if not report["numba_cache"]["writable"]:
        problems.append({"problem": "the numba cache is not writable, so every start compiles again",
                         "fix": "export NUMBA_CACHE_DIR=~/.cache/koma/numba"})
    elif not report["numba_cache"]["warm"]:
        problems.append({"problem": "the numba cache is cold: the first solve compiles (a few seconds)",
                         "fix": "koma bench 8"})
    if not _writable(tables.cache_dir()):
        problems.append({"problem": f"the table cache {tables.cache_dir()} is not writable; tables are rebuilt every run",
                         "fix": f"mkdir -p {tables.cache_dir()} && chmod u+w {tables.cache_dir()}"})
    for table in report["tables"]:
        if table["status"] != "ok":
            problems.append({"problem": f"table {table['name']} is {table['status']}; it will be rebuilt on use",
                             "fix": f"rm {tables.cache_dir() / (table['name'] + '.npy')}"})
    if not _writable(data_dir()):
        problems.append({"problem": f"the data dir {data_dir()} is not writable; games cannot be saved",
                         "fix": f"mkdir -p {data_dir()} && chmod u+w {data_dir()}"})
    terminal = report["terminal"]
    if not terminal["utf8"]:
        problems.append({"problem": f"the locale encoding is {terminal['encoding']}, not UTF-8: Koma draws with ASCII letters",
                         "fix": "export LANG=C.UTF-8"})
    if terminal["columns"] and (terminal["columns"] < 80 or terminal["lines"] < 24):
        problems.append({"problem": f"the terminal is {terminal['columns']}x{terminal['lines']}; Koma needs at least 80x24",
                         "fix": "enlarge the window"})
    if not report["serve"]["asyncssh"]:
        problems.append({"problem": "asyncssh is missing, so 'koma serve' is unavailable", "fix": "pip install -e '.[ssh]'"})
    report["problems"] = problems
    return report


def render(report: dict[str, Any]) -> str:
    versions = "  ".join(f"{k} {v or 'missing'}" for k, v in report["versions"].items())
    cache = report["numba_cache"]
    terminal = report["terminal"]
    lines = [
        f"versions      {versions}",
        f"numba cache   {cache['dir'] or '(none)'}  writable={cache['writable']}  warm={cache['warm']} ({cache['cached_functions']} functions)",
        f"table cache   {report['cache_dir']}",
        f"data dir      {report['data_dir']}",
        f"terminal      TERM={terminal['term'] or '?'}  colours={terminal['colour_system']}  NO_COLOR={terminal['no_color']}  "
        f"size={terminal['columns']}x{terminal['lines']}  utf8={terminal['utf8']}",
        f"serve         asyncssh={'yes' if report['serve']['asyncssh'] else 'no'}  host key {report['serve']['host_key']}"
        f" ({'present' if report['serve']['host_key_exists'] else 'not generated yet'})",
        "tables" + ("        (none built yet)" if not report["tables"] else ""),
    ]
    lines += [f"  {t['name']:<24} {t['bytes']:>14,} bytes  {t['status']}" for t in report["tables"]]
    if report["problems"]:
        lines.append("problems")
        lines += [f"  - {p['problem']}\n    fix: {p['fix']}" for p in report["problems"]]
    else:
        lines.append("no problems found")
    return "\n".join(lines)
