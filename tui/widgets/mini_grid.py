"""A paged grid of small boards (text previews with a caption each) and one selected board.

The grid fits as many boards as its size allows, pages through the rest, and reports a changed
selection with a :class:`MiniGrid.Selected` message.  It only draws text it is given.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.ascii import to_ascii

GAP_X, GAP_Y = 2, 1


class MiniGrid(Widget):
    """Boards as (preview text, caption) pairs; ``selected`` is an index into all of them."""

    ALLOW_SELECT = False  # a press picks a board: no text selection, whose start and end repaint the whole screen
    COMPONENT_CLASSES = {"mini-grid--selected", "mini-grid--board", "mini-grid--caption"}
    DEFAULT_CSS = """
    MiniGrid { height: 1fr; }
    """

    selected: reactive[int] = reactive(0)

    class Selected(Message):
        def __init__(self, grid: MiniGrid, index: int):
            super().__init__()
            self.grid, self.index = grid, index

    class Resized(Message):
        """The grid has a new size: how many boards a page holds (so the page count) may have changed."""

        def __init__(self, grid: MiniGrid):
            super().__init__()
            self.grid = grid

    def __init__(self, *, ascii_only: bool = False, id: str | None = None):
        super().__init__(id=id)
        self.ascii_only = ascii_only
        self.items: list[tuple[str, str]] = []
        self.empty_text = ""

    def set_items(self, items, selected: int = 0, empty_text: str = "") -> None:
        self.items = [(preview, to_ascii(caption)) for preview, caption in items] if self.ascii_only else list(items)
        self.empty_text = empty_text
        self.set_reactive(MiniGrid.selected, max(0, min(selected, len(self.items) - 1)))
        self.refresh()

    # --- geometry ----------------------------------------------------------------------------
    def cell_size(self) -> tuple[int, int]:
        if not self.items:
            return 1, 1
        preview = self.items[0][0].split("\n")
        width = max(max(cell_len(line) for line in preview), max(cell_len(c) for _, c in self.items[:64]))
        return width + 2, len(preview) + 1  # a space each side (selection), caption below

    def shape(self) -> tuple[int, int]:
        """Columns and rows of boards that fit."""
        cw, ch = self.cell_size()
        width, height = self.size
        cols = max(1, (width + GAP_X) // (cw + GAP_X))
        rows = max(1, (height + GAP_Y) // (ch + GAP_Y))
        return cols, rows

    @property
    def page_size(self) -> int:
        cols, rows = self.shape()
        return cols * rows

    @property
    def page(self) -> int:
        return self.selected // self.page_size

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.items) // self.page_size))

    # --- navigation --------------------------------------------------------------------------
    def move(self, d_row: int, d_col: int) -> None:
        if not self.items:
            return
        cols, _ = self.shape()
        self.select(self.selected + d_row * cols + d_col)

    def turn_page(self, delta: int) -> None:
        if self.items:
            self.select(self.selected + delta * self.page_size)

    def select(self, index: int) -> None:
        if self.items:
            self.selected = max(0, min(len(self.items) - 1, index))

    def watch_selected(self, index: int) -> None:
        self.post_message(self.Selected(self, index))

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized(self))

    def on_click(self, event: events.Click) -> None:
        if not self.items:
            return
        cw, ch = self.cell_size()
        cols, _ = self.shape()
        col, row = event.x // (cw + GAP_X), event.y // (ch + GAP_Y)
        if col < cols:
            self.select(self.page * self.page_size + row * cols + col)

    # --- drawing -----------------------------------------------------------------------------
    def render(self):
        if not self.items:
            return Text(self.empty_text)
        cw, ch = self.cell_size()
        cols, rows = self.shape()
        first = self.page * self.page_size
        shown = self.items[first:first + self.page_size]
        board = self.get_component_rich_style("mini-grid--board", partial=True)
        chosen = self.get_component_rich_style("mini-grid--selected", partial=True)
        caption = self.get_component_rich_style("mini-grid--caption", partial=True)
        lines: list[Text] = []
        for r in range(rows):
            row_items = shown[r * cols:(r + 1) * cols]
            if not row_items:
                break
            block = [Text() for _ in range(ch)]
            for c, (preview, label) in enumerate(row_items):
                is_selected = first + r * cols + c == self.selected
                style = chosen if is_selected else board
                preview_lines = preview.split("\n")
                for y in range(ch - 1):
                    text = preview_lines[y] if y < len(preview_lines) else ""
                    block[y].append(" " + text + " " * (cw - 1 - cell_len(text)), style)
                    block[y].append(" " * GAP_X)
                mark = ((">" if self.ascii_only else "▶") + " " if is_selected else "  ") + label
                block[ch - 1].append(mark + " " * max(0, cw - cell_len(mark)), chosen if is_selected else caption)
                block[ch - 1].append(" " * GAP_X)
            lines.extend(block)
            if r < rows - 1:
                lines.append(Text())
        return Text("\n").join(lines)
