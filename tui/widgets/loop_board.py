"""A 15-puzzle board with article 003's loop drawn over it: each cell's arrow, the jump cells boxed twice.

It draws a state and highlights the tile that moved last; what moves is the loop method's business
(:mod:`solver.sliding.loop`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from solver.sliding.loop import JUMP_POSITIONS, LOOP_ARROWS, LOOP_CELLS

JUMP_CELLS = frozenset(r * 4 + c for r, c in (LOOP_CELLS[i] for i in JUMP_POSITIONS))
ASCII_ARROWS = str.maketrans("↓←↑→", "v<^>")
CELL_WIDTH = 8  # border, 6 inside, border


class LoopBoard(Widget):
    """Tiles with the loop's arrow in each cell; jump cells have a double border."""

    COMPONENT_CLASSES = {"loop-board--tile", "loop-board--blank", "loop-board--moved", "loop-board--jump"}
    DEFAULT_CSS = """
    LoopBoard { width: 34; height: 12; }
    """

    def __init__(self, state, *, ascii_only: bool = False, id: str | None = None):
        super().__init__(id=id)
        self.state = tuple(state)
        self.moved: int | None = None
        self.ascii_only = ascii_only

    def show(self, state, moved: int | None = None) -> None:
        self.state = tuple(state)
        self.moved = moved
        self.refresh()

    def render(self):
        tile = self.get_component_rich_style("loop-board--tile", partial=True)
        blank = self.get_component_rich_style("loop-board--blank", partial=True)
        moved = self.get_component_rich_style("loop-board--moved", partial=True)
        jump = self.get_component_rich_style("loop-board--jump", partial=True)
        lines: list[Text] = []
        for r in range(4):
            rows = [Text(), Text(), Text()]
            for c in range(4):
                cell = r * 4 + c
                is_jump = cell in JUMP_CELLS
                if self.ascii_only:
                    tl = tr = bl = br = "+"
                    h, v = ("=", "#") if is_jump else ("-", "|")
                else:
                    tl, tr, bl, br, h, v = ("╔", "╗", "╚", "╝", "═", "║") if is_jump else ("╭", "╮", "╰", "╯", "─", "│")
                arrow = LOOP_ARROWS[cell].translate(ASCII_ARROWS) if self.ascii_only else LOOP_ARROWS[cell]
                value = self.state[cell]
                style = moved if cell == self.moved else (blank if value == 0 else tile)
                border = jump if is_jump else style
                rows[0].append(tl + h * 6 + tr, border)
                rows[1].append(v, border)
                rows[1].append(f" {'' if value == 0 else value:>2} {arrow} ", style)
                rows[1].append(v, border)
                rows[2].append(bl + h * 6 + br, border)
            lines.extend(rows)
        return Text("\n").join(lines)
