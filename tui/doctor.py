"""``koma doctor``: what a user needs to see when something is off, each problem with its fix.

The product's command: Koma's and Textual's versions, the data dir and the terminal here; the solver's part (its
libraries, the numba and table caches: :mod:`solver.tools.doctor`), serving (:mod:`tui.server.ssh.host_key`) and the
saved games (:mod:`tui.storage.health`) in their packages.  Exit 1 on a fault; advice alone is 0.
"""

from __future__ import annotations

import locale
import os
import shutil
from importlib import metadata
from typing import Any

from solver.tools import doctor as solver_doctor
from solver.tools.doctor import Problem, directory_fix, directory_problem
from tui.config.paths import data_dir

EXIT_PROBLEMS_FOUND = 1


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


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
    """Everything ``koma doctor`` reports, plus ``problems``: a list of {problem, fix, severity}."""
    from tui.server.ssh.host_key import serving_health  # imported when doctor runs
    from tui.storage.health import game_health

    solver = solver_doctor.diagnose(tables_variable="KOMA_CACHE_DIR")
    solver_versions = dict(solver.pop("versions"))
    python = solver_versions.pop("python")
    report: dict[str, Any] = {
        "versions": {"python": python, "koma": _version("koma"), "textual": _version("textual"), **solver_versions,
                     "asyncssh": _version("asyncssh")},
        **{key: value for key, value in solver.items() if key != "problems"},
        "data_dir": str(data_dir()),
        "terminal": _terminal(),
    }
    problems: list[Problem] = []
    if report["versions"]["textual"] is None:
        problems.append({"problem": "textual is not installed", "fix": "pip install -e .", "severity": "error"})
    problems += solver["problems"]
    data_dir_problem = directory_problem(data_dir())
    report["data_dir_problem"] = data_dir_problem
    if data_dir_problem:
        problems.append({"problem": f"the data dir {data_dir()} is unusable ({data_dir_problem}); games, stats and the "
                                    "keymap cannot be saved",
                         "fix": directory_fix(data_dir(), "KOMA_DATA_DIR"), "severity": "error"})
    terminal = report["terminal"]
    if not terminal["utf8"]:
        problems.append({"problem": f"the locale encoding is {terminal['encoding']}, not UTF-8: Koma draws with ASCII "
                                    "letters", "fix": "export LANG=C.UTF-8", "severity": "advice"})
    if terminal["columns"] and (terminal["columns"] < 80 or terminal["lines"] < 24):
        problems.append({"problem": f"the terminal is {terminal['columns']}x{terminal['lines']}; Koma needs at least 80x24",
                         "fix": "enlarge the window", "severity": "advice"})
    report["serve"], serving_problems = serving_health(report)
    game = game_health()
    problems += serving_problems + game.pop("problems")
    report["game"] = game
    report["problems"] = problems
    return report


def something_is_wrong(report: dict[str, Any]) -> bool:
    """Whether ``koma doctor`` found a fault (not just advice): it then exits with status 1."""
    return any(problem["severity"] == "error" for problem in report["problems"])


def render(report: dict[str, Any]) -> str:
    from tui.server.ssh.host_key import serving_line

    versions = "  ".join(f"{k} {v or 'missing'}" for k, v in report["versions"].items())
    terminal = report["terminal"]
    lines = [f"versions      {versions}", *solver_doctor.cache_lines(report),
             f"data dir      {report['data_dir']}",
             f"terminal      TERM={terminal['term'] or '?'}  colours={terminal['colour_system']}  "
             f"NO_COLOR={terminal['no_color']}  size={terminal['columns']}x{terminal['lines']}  utf8={terminal['utf8']}",
             serving_line(report["serve"]), *solver_doctor.table_lines(report)]
    if report["problems"]:
        lines.append("problems")
        lines += [f"  - {p['problem']}{'' if p['severity'] == 'error' else ' (advice)'}\n    fix: {p['fix']}"
                  for p in report["problems"]]
    else:
        lines.append("no problems found")
    return "\n".join(lines)


def cmd_doctor(args) -> int:
    """``koma doctor [--json]``: the report; exit 1 on a fault (advice alone: 0)."""
    from solver.tools.cli import emit

    report = diagnose()
    emit(args, report, lambda: render(report))
    return EXIT_PROBLEMS_FOUND if something_is_wrong(report) else 0
