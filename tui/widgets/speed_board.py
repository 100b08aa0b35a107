"""The Speed screen's board: the whole grid drawn by one widget, so a move at 15 tiles a second is one repaint.

The play screen's :class:`~tui.widgets.board.Board` is one widget per tile, placed by offsets: each move moves a
widget, and that costs a layout pass of the screen.  Here a move changes ``state`` and repaints this widget, and
nothing else is laid out.  Tiles are boxes where they fit and compact cells otherwise (a 10x10 in 40x20 cells at
80x24: two digits on a panel, a gap column and a gap line between them).  In a blindfolded solve the numbers hide.
A press on a cell (a click's or a tap's press, not its release: :class:`~tui.widgets.press.PressPlays`) posts
:class:`SpeedBoard.CellPressed`; the screen decides what it does.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tui.widgets.press import PressPlays

BOX_HEIGHT, BOX_WIDTH = 3, 6  # the smallest boxed tile: a border round two digits
MAX_BOX_HEIGHT, MAX_BOX_WIDTH = 5, 12
COMPACT_HEIGHT, COMPACT_WIDTH = 2, 4  # a compact tile and its gaps: the 10x10 at 80x24
BOXES = {False: ("╭", "╮", "╰", "╯", "─", "│"), True: ("+", "+", "+", "+", "-", "|")}


class SpeedBoard(PressPlays, Widget):
    """A sliding board of ``width`` x ``height`` cells showing ``state`` (0 the blank)."""

    COMPONENT_CLASSES = {"speed-board--tile", "speed-board--blank", "speed-board--border"}
    DEFAULT_CSS = """
    SpeedBoard { width: 1fr; height: 1fr; }
    """

    class CellPressed(Message):
        """A cell was pressed."""

        def __init__(self, board: SpeedBoard, cell: int):
            super().__init__()
            self.board, self.cell = board, cell

    def __init__(self, width: int, height: int, state, *, ascii_only: bool = False, id: str | None = None):
        super().__init__(id=id)
        self.columns, self.rows = width, height
        self.state = tuple(state)
        self.ascii_only = ascii_only
        self.hidden = False
        self._drawn_key: tuple = ()
        self._drawn: list[Strip] = []
        self._looks: tuple[tuple[Style, Style, Style], Style] | None = None  # the part styles and the base, until the CSS changes

    # --- what it shows -------------------------------------------------------------------------------
    def show(self, state) -> None:
        self.state = tuple(state)
        self.refresh()

    def hide_numbers(self, hidden: bool) -> None:
        """Draw the tiles without their numbers (a blindfolded solve), or with them again."""
        if hidden != self.hidden:
            self.hidden = hidden
            self.refresh()

    # --- geometry --------------------------------------------------------------------------------------
    @property
    def boxed(self) -> bool:
        """Whether boxed tiles fit; else compact ones."""
        return self.size.width // self.columns >= BOX_WIDTH and self.size.height // self.rows >= BOX_HEIGHT

    def tile_size(self) -> tuple[int, int]:
        """The cells one tile takes (its gaps included when compact)."""
        if self.boxed:
            return (min(MAX_BOX_WIDTH, self.size.width // self.columns),
                    min(MAX_BOX_HEIGHT, self.size.height // self.rows))
        return (max(3, min(COMPACT_WIDTH, self.size.width // self.columns)),
                max(1, min(COMPACT_HEIGHT, self.size.height // self.rows)))

    def origin(self) -> tuple[int, int]:
        tw, th = self.tile_size()
        return max(0, (self.size.width - tw * self.columns) // 2), max(0, (self.size.height - th * self.rows) // 2)

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell under the widget's point (``x``, ``y``), if any."""
        tw, th = self.tile_size()
        ox, oy = self.origin()
        col, row = (x - ox) // tw, (y - oy) // th
        if x < ox or y < oy or not (0 <= col < self.columns and 0 <= row < self.rows):
            return None
        return row * self.columns + col

    def cell_origin(self, cell: int) -> tuple[int, int]:
        """The top-left point of ``cell``'s tile in the widget."""
        tw, th = self.tile_size()
        ox, oy = self.origin()
        row, col = divmod(cell, self.columns)
        return ox + col * tw, oy + row * th

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        cell = self.cell_at(event.x, event.y)
        if cell is not None:
            self.post_message(self.CellPressed(self, cell))

    # --- drawing ---------------------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._looks = None

    def _cached_looks(self) -> tuple[tuple[Style, Style, Style], Style]:
        """The tile, blank and border styles and the widget's own, read once until the CSS changes (reading them
        walks the widget's ancestors: three times a line of every repaint, it was most of a move's cost)."""
        if self._looks is None:
            tile, blank, border = (self.get_component_rich_style(f"speed-board--{part}", partial=True)
                                   for part in ("tile", "blank", "border"))
            self._looks = (tile, blank, border), self.rich_style
        return self._looks

    def render_line(self, y: int) -> Strip:
        """One line of the board, from the strips made once per board shown (a move makes them again, once)."""
        strips = self._strips()
        return strips[y] if y < len(strips) else Strip.blank(self.size.width, self._cached_looks()[1])

    def _strips(self) -> list[Strip]:
        styles, base = self._cached_looks()
        size = self.size
        key = (self.state, size, self.hidden, styles, base)
        if key != self._drawn_key:
            self._drawn_key, self._drawn = key, [
                Strip([Segment(text, style) for text, style in line]).adjust_cell_length(size.width, base)
                for line in self.lines(*styles)]
        return self._drawn

    def lines(self, tile: Style, blank: Style, border: Style) -> list[list[tuple[str, Style]]]:
        """The board as lines of (text, style) runs: the tiles in their places, the grid centred."""
        if not self.size.width:
            return []
        tw, th = self.tile_size()
        ox, oy = self.origin()
        base = self._cached_looks()[1]
        margin = [(" " * ox, base)] if ox else []
        out: list[list[tuple[str, Style]]] = [[] for _ in range(oy)]
        draw = self._boxed_lines if self.boxed else self._compact_lines
        for row in range(self.rows):
            out.extend(margin + line for line in draw(row, tw, th, tile, blank, border))
        return out

    def render(self) -> Text:
        """The board as one Text (what :meth:`render_line` draws, for reading it back)."""
        return Text("\n").join(Text.assemble(*line) for line in self.lines(*self._cached_looks()[0]))

    def _label(self, value: int) -> str:
        return "" if value == 0 or self.hidden else str(value)

    def _compact_lines(self, row: int, tw: int, th: int, tile: Style, blank: Style,
                       border: Style) -> list[list[tuple[str, Style]]]:
        """One line of two-digit cells with a gap column, and a gap line below when there is room."""
        line: list[tuple[str, Style]] = []
        for col in range(self.columns):
            value = self.state[row * self.columns + col]
            line += [(self._label(value).rjust(tw - 1), blank if value == 0 else tile), (" ", self._cached_looks()[1])]
        return [line] + [[] for _ in range(th - 1)]

    def _boxed_lines(self, row: int, tw: int, th: int, tile: Style, blank: Style,
                     border: Style) -> list[list[tuple[str, Style]]]:
        """Boxes with the number in the middle line; the blank is empty space."""
        tl, tr, bl, br, h, v = BOXES[self.ascii_only]
        lines: list[list[tuple[str, Style]]] = [[] for _ in range(th)]
        middle = th // 2
        for col in range(self.columns):
            value = self.state[row * self.columns + col]
            if value == 0:
                for line in lines:
                    line.append((" " * tw, blank))
                continue
            lines[0].append((tl + h * (tw - 2) + tr, border))
            for k in range(1, th - 1):
                lines[k] += [(v, border), ((self._label(value) if k == middle else "").center(tw - 2), tile), (v, border)]
            lines[th - 1].append((bl + h * (tw - 2) + br, border))
        return lines
