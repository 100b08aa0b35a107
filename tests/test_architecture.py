"""The house rules, checked: layer contracts, no import circles, lint and types.

The contracts themselves are in pyproject.toml (``[tool.importlinter]``); this runs them with the
rest of the suite, together with ruff and mypy, so that a change breaking a rule fails here.
"""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "tui", "koma_bench")


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


def test_the_one_door_for_commands_from_outside_is_the_entry_point_group():
    """The product loads code it does not name in one place only: :func:`tui.cli.registered_commands` reads the
    ``koma.commands`` entry point group (``koma bench`` comes in that way); nothing else reads entry points."""
    readers = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "entry_points":
                    readers.append(str(path.relative_to(ROOT)))
    assert readers == [str(Path("tui", "cli.py"))]


def test_ruff_is_clean():
    result = _run("ruff", "check", "--no-cache", "solver", "tui", "koma_bench", "tests", "screenshots")
    assert result.returncode == 0, result.stdout[-4000:]


def test_mypy_is_clean():
    result = _run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout[-4000:]


def _typed_any(annotation: ast.expr | None) -> bool:
    return annotation is not None and ast.unparse(annotation) in ("Any", "typing.Any", "'Any'", '"Any"')


def _host_through_any(node: ast.AST) -> str | None:
    """What ``node`` is, if it reaches ``self`` as ``Any``: ``def f(self: Any)``, ``screen: Any = self``,
    ``cast(Any, self)``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.args:
        first = node.args.args[0]
        return f"{node.name}(self: Any)" if first.arg == "self" and _typed_any(first.annotation) else None
    if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return ast.unparse(node) if _typed_any(node.annotation) else None
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("cast", "typing.cast") and len(node.args) == 2:
        return ast.unparse(node) if _typed_any(node.args[0]) and ast.unparse(node.args[1]) == "self" else None
    return None


def test_no_class_borrows_its_host_through_any():
    """A part of a class is a composed object with a typed host (``PlaySolver``, ``PlaybackController``, ``HeldGame``),
    never a mixin that reaches its host through ``self: Any`` (or ``screen: Any = self``, ``cast(Any, self)``): mypy
    checks nothing in such a mixin."""
    offenders = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                found = _host_through_any(node)
                if found is not None:
                    offenders.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)} {found}")
    assert offenders == []


def test_the_checker_finds_each_kind_of_mixin_over_any():
    mixins = ("class A:\n    def f(self: Any) -> None: ...\n",
              "class B:\n    def f(self) -> None:\n        screen: Any = self\n",
              "class C:\n    def f(self) -> None:\n        cast(Any, self).g()\n")
    for source in mixins:
        assert any(_host_through_any(node) for node in ast.walk(ast.parse(source))), source
    typed = "class D:\n    def f(self, host: Any) -> None:\n        screen: Host = self\n        cast(Host, self)\n"
    assert not any(_host_through_any(node) for node in ast.walk(ast.parse(typed)))


# The app is a shell (services it holds, app-wide keys, ASCII mode, the browser page, what a served game refuses):
# every screen opens the screens after it itself.  The play screen composes its parts (the held game, the solver,
# the playback).  Counted with the methods of any base class of Koma's own (a mixin counts), Textual's patches aside.
MAX_APP_METHODS = 25
MAX_PLAY_SCREEN_METHODS = 66


def _own_methods(cls: type) -> list[str]:
    names = []
    for klass in cls.__mro__:
        module = klass.__module__
        if module.split(".")[0] in PACKAGES and not module.startswith("tui.patches"):
            for name, value in vars(klass).items():
                function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                if inspect.isfunction(function) and function.__qualname__.startswith(f"{klass.__qualname__}."):
                    names.append(name)  # a def in the class body (not a property made by a helper, e.g. session_view)
    return names


def test_the_app_and_the_play_screen_stay_small():
    from tui.app import KomaApp
    from tui.play.screen import PlayScreen

    app, play = _own_methods(KomaApp), _own_methods(PlayScreen)
    assert len(app) <= MAX_APP_METHODS, app
    assert len(play) <= MAX_PLAY_SCREEN_METHODS, play
    assert "on_mount" in app and "play" in play  # the classes' own methods were counted


# --- library privates: only in tui/patches (numba's: solver/engines/numba_patches.py) -----------------------------
PRIVATE_LIBRARIES = ("textual", "aiohttp", "asyncssh", "argparse", "numba")
# The modules allowed to touch them: tui/patches, and the solver's one module for numba (the solver cannot import tui).
NUMBA_PATCHES = "solver/engines/numba_patches.py"
PATCH_MODULES = ("tui/patches/", NUMBA_PATCHES)
# The one measuring script that times Textual's own phases (its compositor's layout and render) by wrapping them, in a
# process of its own that changes nothing of the product: koma bench serve's arrival by phase.
MEASURING_MODULES = ("koma_bench/arrival_measure.py",)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _from_a_library(module: str) -> bool:
    return module.split(".")[0] in PRIVATE_LIBRARIES


def _library_sources(library: str) -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec(library)
    assert spec is not None and spec.origin is not None, f"{library} is not installed"
    origin = Path(spec.origin)
    return sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]


def _name_defined(node: ast.AST) -> str | None:
    """The name ``node`` itself defines, if any: a function, a class, an assigned name, an attribute assigned on anything."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return node.attr
    return None


def _private_names_defined(node: ast.AST) -> set[str]:
    """The private names ``node`` defines: functions, classes, assigned names, and attributes assigned on anything."""
    return {name for inner in ast.walk(node) if (name := _name_defined(inner)) is not None and _is_private(name)}


class LibraryPrivates:
    """The libraries' private names, read from their installed sources: all of them (:attr:`everywhere`), and those
    of each library class with its methods' attributes (:meth:`of_class`)."""

    def __init__(self) -> None:
        self.everywhere: set[str] = set()
        self.by_class: dict[tuple[str, str], set[str]] = {}
        for library in PRIVATE_LIBRARIES:
            for path in _library_sources(library):
                self._read(ast.parse(path.read_text(encoding="utf-8", errors="replace")), str(path.resolve()))

    def _read(self, tree: ast.Module, source: str) -> None:
        """One walk over ``tree``: each private name defined goes to :attr:`everywhere` and to every class around it
        (what :func:`_private_names_defined` of each class would find, without walking each class again)."""
        waiting: list[tuple[ast.AST, tuple[set[str], ...]]] = [(tree, ())]
        while waiting:
            node, around = waiting.pop()
            if isinstance(node, ast.ClassDef):
                around = (*around, self.by_class.setdefault((source, node.name), set()))
            name = _name_defined(node)
            if name is not None and _is_private(name):
                self.everywhere.add(name)
                for names in around:
                    names.add(name)
            waiting.extend((child, around) for child in ast.iter_child_nodes(node))

    def of_class(self, cls: type) -> set[str]:
        """The private names ``cls`` inherits from the libraries' classes in its MRO."""
        import inspect

        names: set[str] = set()
        for ancestor in cls.__mro__:
            if _from_a_library(ancestor.__module__):
                names |= {name for name in vars(ancestor) if _is_private(name)}
                try:
                    source = str(Path(inspect.getsourcefile(ancestor) or "").resolve())
                except TypeError:  # a builtin
                    continue
                names |= self.by_class.get((source, ancestor.__name__), set())
        return names


def _other_modules(tree: ast.Module) -> set[str]:
    """The names a module binds to modules that are not the libraries' (``os``: ``os._exit`` is not argparse's)."""
    return {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names if not _from_a_library(alias.name)}


def _private_uses(name: str, tree: ast.Module, privates: LibraryPrivates) -> list[str]:
    """What in module ``name`` (a path) touches a library's private: imports, overrides, attributes, ``getattr``s, plus
    ``_action_*`` methods (Textual prefers them to ``action_*``) and ``__class__`` assignments."""
    import importlib

    module = importlib.import_module(name.removesuffix(".py").replace("/", "."))
    other_modules = _other_modules(tree)
    found: list[str] = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{name}:{getattr(node, 'lineno', 0)} {what}")

    inherited_by_class: dict[str, set[str]] = {}
    for node in tree.body:
        cls = getattr(module, node.name, None) if isinstance(node, ast.ClassDef) else None
        if isinstance(cls, type):
            inherited_by_class[node.name] = privates.of_class(cls)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _from_a_library(alias.name) and any(_is_private(part) for part in alias.name.split(".")):
                    say(node, f"imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and _from_a_library(node.module):
            if any(_is_private(part) for part in node.module.split(".")):
                say(node, f"imports from {node.module}")
            found.extend(f"{name}:{node.lineno} imports {alias.name} from {node.module}"
                         for alias in node.names if _is_private(alias.name))
        elif isinstance(node, ast.ClassDef):
            inherited = inherited_by_class.get(node.name, set())
            for item in node.body:
                for defined in sorted(_private_names_defined(item) if not isinstance(item, ast.ClassDef) else {item.name}):
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and defined != item.name:
                        continue  # a method's own locals
                    if defined.startswith("_action_"):
                        say(item, f"defines {node.name}.{defined} (Textual runs it instead of action_*)")
                    elif defined in inherited:
                        say(item, f"overrides {node.name}.{defined}, a library private")
            for inner in ast.walk(node):
                if (isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                        and inner.value.id in ("self", "cls") and inner.attr in inherited):
                    say(inner, f"uses {inner.value.id}.{inner.attr} in {node.name}, a library private")
        elif isinstance(node, ast.Attribute):
            if node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                say(node, "assigns __class__")
            elif node.attr in privates.everywhere and not (
                    isinstance(node.value, ast.Name) and (node.value.id in ("self", "cls") or node.value.id in other_modules)):
                say(node, f"uses .{node.attr}, a library private")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in privates.everywhere):
            say(node, f"{node.func.id}(..., {node.args[1].value!r}), a library private")
    return found


def library_private_uses() -> list[str]:
    """Every use of a library private outside tui/patches (and the override modules that move there)."""
    privates = LibraryPrivates()
    assert {"_thread_id", "_exit_renderables", "_process_env_request", "_server", "_parse_optional",
            "_load_overload", "_impl", "_py_func"} <= privates.everywhere
    from tui.app import KomaApp

    assert "_exit_renderables" in privates.of_class(KomaApp)  # an attribute Textual's App sets in a method
    return [use for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            if not (name := str(path.relative_to(ROOT))).startswith(PATCH_MODULES + MEASURING_MODULES)
            for use in _private_uses(name, ast.parse(path.read_text()), privates)]


def test_no_module_outside_the_patches_touches_a_library_private():
    """Textual's, aiohttp's, asyncssh's and argparse's private modules and names are used only in tui/patches, and
    numba's only in solver/engines/numba_patches.py, where each use checks itself."""
    assert library_private_uses() == []


# numba's modules that hold what Koma patches or reaches into; its public API (numba.njit, numba.extending's intrinsic,
# numba.core.cgutils for an intrinsic's code) is anyone's.
NUMBA_INTERNALS = ("numba.core.caching", "numba.core.dispatcher", "numba.core.compiler_lock", "numba.core.runtime",
                   "numba.core.registry", "numba.core.config", "numba.core.sigutils", "numba.config")
NUMBA_PATCHED = {"load_overload", "save_overload", "compile", "CACHE_DIR"}  # the public names Koma replaces


def numba_patches_elsewhere(path: Path) -> list[str]:
    """What in one module imports numba's internals, or assigns an attribute on numba's objects or a name numba_patches
    replaces (``Cache.load_overload = ...``, ``dispatcher.compile = ...``, ``config.CACHE_DIR = ...``)."""
    tree = ast.parse(path.read_text())
    found: list[str] = []
    from_numba: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("numba"):
                    from_numba.add((alias.asname or alias.name).split(".")[0])
                if alias.name.startswith(NUMBA_INTERNALS):
                    found.append(f"{path}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("numba"):
            from_numba.update(alias.asname or alias.name for alias in node.names)
            imported = [f"{node.module}.{alias.name}" for alias in node.names]
            if any(name.startswith(NUMBA_INTERNALS) for name in [node.module, *imported]):
                found.append(f"{path}:{node.lineno} imports from {node.module}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if node.attr in NUMBA_PATCHED or owner in from_numba:
                found.append(f"{path}:{node.lineno} assigns .{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in NUMBA_PATCHED):
            found.append(f"{path}:{node.lineno} {node.func.id}(..., {node.args[1].value!r})")
    return found


def test_only_numba_patches_patches_numba():
    """numba's internals (its cache, dispatcher, compiler lock, runtime, registries, configuration) are imported and
    patched in solver/engines/numba_patches.py alone; the check itself finds what that module does."""
    assert numba_patches_elsewhere(ROOT / NUMBA_PATCHES)  # the check sees the patches where they are
    found = [use for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if str(path.relative_to(ROOT)) != NUMBA_PATCHES for use in numba_patches_elsewhere(path)]
    assert found == []


def test_the_command_line_imports_no_front_end():
    """``koma solve`` starts as fast as the solver alone: the product's parser, the game's commands and the solver's
    registered, imports neither Textual nor the servers' libraries (nor numpy, which a solve may not need)."""
    probe = ("import sys; from tui.cli import build_parser; build_parser()\n"
             "print(' '.join(sorted(m for m in ('textual', 'asyncssh', 'aiohttp', 'prometheus_client', 'numpy', 'numba')"
             " if m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_the_servers_import_neither_textual_nor_numpy():
    """``koma serve`` and ``koma web`` only accept players and hand each a game process: they import neither Textual
    nor numpy (each server the suite starts paid a numpy import it never used)."""
    probe = ("import sys; import tui.server.ssh.server, tui.server.web.server\n"
             "print(' '.join(sorted(m for m in ('textual', 'numpy', 'numba') if m in sys.modules)))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# What belongs to the product (tui/config/paths.py, tui/notices.py, tui/cli_frame.py, tui/doctor.py), not the solver.
APP_THINGS = ("KOMA_DATA_DIR", "KOMA_CACHE_DIR", "user_data_path", "drain_notices", "CommandError", "report_error",
              "EXIT_BAD_INPUT", "textual", "asyncssh")


def test_the_solver_owns_nothing_of_the_apps():
    """The solver takes its table cache and a notice listener from the program using it and raises errors: it names no
    data directory, no environment variable of the product's, no notice list, no CLI frame, and no library of the
    product's (koma doctor lists those from tui/doctor.py)."""
    assert "KOMA_DATA_DIR" in (ROOT / "tui" / "config" / "paths.py").read_text()  # the check reads the right words
    found = [f"{path.relative_to(ROOT)}: {thing}" for path in sorted((ROOT / "solver").rglob("*.py"))
             for thing in APP_THINGS if thing in path.read_text()]
    assert found == []


# Koma writes SQL's keywords in capitals (tui/storage/), which keeps English prose ("select a size from") out of it.
SQL = re.compile(r"\b(SELECT\b.+\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|ALTER\s+TABLE)\b",
                 re.DOTALL)


def sql_outside_storage() -> list[str]:
    """Where a module outside ``tui/storage/`` imports a database driver or holds an SQL statement in a string."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "tui" / "storage"):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(name.split(".")[0] in ("sqlite3", "psycopg") for name in names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports a database driver")
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} holds SQL")
    return found


def test_sql_lives_in_the_storage_only():
    """Every SQL statement and database driver is in ``tui/storage/``: the game, the screens, the servers, the solver
    and the bench reach the database through the store's typed methods."""
    assert SQL.search("UPDATE race_rooms SET state = 1") and SQL.search("SELECT code\n FROM race_rooms")
    assert sql_outside_storage() == []
