"""What Koma's overrides of library internals share: checking what they rely on, and stepping aside.

Four modules replace or lean on parts of Textual that are not its public API: :mod:`tui.patches.rendering`
(the compositor, and the screens' frame timer), :mod:`tui.patches.stylesheet` (the parse cache), :mod:`tui.patches.strip_caches` (``Strip``'s slots)
and :mod:`tui.patches.driver` (the Linux driver's input thread); three do so for other libraries:
:mod:`tui.patches.ssh_environment` (asyncssh's env requests), :mod:`tui.patches.server_header` (aiohttp's Server
header) and :mod:`tui.patches.arguments` (argparse's option detection); :mod:`tui.patches.asyncssh_import` only
filters one warning of asyncssh's import.  No other module touches a library's private names (tests/test_architecture.py).
Koma pins the Textual releases they were written and tested for (``pyproject.toml``), and each also
checks, on its first use (never at import), the attributes, method signatures and slots it relies on.
If one is not there, that override steps aside: Koma runs with the library's own behaviour for that
part, and says so once (:func:`step_aside`).

Never imports Textual (the version is read from the package metadata).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from tui import notices

_told: set[str] = set()


def textual_version() -> str:
    try:
        return metadata.version("textual")
    except Exception:  # a version is only information for the notice
        return "(version unknown)"


def step_aside(override: str, problem: str, instead: str, library: str | None = None) -> None:
    """Say once per process that ``override`` does not fit this Textual (``problem``) and what runs ``instead``;
    ``library`` names another library and its version (``"asyncssh 2.24.1"``).

    The notice goes where Koma's other notices go (:func:`tui.notices.post`: the game
    shows it, ``koma`` prints what the game did not show); where stderr is not a terminal, as in
    ``koma serve``'s log, it is also one line on stderr at once.
    """
    if override in _told:
        return
    _told.add(override)
    message = f"{library or 'Textual ' + textual_version()} is not what Koma's {override} was written for ({problem}); {instead}"
    notices.post(message)
    stderr = sys.stderr
    try:
        on_terminal = stderr is not None and stderr.isatty()
    except (OSError, ValueError):
        on_terminal = False
    if stderr is not None and not on_terminal:
        try:
            print(f"koma: {message}", file=stderr, flush=True)
        except (OSError, ValueError):
            pass


def told_if_misfit(override: str, problem: str | None, instead: str, library: str | None = None) -> str | None:
    """``problem`` (an override's misfit, or None), told once through :func:`step_aside` if there is one."""
    if problem:
        step_aside(override, problem, instead, library)
    return problem


def library_version(distribution: str) -> str:
    """``"asyncssh 2.24.1"``: a library's name and installed version, for :func:`step_aside`."""
    try:
        return f"{distribution} {metadata.version(distribution)}"
    except Exception:  # a version is only information for the notice
        return f"{distribution} (version unknown)"


def missing(owner: Any, names: Iterable[str]) -> str | None:
    """``"no X.a, X.b"`` for the attributes ``owner`` lacks, or None."""
    absent = [name for name in names if not hasattr(owner, name)]
    label = getattr(owner, "__name__", type(owner).__name__)
    return ", ".join(f"no {label}.{name}" for name in absent) or None


def parameters_differ(function: Callable[..., Any], expected: Iterable[str]) -> str | None:
    """``"X(a, b) instead of X(a, c)"`` when ``function``'s parameter names are not ``expected``, or None."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return f"{getattr(function, '__qualname__', function)} has no signature"
    expected = list(expected)
    if names == expected:
        return None
    name = getattr(function, "__qualname__", repr(function))
    return f"{name}({', '.join(names)}) instead of ({', '.join(expected)})"


def first_problem(*checks: Callable[[], str | None]) -> str | None:
    """The first problem the checks find (a check that raises is a problem too), or None."""
    for check in checks:
        try:
            problem = check()
        except Exception as error:
            problem = f"{type(error).__name__}: {error}"
        if problem:
            return problem
    return None
