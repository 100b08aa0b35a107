"""Colour schemes of the speed board, without the UI: which layer (group) each tile belongs to, as Slidysim's schemes
colour big boards, and the colours and ASCII marks the groups are drawn with.

A tile is grouped by its *home* (where it belongs in the goal: tile ``t`` at row ``(t - 1) // width``, column
``(t - 1) % width``), so a tile keeps its colour wherever it is, and the player sees at once which layer it is for:

- ``fringe`` (Slidysim's "Fringe"): the layer the fringe method solves it in, ``min(row, column)``: the first row and
  column, then the next, down to the last 2x2 (on a rectangle the extra rows or columns are layers of their own first,
  as the method reduces it to a square).
- ``rows-columns`` (Slidysim's "Rows, Columns"): the same layers split in two, each layer's row then its column.
- ``rows`` and ``columns``: the tile's home row, or column.
- ``grids`` (Slidysim's "Row Grids", as players stack them for 10x10 to 20x20): the board cut in half, and each half
  again, until the blocks are at most 5x5; a tile's group is its block.
- ``plain``: one style for every tile (no groups).

The blank has no group.  :func:`group_colours` gives a palette for ``count`` groups: a bright rainbow by default, the
Okabe-Ito colours (told apart with the common colour-vision deficiencies) with ``colour_blind``; each group's text
colour (:func:`text_colour`) keeps the number readable on it.  In ASCII mode each group has a letter
(:func:`group_mark`), so layers stay apart without colour.
"""

from __future__ import annotations

from solver.errors import KomaError, shown

PLAIN, FRINGE, ROWS_COLUMNS, ROWS, COLUMNS, GRIDS = "plain", "fringe", "rows-columns", "rows", "columns", "grids"
SCHEMES = (PLAIN, FRINGE, ROWS_COLUMNS, ROWS, COLUMNS, GRIDS)  # the order the key steps through them
SCHEME_NAMES = {PLAIN: "plain", FRINGE: "Fringe", ROWS_COLUMNS: "Rows, Columns", ROWS: "Rows", COLUMNS: "Columns",
                GRIDS: "Grids"}
GRID_BLOCK = 5  # grids cut blocks in half until they are at most this many tiles a side
RAINBOW = ("#ff6b6b", "#ffa94d", "#ffd43b", "#8ce99a", "#66d9e8", "#74c0fc", "#b197fc", "#f783ac")  # bright, as Slidysim
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
MARKS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def check_scheme(name: str) -> str:
    """``name`` if it is a scheme; else a one-line KomaError listing them."""
    if name not in SCHEMES:
        raise KomaError(f"unknown colour scheme {shown(name)}; choose from {', '.join(SCHEMES)}")
    return name


def next_scheme(name: str) -> str:
    """The scheme after ``name`` (the key that steps through them), back to the first after the last."""
    return SCHEMES[(SCHEMES.index(name) + 1) % len(SCHEMES)] if name in SCHEMES else SCHEMES[0]


def _fringe_layer(row: int, col: int, width: int, height: int) -> int:
    """The layer of the reduction that solves home (row, col): on a rectangle the extra rows (or columns) first,
    one layer each, then the square's fringes."""
    extra_rows, extra_cols = max(0, height - width), max(0, width - height)
    if row < extra_rows:
        return row
    if col < extra_cols:
        return col
    return max(extra_rows, extra_cols) + min(row - extra_rows, col - extra_cols)


def _in_layer_row(row: int, col: int, width: int, height: int) -> bool:
    """Whether home (row, col) is in its fringe layer's row (else in its column)."""
    extra_rows, extra_cols = max(0, height - width), max(0, width - height)
    if row < extra_rows:
        return True
    if col < extra_cols:
        return False
    return row - extra_rows <= col - extra_cols


def _grid_block(row: int, col: int, width: int, height: int) -> int:
    """The index of the block holding (row, col) when the board is halved (the longer side first) until the blocks
    are at most GRID_BLOCK a side: blocks are numbered in reading order of the cuts."""
    top, left, rows, cols, index = 0, 0, height, width, 0
    while rows > GRID_BLOCK or cols > GRID_BLOCK:
        if rows >= cols:  # cut across: the top half takes the odd row
            half = (rows + 1) // 2
            second = row >= top + half
            top, rows = (top + half, rows - half) if second else (top, half)
        else:
            half = (cols + 1) // 2
            second = col >= left + half
            left, cols = (left + half, cols - half) if second else (left, half)
        index = index * 2 + second
    return index


def tile_group(scheme: str, width: int, height: int, tile: int) -> int | None:
    """The group of ``tile`` (its layer, row, column or block, from 0) on a ``width`` x ``height`` board; None for the
    blank and for the ``plain`` scheme."""
    if tile == 0 or scheme == PLAIN:
        return None
    if not 0 < tile < width * height:
        raise KomaError(f"tile {tile} is not on a {width}x{height} board")
    row, col = divmod(tile - 1, width)
    if scheme == FRINGE:
        return _fringe_layer(row, col, width, height)
    if scheme == ROWS_COLUMNS:
        return 2 * _fringe_layer(row, col, width, height) + (0 if _in_layer_row(row, col, width, height) else 1)
    if scheme == ROWS:
        return row
    if scheme == COLUMNS:
        return col
    if scheme == GRIDS:
        return _grid_block(row, col, width, height)
    raise KomaError(f"unknown colour scheme {shown(scheme)}; choose from {', '.join(SCHEMES)}")


def board_groups(scheme: str, width: int, height: int) -> tuple[int | None, ...]:
    """The group of every tile value (index = tile, 0 the blank): what a board widget looks up per cell."""
    return tuple(tile_group(scheme, width, height, tile) for tile in range(width * height))


def group_count(scheme: str, width: int, height: int) -> int:
    """How many groups the scheme makes on the board (0 for plain)."""
    groups = {group for group in board_groups(scheme, width, height) if group is not None}
    return max(groups) + 1 if groups else 0


def group_colours(count: int, *, colour_blind: bool = False) -> tuple[str, ...]:
    """A background colour (``#rrggbb``) for each of ``count`` groups; the palette repeats past its length, so
    neighbouring groups always differ."""
    palette = OKABE_ITO if colour_blind else RAINBOW
    return tuple(palette[k % len(palette)] for k in range(count))


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (``#rrggbb``; WCAG relative luminance)."""
    red, green, blue = (int(background[k:k + 2], 16) / 255 for k in (1, 3, 5))

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    return "#000000" if luminance > 0.179 else "#ffffff"


def group_mark(group: int | None) -> str:
    """A group's letter in ASCII mode (a, b, … z, A … Z, then again); a space for no group."""
    return " " if group is None else MARKS[group % len(MARKS)]
