"""Game IDs: a short, URL-safe name for one start board of one puzzle at one size.

An ID is ``PREFIX-DIGITS`` followed by one check character, e.g. ``8-2Xa0k`` or ``ura4x4-0f3Kc``:

- ``PREFIX`` names the puzzle and its size: ``8``, ``15``, ``goat``, ``sliding3x4``, ``ura4x4``.
- ``DIGITS`` is the board's number in base 62 (``0-9A-Za-z``), padded to the same width for every
  board of that puzzle and size.  Sliding boards are numbered by their permutation's lexicographic
  (Lehmer) rank over all n! arrangements, Ura-omote boards by their bit pattern over all 2^cells,
  and Goat boards by the model's perfect hash.  So an ID may name an unsolvable board: ``koma parity``
  takes those too, and the solver says why it cannot solve them.
- The last character is a Luhn mod 62 check over the prefix and the digits: any one mistyped
  character, and most swaps of two neighbours, make the ID invalid instead of naming another board.

A bad or foreign ID raises :class:`~solver.errors.KomaError` with a one-line message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from math import factorial

from solver.engines import permutations
from solver.errors import KomaError, shown
from solver.goat.model import GoatPuzzle
from solver.puzzle import Puzzle, State
from solver.registry import get_puzzle, names
from solver.sliding.model import SlidingPuzzle
from solver.ura.model import UraPuzzle

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BASE = len(ALPHABET)
_VALUE = {ch: i for i, ch in enumerate(ALPHABET)}
SEPARATOR = "-"
MAX_ID_LENGTH = 510  # the longest real ID (a 20x20 sliding board) has 499 characters
_PREFIX = re.compile(r"(\d+)|([a-z]+)(?:(\d{1,2})x(\d{1,2}))?")  # 8, 15; goat; sliding3x4, ura4x4
_PREFIX_START = re.compile(r"[a-z]+|\d")


@dataclass(frozen=True)
class _Numbering:
    """How the boards of one puzzle and size are numbered ``0..count-1``."""

    count: int
    number: Callable[[State], int]
    board: Callable[[int], State]

    @property
    def width(self) -> int:
        """Base-62 digits needed for the largest number."""
        return len(_to_base62(self.count - 1))


def _numbering(puzzle: Puzzle) -> _Numbering:
    if isinstance(puzzle, SlidingPuzzle):
        cells = puzzle.cells
        return _Numbering(factorial(cells), permutations.rank, lambda r: permutations.unrank(r, cells))
    if isinstance(puzzle, UraPuzzle):
        return _Numbering(1 << puzzle.cells, puzzle.pack, puzzle.unpack)
    if isinstance(puzzle, GoatPuzzle):  # the perfect hash covers every legal board, and all are solvable
        return _Numbering(puzzle.n_ranks, puzzle.rank, puzzle.unrank)
    raise KomaError(f"{puzzle.title} boards have no game IDs")  # pragma: no cover - every registered puzzle has one


def id_prefix(puzzle: Puzzle) -> str:
    """The part of an ID before the ``-``: ``8``, ``15``, ``goat``, ``sliding3x4``, ``ura4x4``."""
    if puzzle.key in ("8", "15", "goat"):
        return puzzle.key
    return f"{puzzle.key}{puzzle.size_label}"


def _to_base62(number: int, width: int = 1) -> str:
    digits = []
    while number:
        number, digit = divmod(number, BASE)
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits)).rjust(width, ALPHABET[0])


def check_character(text: str) -> str:
    """The Luhn mod 62 check character of ``text`` (characters of :data:`ALPHABET` only)."""
    total = 0
    factor = 2
    for ch in reversed(text):
        addend = factor * _VALUE[ch]
        total += addend // BASE + addend % BASE
        factor = 3 - factor
    return ALPHABET[-total % BASE]


def game_id(puzzle: Puzzle, state: State) -> str:
    """The ID of ``state`` (any legal board of ``puzzle``, solvable or not)."""
    numbering = _numbering(puzzle)
    state = tuple(state)
    try:
        number = numbering.number(state)
        legal = 0 <= number < numbering.count and numbering.board(number) == state
    except (ValueError, IndexError):  # permutations.rank rejects a non-permutation with ValueError
        legal = False
    if not legal:
        raise KomaError(f"not a legal {puzzle.title} {puzzle.size_label} board, so it has no game ID")
    body = id_prefix(puzzle) + SEPARATOR + _to_base62(number, numbering.width)
    return body + check_character(body.replace(SEPARATOR, ""))


def looks_like_game_id(text: str) -> bool:
    """Whether ``text`` is meant as a game ID rather than a puzzle name or a board.

    Puzzle names have no ``-``; boards have several rows (a ``/`` or a line break), and a Goat row
    such as ``r-BB`` does not begin with a puzzle's name.
    """
    text = str(text).strip()
    if SEPARATOR not in text or "/" in text or any(ch.isspace() for ch in text):
        return False
    leading = _PREFIX_START.match(text.lower())
    return leading is not None and (leading.group().isdigit() or leading.group() in names())


def parse_game_id(text: str) -> tuple[Puzzle, State]:
    """The puzzle and start board an ID names; a bad or foreign ID raises a one-line KomaError."""
    text = str(text).strip()
    if len(text) > MAX_ID_LENGTH:
        raise KomaError(f"game ID {shown(text)} is too long: IDs have at most {MAX_ID_LENGTH} characters")
    prefix, separator, code = text.rpartition(SEPARATOR)
    if not separator or not prefix:
        raise KomaError(f"{shown(text)} is not a game ID: IDs look like 15-… or ura4x4-…")
    puzzle = _puzzle_named(prefix.lower())
    numbering = _numbering(puzzle)
    bad = sorted({ch for ch in code if ch not in _VALUE})
    if bad:
        raise KomaError(f"game ID {shown(text)} has a character that IDs never use: {shown(''.join(bad), 8)}")
    if len(code) != numbering.width + 1:
        raise KomaError(f"game ID {shown(text)} is cut or padded: {puzzle.title} {puzzle.size_label} IDs have "
                        f"{numbering.width + 1} characters after '{id_prefix(puzzle)}-', not {len(code)}")
    digits, check = code[:-1], code[-1]
    if check_character(id_prefix(puzzle) + digits) != check:
        raise KomaError(f"game ID {shown(text)} fails its check character: a character is mistyped or missing")
    number = 0
    for ch in digits:
        number = number * BASE + _VALUE[ch]
    if number >= numbering.count:
        raise KomaError(f"game ID {shown(text)} names board {number:,}, but {puzzle.title} {puzzle.size_label} "
                        f"has only {numbering.count:,}")
    return puzzle, numbering.board(number)


def _puzzle_named(prefix: str) -> Puzzle:
    match = _PREFIX.fullmatch(prefix)
    if match is None:
        raise KomaError(f"game ID prefix {shown(prefix)} names no puzzle: IDs begin 8-, 15-, goat-, slidingWxH- or uraWxH-")
    number, word, width, height = match.groups()
    name = number or word
    size = (int(width), int(height)) if width else None
    if name in ("sliding", "ura") and size is None:
        raise KomaError(f"game ID prefix {shown(prefix)} lacks the size: write {name}WxH-…, e.g. {name}3x3-…")
    try:
        puzzle = get_puzzle(name, size)
    except KomaError as error:
        raise KomaError(f"game ID prefix {shown(prefix)}: {error}") from None
    if id_prefix(puzzle) != prefix:
        raise KomaError(f"game ID prefix {shown(prefix)} is not how Koma writes it: this puzzle's IDs begin "
                        f"'{id_prefix(puzzle)}-'")
    return puzzle


def puzzle_and_board(name: str, size: str | None = None, board: str | None = None) -> tuple[Puzzle, State | None]:
    """What a command line names: a PUZZLE with an optional BOARD in its notation, or one game ID.

    An ID names the puzzle, the size and the board, so it takes neither ``size`` nor ``board``.
    """
    if not looks_like_game_id(name):
        puzzle = get_puzzle(name, size)
        return puzzle, None if board is None else puzzle.parse(board)
    if size is not None:
        raise KomaError("a game ID already names the board's size: drop --size")
    if board is not None:
        raise KomaError("a game ID already names the board: give the ID or PUZZLE BOARD, not both")
    return parse_game_id(name)
