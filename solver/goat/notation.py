"""Goat's board, the one source of its size, cell codes, letters, glyphs and hash size.

No numba here: the model, its numba kernels (:mod:`solver.goat.kernels`) and the TUI's looks all read it.

State: 12 cell codes in reading order (cells 0..11, row by row) on a 4 x 3 board; see
:mod:`solver.goat.model` for the rules that use them.
"""

from __future__ import annotations

from collections.abc import Sequence

WIDTH, HEIGHT, CELLS = 4, 3, 12
BLANK, TL, VBAR, BL, BR, SHEEP, WOLF, DOOR, DASH, BIG = range(10)
ASCII = ".rilj" "SWd-B"  # code -> notation letter
GLYPHS = ("□", "┌", "│", "└", "┘", "羊", "狼", "‖", "─", "大")  # code -> glyph (大: a big-piece cell)
NAMES = ("blank", "┌", "│", "└", "┘", "sheep 羊", "wolf 狼", "door ‖", "─", "big piece")
PIECE_COUNTS = (1, 1, 1, 1, 1, 1, 1, 1, 2, 2)  # how many cells hold each code
BIG_PLACES = 3  # the big piece's left cell: 0, 1 or 2
SMALL_PLACES = 10 * 9 * 8 * 7 * 6 * 5 * 4 * 3  # blank and 7 distinct pieces in the 10 free cells: 1,814,400
N_RANKS = BIG_PLACES * SMALL_PLACES  # 5,443,200
CHAR_CODES = {c: i for i, c in enumerate(ASCII)} | {g: i for i, g in enumerate(GLYPHS)} | {"_": BLANK, "　": BLANK}


def format_unicode(state: Sequence[int]) -> str:
    """Three lines for display, two columns per cell; the big piece is one four-column block ``[大]``.

    Box-drawing glyphs are padded with a space; 羊 and 狼 are double width; the blank is two spaces.
    """
    lines = []
    for r in range(HEIGHT):
        row = state[r * WIDTH:(r + 1) * WIDTH]
        parts = []
        c = 0
        while c < WIDTH:
            v = row[c]
            if v == BIG:
                parts.append("[大]")
                c += 2
                continue
            parts.append("  " if v == BLANK else GLYPHS[v] if v in (SHEEP, WOLF) else GLYPHS[v] + " ")
            c += 1
        lines.append("".join(parts))
    return "\n".join(lines)
