"""How much terminal a speed board needs, without the UI: 2x2 to 20x20 where the terminal can show them.

A board is drawn in boxed tiles where they fit, else in *compact* cells: the number right-aligned in
:func:`label_digits` characters, a gap column after it, one line a row (a gap line below where there is room).  So a
board of ``width`` x ``height`` needs at least ``width * (digits + 1)`` columns and ``height`` lines for itself; the
Speed screen adds its side panel (``side`` columns, at most half the terminal) and its title and key bars
(``chrome`` lines).  :func:`terminal_needed` says the smallest terminal a size fits in, :func:`too_small` the one
line a player reads when theirs is smaller.
"""

from __future__ import annotations

SIDE_COLUMNS = 32  # the Speed screen's panel (koma.tcss: width 32, max-width 50%)
CHROME_LINES = 3  # its title bar and key bar (two lines)


def label_digits(width: int, height: int) -> int:
    """How many digits the largest tile's number has (2 up to 10x10, 3 beyond)."""
    return len(str(width * height - 1))


def board_cells_needed(width: int, height: int) -> tuple[int, int]:
    """The least columns and lines the board itself takes: compact cells, one line a row."""
    return width * (label_digits(width, height) + 1), height


def board_fits(width: int, height: int, columns: int, lines: int) -> bool:
    """Whether the board fits in a widget of ``columns`` x ``lines``."""
    need_columns, need_lines = board_cells_needed(width, height)
    return columns >= need_columns and lines >= need_lines


def terminal_needed(width: int, height: int, *, side: int = SIDE_COLUMNS, chrome: int = CHROME_LINES) -> tuple[int, int]:
    """The smallest terminal (columns, lines) the Speed screen shows the board in beside its panel: the panel takes
    ``side`` columns, or half the terminal when that is less."""
    need_columns, need_lines = board_cells_needed(width, height)
    columns = need_columns
    while columns - min(side, (columns + 1) // 2) < need_columns:
        columns += 1
    return columns, need_lines + chrome


def too_small(width: int, height: int, columns: int, lines: int, *, side: int = SIDE_COLUMNS,
              chrome: int = CHROME_LINES) -> str:
    """The one line saying a ``columns`` x ``lines`` terminal cannot show this board and what it needs ("" when it
    can)."""
    need = terminal_needed(width, height, side=side, chrome=chrome)
    if columns >= need[0] and lines >= need[1]:
        return ""
    return (f"A {width}x{height} board needs a terminal of at least {need[0]}x{need[1]} "
            f"(this one is {columns}x{lines}).")


def parse_speed_size(text: str) -> tuple[int, int]:
    """A speed size typed as ``WxH`` (``2x7``; a lone ``N`` is NxN), 2x2 to 20x20; KomaError (one line) otherwise."""
    from solver.registry import parse_size
    from tui.game.speed import speed_puzzle

    stripped = (text or "").strip()
    if stripped.isdigit() and len(stripped) <= 3:
        stripped = f"{stripped}x{stripped}"
    width, height = parse_size(stripped)
    speed_puzzle(width, height)
    return width, height
