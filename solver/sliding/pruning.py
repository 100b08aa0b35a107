"""Duplicate move strings of the sliding puzzles, and the automaton that prunes them (Taylor and Korf, 1993).

Two strings of blank moves are *duplicates* when, from any position where both can be played, they lead to
the same position: going round a 2x2 block one way for 6 moves ends where going the other way for 6
moves does, and a move followed by its inverse ends where no move does.  :func:`duplicate_strings` finds
them by a breadth-first search on an unbounded board, strings in shortlex order (shorter first, then by
kernel move number): a string is a duplicate when an earlier string reached the same position without
leaving the cells it walks (so the earlier string can be played wherever it can, on any board).  IDA*
never plays a duplicate string (:func:`solver.engines.move_automaton.pruning_automaton`), and still finds
a shortest solution: the shortlex-first one contains none.

The strings up to :data:`MAX_LENGTH` moves are shipped in ``solver/data/sliding_duplicates.txt``
(``python -m solver.sliding.pruning`` writes it; the tests regenerate its shorter strings).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from solver.engines.move_automaton import pruning_automaton

# kernel moves 0..3 (solver.sliding.search_kernels.move_table): the blank steps up, left, right, down, so the
# tile slides down, right, left, up (MOVE_NAMES)
BLANK_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))
LETTERS = "DRLU"
MAX_LENGTH = 12
DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "sliding_duplicates.txt"


def duplicate_strings(max_length: int) -> list[str]:
    """Every duplicate string of at most ``max_length`` moves that contains no shorter one, in shortlex order."""
    start = ((0, 0), ())
    seen: dict[tuple, frozenset] = {start: frozenset([(0, 0)])}
    frontier: list[tuple[tuple[int, ...], tuple[int, int], dict, frozenset]] = [((), (0, 0), {}, frozenset([(0, 0)]))]
    found: set[tuple[int, ...]] = set()
    out: list[str] = []
    for _ in range(max_length):
        grown = []
        for string, blank, board, walked in frontier:
            for m, (dr, dc) in enumerate(BLANK_STEPS):
                moves = string + (m,)
                if any(moves[-k:] in found for k in range(2, len(moves) + 1)):
                    continue
                step = (blank[0] + dr, blank[1] + dc)
                after = dict(board)
                tile = after.pop(step, step)  # a cell's label is its own cell until a tile leaves it
                if tile != blank:
                    after[blank] = tile
                position = (step, tuple(sorted(after.items())))
                cells = walked | {step}
                earlier = seen.get(position)
                if earlier is not None:
                    if earlier <= cells:
                        found.add(moves)
                        out.append("".join(LETTERS[i] for i in moves))
                    continue
                seen[position] = cells
                grown.append((moves, step, after, cells))
        frontier = grown
    return out


def read_duplicates(path: Path = DATA_FILE) -> list[str]:
    """The shipped duplicate strings (comments and blank lines skipped)."""
    strings = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            if set(line) - set(LETTERS):
                raise ValueError(f"{path.name}: not a move string: {line!r}")
            strings.append(line)
    return strings


@lru_cache(maxsize=2)
def automaton(reverse: bool = False) -> np.ndarray:
    """The pruning automaton of the shipped strings, for tables whose moves are numbered as
    :func:`solver.sliding.search_kernels.move_names` says (``reverse``: kernel move m is move 3 - m)."""
    table = pruning_automaton(([LETTERS.index(ch) for ch in s] for s in read_duplicates()), len(LETTERS))
    return np.ascontiguousarray(table[:, ::-1]) if reverse else table


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Write the sliding puzzles' duplicate move strings.")
    parser.add_argument("--max-length", type=int, default=MAX_LENGTH)
    parser.add_argument("--output", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    strings = duplicate_strings(args.max_length)
    header = [
        "# Duplicate blank-move strings of the sliding puzzles (solver/sliding/pruning.py), written by",
        f"# python -m solver.sliding.pruning --max-length {args.max_length}",
        "# Letters: the tile's direction (D R L U = the blank steps up, left, right, down).  IDA* never plays a string",
        "# that ends with one of these: an earlier, no longer string reaches the same position in the same cells.",
    ]
    args.output.write_text("\n".join(header + strings) + "\n")
    print(f"{len(strings)} strings of at most {args.max_length} moves -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
