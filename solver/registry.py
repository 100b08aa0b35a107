"""Find a puzzle by its CLI name and size: the one place that knows every puzzle."""

from __future__ import annotations

from typing import Callable

from .errors import KomaError, shown
from .puzzle import Puzzle
from .sliding import SlidingPuzzle, parse_size

# name -> (factory taking (width, height) or None for the default size, one-line description)
_FACTORIES: dict[str, tuple[Callable[[tuple[int, int] | None], Puzzle], str]] = {}


def register(name: str, description: str):
    """Decorator: ``factory(size_or_None) -> Puzzle`` becomes available as ``name`` in the CLI and TUI."""

    def wrap(factory):
        _FACTORIES[name] = (factory, description)
        return factory

    return wrap


@register("8", "the 8-puzzle: 3x3 sliding tiles")
def _eight(size):
    if size not in (None, (3, 3)):
        raise KomaError("the 8-puzzle is 3x3; use 'sliding --size WxH' for other sizes")
    return SlidingPuzzle(3, 3)


@register("15", "the 15-puzzle: 4x4 sliding tiles")
def _fifteen(size):
    if size not in (None, (4, 4)):
        raise KomaError("the 15-puzzle is 4x4; use 'sliding --size WxH' for other sizes")
    return SlidingPuzzle(4, 4)


@register("sliding", "sliding tiles on any board from 2x2 to 5x5 (--size WxH, default 3x3)")
def _sliding(size):
    return SlidingPuzzle(*(size or (3, 3)))


def _load_optional_puzzles() -> None:
    """Import the other puzzle modules, which register themselves."""
    import importlib

    for module in ("solver.goat", "solver.ura"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as missing:
            if missing.name != module:
                raise


def names() -> list[str]:
    _load_optional_puzzles()
    return list(_FACTORIES)


def describe(name: str) -> str:
    return _FACTORIES[name][1]


def get_puzzle(name: str, size: str | tuple[int, int] | None = None) -> Puzzle:
    """The puzzle called ``name`` (``8``, ``15``, ``sliding``, ``goat``, ``ura``) at ``size`` ("WxH")."""
    _load_optional_puzzles()
    key = str(name).lower()
    if key not in _FACTORIES:
        raise KomaError(f"unknown puzzle {shown(name)}; choose from {', '.join(_FACTORIES)}")
    if isinstance(size, str):
        size = parse_size(size)
    return _FACTORIES[key][0](size)
