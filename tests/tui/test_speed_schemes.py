"""The speed board's colour schemes as a pure function: each tile's layer by its home, as Slidysim's schemes group
tiles, their colours (readable in the colour-blind palette) and ASCII marks."""

from __future__ import annotations

from itertools import pairwise

import pytest

from solver.errors import KomaError
from tui.game.speed_schemes import (
    COLUMNS,
    FRINGE,
    GRIDS,
    OKABE_ITO,
    PLAIN,
    ROWS,
    ROWS_COLUMNS,
    SCHEMES,
    board_groups,
    check_scheme,
    group_colours,
    group_count,
    group_mark,
    next_scheme,
    text_colour,
    tile_group,
)


def grid(scheme: str, width: int, height: int) -> list[list[int | None]]:
    """The groups of the goal board, row by row (the blank last)."""
    goal = [*range(1, width * height), 0]
    groups = board_groups(scheme, width, height)
    return [[groups[goal[row * width + col]] for col in range(width)] for row in range(height)]


def test_fringe_is_the_layer_the_fringe_method_solves_a_tile_in():
    assert grid(FRINGE, 4, 4) == [[0, 0, 0, 0],
                                  [0, 1, 1, 1],
                                  [0, 1, 2, 2],
                                  [0, 1, 2, None]]
    # a 7x7 has six layers: the last 2x2's three tiles are one
    seven = grid(FRINGE, 7, 7)
    assert [seven[k][k] for k in range(6)] == [0, 1, 2, 3, 4, 5] and seven[5][6] == seven[6][5] == 5
    assert group_count(FRINGE, 7, 7) == 6
    # a rectangle: the extra rows (of a tall board) are layers of their own first, then the square's fringes
    assert grid(FRINGE, 3, 5) == [[0, 0, 0],
                                  [1, 1, 1],
                                  [2, 2, 2],
                                  [2, 3, 3],
                                  [2, 3, None]]
    assert grid(FRINGE, 5, 3)[0] == [0, 1, 2, 2, 2]


def test_rows_columns_splits_each_layer_into_its_row_then_its_column():
    assert grid(ROWS_COLUMNS, 4, 4) == [[0, 0, 0, 0],
                                        [1, 2, 2, 2],
                                        [1, 3, 4, 4],
                                        [1, 3, 5, None]]
    assert group_count(ROWS_COLUMNS, 10, 10) == 18


def test_rows_and_columns_are_the_home_row_and_column():
    assert grid(ROWS, 3, 2) == [[0, 0, 0], [1, 1, None]]
    assert grid(COLUMNS, 3, 2) == [[0, 1, 2], [0, 1, None]]
    assert tile_group(ROWS, 20, 20, 399) == 19 and tile_group(COLUMNS, 20, 20, 399) == 18


def test_grids_halve_the_board_until_blocks_are_at_most_5x5():
    ten = grid(GRIDS, 10, 10)
    assert {ten[r][c] for r in range(5) for c in range(5)} == {0}  # the 10x10's four 5x5 quarters
    assert ten[0][5] == 1 and ten[5][0] == 2 and ten[9][8] == 3
    twenty = grid(GRIDS, 20, 20)
    blocks = {twenty[r][c] for r in range(20) for c in range(20)} - {None}
    assert blocks == set(range(16))  # 20x20 -> 20x10 -> 10x10 -> 10x5 -> 5x5: sixteen blocks
    for r in range(20):
        for c in range(20):
            if twenty[r][c] is not None:
                assert twenty[r][c] == twenty[r - r % 5][c - c % 5]  # each block is a 5x5 square
    assert group_count(GRIDS, 4, 4) == 1  # a small board is one block


def test_every_scheme_groups_every_tile_of_every_size_and_the_blank_never():
    for scheme in SCHEMES:
        for width, height in [(2, 2), (2, 7), (7, 2), (3, 3), (5, 4), (7, 7), (13, 9), (20, 20)]:
            groups = board_groups(scheme, width, height)
            assert groups[0] is None
            if scheme == PLAIN:
                assert set(groups) == {None}
                continue
            assert all(isinstance(g, int) and 0 <= g < group_count(scheme, width, height) for g in groups[1:])


def test_neighbouring_layers_never_share_a_colour_and_text_stays_readable():
    for colour_blind in (False, True):
        colours = group_colours(40, colour_blind=colour_blind)
        assert all(a != b for a, b in pairwise(colours))
        for colour in colours:
            text = text_colour(colour)
            # the number keeps a contrast of at least 4.5:1 (WCAG AA) against its layer's colour
            assert contrast(colour, text) >= 4.5, (colour, text)
    assert group_colours(3, colour_blind=True) == OKABE_ITO[:3]


def contrast(first: str, second: str) -> float:
    def luminance(colour: str) -> float:
        def linear(c: float) -> float:
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5))
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_ascii_marks_tell_layers_apart_without_colour():
    marks = [group_mark(k) for k in range(52)]
    assert len(set(marks)) == 52 and all(m.isascii() and m.isalpha() for m in marks)
    assert group_mark(None) == " "


def test_scheme_names_are_checked_and_stepped_through():
    assert [next_scheme(s) for s in SCHEMES] == [*SCHEMES[1:], SCHEMES[0]]
    assert check_scheme("fringe") == "fringe"
    with pytest.raises(KomaError, match="unknown colour scheme"):
        check_scheme("stripes")
    with pytest.raises(KomaError):
        tile_group(FRINGE, 4, 4, 16)
