"""Every puzzle Koma knows, by its CLI name: one literal table, as python-chess lists its variants.

Each entry builds the puzzle at a size (``None`` for its default).  The model modules are imported
only when a puzzle of theirs is asked for, so naming the puzzles costs no numba import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solver.errors import KomaError, shown
from solver.puzzle import Puzzle

Size = tuple[int, int]


def parse_size(text: str) -> Size:
    """``"4x3"`` -> (4, 3): W columns by H rows."""
    import re

    match = re.fullmatch(r"\s*(\d+)\s*[x×X]\s*(\d+)\s*", text or "")
    if not match:
        raise KomaError(f"size {shown(text)} is not of the form WxH, e.g. 3x3")
    return int(match.group(1)), int(match.group(2))


def _eight(size: Size | None) -> Puzzle:
    if size not in (None, (3, 3)):
        raise KomaError("the 8-puzzle is 3x3; use 'sliding --size WxH' for other sizes")
    from solver.sliding.model import SlidingPuzzle

    return SlidingPuzzle(3, 3)


def _fifteen(size: Size | None) -> Puzzle:
    if size not in (None, (4, 4)):
        raise KomaError("the 15-puzzle is 4x4; use 'sliding --size WxH' for other sizes")
    from solver.sliding.model import SlidingPuzzle

    return SlidingPuzzle(4, 4)


def _sliding(size: Size | None) -> Puzzle:
    from solver.sliding.model import SlidingPuzzle

    return SlidingPuzzle(*(size or (3, 3)))


def _goat(size: Size | None) -> Puzzle:
    from solver.goat.model import HEIGHT, WIDTH, GoatPuzzle

    if size not in (None, (WIDTH, HEIGHT)):
        raise KomaError(f"Goat is {WIDTH}x{HEIGHT}; it has no --size")
    return GoatPuzzle()


def _ura(size: Size | None) -> Puzzle:
    from solver.ura.model import DEFAULT_SIZE, UraPuzzle

    return UraPuzzle(*(size or DEFAULT_SIZE))


@dataclass(frozen=True)
class Variant:
    """One puzzle as the CLI and the TUI name it."""

    name: str
    description: str
    build: Callable[[Size | None], Puzzle]


VARIANTS: tuple[Variant, ...] = (
    Variant("8", "the 8-puzzle: 3x3 sliding tiles", _eight),
    Variant("15", "the 15-puzzle: 4x4 sliding tiles", _fifteen),
    Variant("sliding", "sliding tiles on any board from 2x2 to 20x20 (--size WxH, default 3x3; solved up to 5x5)", _sliding),
    Variant("goat", "Goat: article 001's 4x3 sliding-block puzzle with a big piece (get the sheep home)", _goat),
    Variant("ura", "Ura-omote (front/back): turn rows and columns over until all white; --size WxH, 2x2 to 6x6",
            _ura),
)
_BY_NAME = {variant.name: variant for variant in VARIANTS}


def names() -> list[str]:
    return [variant.name for variant in VARIANTS]


def describe(name: str) -> str:
    return _BY_NAME[name].description


def get_puzzle(name: str, size: str | Size | None = None) -> Puzzle:
    """The puzzle called ``name`` (``8``, ``15``, ``sliding``, ``goat``, ``ura``) at ``size`` ("WxH")."""
    variant = _BY_NAME.get(str(name).lower())
    if variant is None:
        raise KomaError(f"unknown puzzle {shown(name)}; choose from {', '.join(names())}")
    if isinstance(size, str):
        size = parse_size(size)
    return variant.build(size)
