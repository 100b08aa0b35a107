"""The house rules, checked: layer contracts, no import circles, lint and types.

The contracts themselves are in pyproject.toml (``[tool.importlinter]``); this runs them with the
rest of the suite, together with ruff and mypy, so that a change breaking a rule fails here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "tui")


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_import_contracts_hold():
    lint_imports = Path(sys.executable).with_name("lint-imports")  # installed by the test extra
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_circles_not_even_inside_functions():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    modules = {m for m in graph.modules if m.split(".")[0] in PACKAGES}
    assert _cycles(graph, modules) == []


def test_no_imports_by_name():
    """importlib.import_module and __import__ hide dependencies from the contracts: none in the packages."""
    offenders = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call):
                    name = ast.unparse(node.func)
                    if name in ("importlib.import_module", "import_module", "__import__"):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert offenders == []


def test_ruff_is_clean():
    result = _run("ruff", "check", "--no-cache", "solver", "tui", "tests", "screenshots")
    assert result.returncode == 0, result.stdout[-4000:]


def test_mypy_is_clean():
    result = _run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout[-4000:]


MAX_MODULE_LINES = 700
MAX_PLAY_SCREEN_LINES = 500


def test_no_module_is_too_long_to_read():
    lengths = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
               for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    assert len(lengths) > 50  # the packages were found
    assert {path: n for path, n in lengths.items() if n > MAX_MODULE_LINES} == {}
    assert lengths[str(Path("tui", "screens", "play.py"))] <= MAX_PLAY_SCREEN_LINES
