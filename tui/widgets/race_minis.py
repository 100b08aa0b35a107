"""Opponents' boards in miniature: every racer's board and figures drawn by one widget, so the opponents' moves
are one repaint of this widget (never a layout pass of the screen, never a repaint of the racer's own board).

The widget picks the largest drawing that fits all its boards in its room (:func:`fit`), in this order, each
first with its caption below the board, then beside it:

- ``numbers``: every tile's number, right-aligned in the width of the largest (a 4x4 is 11x4 cells);
- ``cells``: one character per tile, a block where the tile is home and a shade where it is not (a 10x10 is
  10x10), so a racer's progress shows the way speedsolvers solve: row by row;
- ``halves``: the same colours, two rows of tiles per line in half blocks (a 10x10 is 10x5);
- ``lines``: one line per racer, a bar of the tiles home, then the figures (a phone's 40x20 with 8 opponents).

A board's caption is two lines: the racer's place (once finished) and name, then moves, time and TPS.  The widget
draws what it is given (:class:`Mini`); which racer is where is the screen's business.

New minis cost what changed in them: each racer's board and caption are drawn once per look (kept by what they
show), the lines are made again only where a part of them changed, and only those parts of the screen are
repainted (the terminal gets the changed spans); the styles are read once, until the CSS changes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.ascii import to_ascii

CAPTION_LINES = 2
CAPTION_WIDTH = 13  # "123 45.6s 7.8": moves, time and TPS of most races
GAP_X, GAP_Y = 2, 1
BAR_WIDTH = 10  # the bar of tiles home, in the one-line drawing
MARKS = {False: ("█", "░"), True: ("#", ".")}  # a tile home, a tile away: one character each
PARTS = ("home", "away", "blank", "title", "figures", "done", "dnf")  # the component styles, race-minis--PART

Runs = tuple[tuple[str, Style], ...]  # a line's runs of text, each in its style
Part = tuple[int, int, Runs]  # a part of a line: its first column, its width, its runs (one mini's line in a grid)


@dataclass(frozen=True)
class Mini:
    """One racer's board as the widget draws it: ``state`` on a ``width`` x ``height`` board (0 the blank),
    a ``title`` (place and name) and ``figures`` (moves, time, TPS); ``look`` one of ``racing``, ``done``,
    ``dnf``, ``waiting`` (before the reveal: when every mini waits, each is one line, its title and figures)."""

    title: str
    figures: str
    width: int
    height: int
    state: tuple[int, ...]
    look: str = "racing"

    def home(self, cell: int) -> bool:
        """Whether the tile on ``cell`` is in its goal place (the blank never is)."""
        value = self.state[cell]
        return value != 0 and value == cell + 1

    @property
    def homed(self) -> int:
        return sum(1 for cell in range(len(self.state)) if self.home(cell))


@dataclass(frozen=True)
class Drawing:
    """How the minis are drawn: ``board`` one of :data:`BOARDS`, the caption ``beside`` the board or below it."""

    board: str
    beside: bool = False


BOARDS = ("numbers", "cells", "halves")
# the drawings from the largest down; ``lines`` when none fits
DRAWINGS = tuple(Drawing(board, beside) for board in BOARDS for beside in (False, True))
LINES = Drawing("lines")


def board_size(board: str, width: int, height: int) -> tuple[int, int]:
    """The cells a ``width`` x ``height`` board takes drawn as ``board`` (captions apart)."""
    if board == "numbers":
        digits = len(str(width * height - 1))
        return width * (digits + 1) - 1, height
    if board == "cells":
        return width, height
    if board == "halves":
        return width, (height + 1) // 2
    return 0, 0


def cell_size(drawing: Drawing, width: int, height: int) -> tuple[int, int]:
    """The cells one mini takes in ``drawing``, its caption included."""
    board_w, board_h = board_size(drawing.board, width, height)
    if drawing.beside:
        return board_w + 1 + CAPTION_WIDTH, max(board_h, CAPTION_LINES)
    return max(board_w, CAPTION_WIDTH), board_h + CAPTION_LINES


def grid_shape(drawing: Drawing, count: int, width: int, height: int, room: tuple[int, int]) -> tuple[int, int] | None:
    """Columns and rows of ``count`` minis drawn so within ``room`` (columns, lines), or None if they do not
    all fit."""
    cw, ch = cell_size(drawing, width, height)
    columns = max(0, (room[0] + GAP_X) // (cw + GAP_X))
    if not columns:
        return None
    rows = math.ceil(count / columns) if count else 0
    if rows * ch + max(0, rows - 1) * GAP_Y > room[1]:
        return None
    return columns, rows


def fit(count: int, width: int, height: int, room: tuple[int, int], *, ascii_only: bool = False) -> Drawing:
    """The largest drawing in which ``count`` minis of a ``width`` x ``height`` board fit ``room``; :data:`LINES`
    when none does (it shows as many racers as there are lines)."""
    for drawing in DRAWINGS:
        if drawing.board == "halves" and ascii_only:
            continue  # half blocks have no ASCII form
        if grid_shape(drawing, count, width, height, room) is not None:
            return drawing
    return LINES


class RaceMinis(Widget):
    """Racers' boards in miniature (see the module's docstring).  :meth:`show` takes new :class:`Mini` s; the
    widget repaints itself and never asks for a layout: its size is the screen's, whatever it shows."""

    COMPONENT_CLASSES = {"race-minis--home", "race-minis--away", "race-minis--blank", "race-minis--title",
                         "race-minis--figures", "race-minis--done", "race-minis--dnf"}
    DEFAULT_CSS = """
    RaceMinis { width: 1fr; height: 1fr; }
    """

    def __init__(self, *, ascii_only: bool = False, empty_text: str = "", id: str | None = None):
        super().__init__(id=id)
        self.ascii_only = ascii_only
        self.minis: tuple[Mini, ...] = ()
        self.empty_text = empty_text
        self.repaints = 0  # how many times new minis were shown (the screen bounds this rate)
        self._looks: tuple[dict[str, Style], Style] | None = None  # the component styles and the base, until the CSS changes
        self._pieces: dict[tuple, tuple[Runs, ...]] = {}  # boards and captions drawn, by what they show
        self._used: dict[tuple, tuple[Runs, ...]] = {}  # the pieces the drawing under way used
        self._drawn_size: Size | None = None  # the size the lines were made for (None: make them all again)
        self._drawn_parts: list[list[Part]] = []
        self._drawn: list[Strip] = []

    def show(self, minis: tuple[Mini, ...] | list[Mini], empty_text: str | None = None) -> None:
        """Draw these minis (a repaint of what changed, if anything did)."""
        minis = tuple(minis)
        changed = False
        if empty_text is not None and empty_text != self.empty_text:
            self.empty_text, changed = empty_text, True
        if minis != self.minis:
            self.minis, changed = minis, True
            self.repaints += 1
        if changed:
            self._draw(repaint=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._looks, self._pieces, self._drawn_size = None, {}, None

    @property
    def drawing(self) -> Drawing:
        if not self.minis:
            return LINES
        first = self.minis[0]
        return fit(len(self.minis), first.width, first.height, (self.size.width, self.size.height),
                   ascii_only=self.ascii_only)

    # --- drawing ---------------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        if self._drawn_size != self.size:
            self._draw(repaint=False)  # resized (or restyled): Textual repaints it all anyway
        return self._drawn[y] if y < len(self._drawn) else Strip.blank(self.size.width, self._base_style())

    def _styles(self) -> dict[str, Style]:
        return self._cached_looks()[0]

    def _base_style(self) -> Style:
        return self._cached_looks()[1]

    def _cached_looks(self) -> tuple[dict[str, Style], Style]:
        if self._looks is None:
            self._looks = ({part: self.get_component_rich_style(f"race-minis--{part}", partial=True) for part in PARTS},
                           self.rich_style)
        return self._looks

    def _draw(self, *, repaint: bool) -> None:
        """Make the lines again, a line only where one of its parts changed; with ``repaint``, repaint those parts
        (all of the widget after a resize)."""
        size = self.size
        whole = self._drawn_size != size
        parts = self._parts()
        self._pieces = self._used  # what this drawing did not use is forgotten
        base = self._base_style()
        strips: list[Strip] = []
        changed: list[Region] = []
        blank = Strip.blank(size.width, base)
        for y in range(max(size.height, 0)):
            line = parts[y] if y < len(parts) else []
            before = self._drawn_parts[y] if y < len(self._drawn_parts) else []
            if not whole and _same(before, line):
                strips.append(self._drawn[y])
                continue
            strips.append(_strip(line, size.width, base) if line else blank)
            if not whole:
                changed.extend(_changed_spans(before, line, y, size.width))
        self._drawn_size, self._drawn_parts, self._drawn = size, parts, strips
        if repaint and whole:
            self.refresh()
        elif repaint and changed:
            self.refresh(*changed)

    def text_lines(self) -> list[str]:
        """What the widget shows, as plain lines (for reading it back)."""
        out = []
        for line in self._parts():
            text = ""
            for x, _width, runs in line:
                text += " " * max(0, x - cell_len(text)) + "".join(chunk for chunk, _ in runs)
            out.append(text)
        return out

    def _parts(self) -> list[list[Part]]:
        """The minis as lines of parts, laid out in a grid (or one line each); each board and caption drawn once
        per look (:attr:`_used` the pieces this drawing used)."""
        self._used = {}
        styles = self._styles()
        width, height = self.size
        if not width or not height:
            return []
        if not self.minis:
            return [[(0, width, ((self._text(line), styles["figures"]),))] for line in self.empty_text.split("\n")] \
                if self.empty_text else []
        if all(mini.look == "waiting" for mini in self.minis):  # before the reveal: who is there, no boards
            return [[(0, width, ((clip(self._text(f"{mini.title}  {mini.figures}"), width, "~" if self.ascii_only else "…"),
                                  styles["title"]),))] for mini in self.minis[:height]]
        drawing = self.drawing
        if drawing == LINES:
            return [[(0, width, tuple(line))] for line in self._one_line_each(styles, height)]
        first = self.minis[0]
        shape = grid_shape(drawing, len(self.minis), first.width, first.height, (width, height))
        assert shape is not None
        columns, _rows = shape
        cw, ch = cell_size(drawing, first.width, first.height)
        out: list[list[Part]] = []
        for start in range(0, len(self.minis), columns):
            if start:
                out.extend([] for _ in range(GAP_Y))
            blocks = [self._block(mini, drawing, cw, ch, styles) for mini in self.minis[start:start + columns]]
            for k in range(ch):
                out.append([(index * (cw + GAP_X), cw, block[k]) for index, block in enumerate(blocks)])
        return out

    def _piece(self, key: tuple, make: Callable[[], list[list[tuple[str, Style]]]]) -> tuple[Runs, ...]:
        """A board's or a caption's lines, drawn once per ``key`` (what they show)."""
        piece = self._pieces.get(key)
        if piece is None:
            piece = tuple(tuple(line) for line in make())
        self._used[key] = piece
        return piece

    def _text(self, text: str) -> str:
        return to_ascii(text) if self.ascii_only else text

    def _caption(self, mini: Mini, width: int, styles: dict[str, Style]) -> tuple[Runs, ...]:
        return self._piece(("caption", mini.title, mini.figures, mini.look, width),
                           lambda: self._draw_caption(mini, width, styles))

    def _draw_caption(self, mini: Mini, width: int, styles: dict[str, Style]) -> list[list[tuple[str, Style]]]:
        title_style = styles["title"] + (styles["done"] if mini.look == "done" else
                                         styles["dnf"] if mini.look == "dnf" else Style())
        cut = "~" if self.ascii_only else "…"
        return [[(clip(self._text(mini.title), width, cut), title_style)],
                [(clip(self._text(mini.figures), width, cut), styles["figures"])]]

    def _block(self, mini: Mini, drawing: Drawing, width: int, height: int,
               styles: dict[str, Style]) -> tuple[Runs, ...]:
        """One mini: its board, and its caption below it or beside it; ``height`` lines of ``width`` cells."""
        board = self._board(mini, drawing.board, styles)
        caption = self._caption(mini, CAPTION_WIDTH if drawing.beside else width, styles)
        return self._piece(("block", mini, drawing, width, height),
                           lambda: self._join(board, caption, mini, drawing, width, height))

    @staticmethod
    def _join(board: tuple[Runs, ...], caption: tuple[Runs, ...], mini: Mini, drawing: Drawing, width: int,
              height: int) -> list[list[tuple[str, Style]]]:
        if not drawing.beside:
            return [pad(list(line), width) for line in board + caption]
        board_w, _ = board_size(drawing.board, mini.width, mini.height)
        lines = []
        for k in range(height):
            left = pad(list(board[k]), board_w) if k < len(board) else [(" " * board_w, Style())]
            lines.append(pad(left + [(" ", Style())] + (list(caption[k]) if k < len(caption) else []), width))
        return lines

    def _board(self, mini: Mini, mode: str, styles: dict[str, Style]) -> tuple[Runs, ...]:
        """The mini's board alone, drawn as ``mode`` (once per board state)."""
        return self._piece(("board", mini.state, mini.width, mini.height, mode),
                           lambda: self._draw_board(mini, mode, styles))

    def _draw_board(self, mini: Mini, mode: str, styles: dict[str, Style]) -> list[list[tuple[str, Style]]]:
        rows: list[list[tuple[str, Style]]] = []
        if mode == "numbers":
            digits = len(str(mini.width * mini.height - 1))
            for row in range(mini.height):
                line: list[tuple[str, Style]] = []
                for col in range(mini.width):
                    cell = row * mini.width + col
                    value = mini.state[cell]
                    if col:
                        line.append((" ", Style()))
                    line.append((str(value).rjust(digits) if value else " " * digits,
                                 styles["blank"] if not value else styles["home"] if mini.home(cell) else styles["away"]))
                rows.append(line)
        elif mode == "cells":
            home, away = MARKS[self.ascii_only]
            for row in range(mini.height):
                rows.append([(home if mini.home(cell) else away if mini.state[cell] else " ",
                              styles["home"] if mini.home(cell) else styles["away"] if mini.state[cell] else styles["blank"])
                             for cell in range(row * mini.width, (row + 1) * mini.width)])
        else:  # halves: the top row of each pair in the glyph's colour, the bottom row in its background
            for row in range(0, mini.height, 2):
                line = []
                for col in range(mini.width):
                    top = self._colour(mini, row * mini.width + col, styles)
                    bottom = self._colour(mini, (row + 1) * mini.width + col, styles) if row + 1 < mini.height else None
                    line.append(("▀", _half_block_style(top, bottom)))
                rows.append(line)
        return rows

    @staticmethod
    def _colour(mini: Mini, cell: int, styles: dict[str, Style]):
        style = styles["home"] if mini.home(cell) else styles["away"] if mini.state[cell] else styles["blank"]
        return style.bgcolor or style.color

    def _one_line_each(self, styles: dict[str, Style], height: int) -> list[list[tuple[str, Style]]]:
        """A line per racer: name, a bar of the tiles home, figures; the last line says how many more there are."""
        shown = list(self.minis)
        more = 0
        if len(shown) > height:
            shown, more = shown[:height - 1], len(shown) - (height - 1)
        name_width = min(12, max(cell_len(self._text(m.title)) for m in shown)) if shown else 0
        home, away = MARKS[self.ascii_only]
        out = []
        for mini in shown:
            tiles = max(1, mini.width * mini.height - 1)
            filled = round(BAR_WIDTH * mini.homed / tiles)
            title = self._draw_caption(mini, name_width, styles)[0][0]
            out.append([(title[0].ljust(name_width), title[1]), (" ", Style()), (home * filled, styles["home"]),
                        (away * (BAR_WIDTH - filled), styles["away"]), (" " + self._text(mini.figures), styles["figures"])])
        if more:
            out.append([(self._text(f"… and {more} more"), styles["figures"])])
        return out


@functools.lru_cache(maxsize=64)
def _half_block_style(top, bottom) -> Style:
    """A half block's style: the top tile's colour, the bottom one's as the background (a few colours: made once)."""
    return Style(color=top, bgcolor=bottom)


def _same(before: list[Part], now: list[Part]) -> bool:
    return len(before) == len(now) and all(a is b or a == b for a, b in zip(before, now, strict=True))


def _changed_spans(before: list[Part], now: list[Part], y: int, width: int) -> list[Region]:
    """The region of line ``y`` that changed: from the first part that did to the last (one region a line: the
    compositor renders each region apart), where the parts are where they were."""
    if len(before) != len(now) or any(a[:2] != b[:2] for a, b in zip(before, now, strict=True)):
        return [Region(0, y, width, 1)]
    changed = [(x, part_width) for (x, part_width, runs), (_, _, was) in zip(now, before, strict=True)
               if runs is not was and runs != was]
    if not changed:
        return []
    left, right = changed[0][0], changed[-1][0] + changed[-1][1]
    return [Region(left, y, right - left, 1)]


def _strip(line: list[Part], width: int, base: Style) -> Strip:
    segments: list[Segment] = []
    column = 0
    for x, _width, runs in line:
        if x > column:
            segments.append(Segment(" " * (x - column), base))
        segments.extend(Segment(text, base + style) for text, style in runs)
        column = x + cell_len("".join(text for text, _ in runs))
    return Strip(segments).adjust_cell_length(width, base)


def clip(text: str, width: int, cut: str = "…") -> str:
    """``text`` cut to ``width`` cells, ``cut`` (one cell) marking where."""
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + cut


PLAIN = Style()


def pad(line: list[tuple[str, Style]], width: int) -> list[tuple[str, Style]]:
    """``line`` filled with spaces to ``width`` cells."""
    used = cell_len("".join(text for text, _ in line))
    return line + [(" " * (width - used), PLAIN)] if used < width else line
